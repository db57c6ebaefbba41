/**
 * From a request (its user, method, parameters and the query text: the `query`
 * parameter, a line break, the body) to what the engine runs, or ClickHouse's
 * refusal. Pure: the handler reads, authenticates and answers; this decides.
 */
import { CODES, ClickHouseException, exception } from './errors.js'
import type { Run } from './executor.js'
import { isStreamable } from './formats.js'
import { setupStatements, type RequestParams } from './request-params.js'
import { analyzeStatement, READ_KINDS, STREAMABLE_KINDS, WRITE_KINDS } from './statement.js'
import type { UserName } from './users.js'

export interface PlanInput {
  user: UserName
  method: string
  params: RequestParams
  /** The query text as received; `cut` when the body was not read to its end. */
  text: Buffer
  cut: boolean
  /** The server's max_query_size (a request of svc may raise it with the setting). */
  maxQuerySize: number
  /** What every analyst query runs under, readonly=1 last. */
  analystLimits: Array<[string, string | number]>
}

export interface Plan {
  run: Run
  /** The output format the response is in (X-ClickHouse-Format, Content-Type). */
  format: string
  /** The statement's first keyword (logs, metrics). */
  kind: string
}

const readonlyRefusal = (who: string, hint = '') => exception('READONLY', `${who}: Cannot execute query in readonly mode${hint}`)

/** The request's effective max_query_size: the server's, or the one a svc request sets. */
export function maxQuerySizeOf(p: RequestParams, user: UserName, serverDefault: number): number {
  const set = user === 'svc' ? p.settings.find(([k]) => k === 'max_query_size')?.[1] : undefined
  const n = set === undefined ? NaN : Number(set)
  return Number.isSafeInteger(n) && n > 0 ? n : serverDefault
}

export function planQuery(input: PlanInput): Plan {
  const { params, text, user } = input
  // ClickHouse parses at most max_query_size bytes: a longer statement fails in its parser, unless it is an
  // INSERT whose data begins before that (the data is not part of the statement).
  const limit = input.maxQuerySize + 1
  const truncated = input.cut || text.length > limit
  const head = text.subarray(0, limit)
  const st = analyzeStatement(head.toString('latin1'), !truncated)
  if (st.kind === '' && !st.incomplete) throw exception('SYNTAX_ERROR', 'Empty query')
  if (st.secondStatementAt !== null) {
    const at = st.secondStatementAt
    throw exception('SYNTAX_ERROR', `Syntax error (Multi-statements are not allowed): failed at position ${at + 1} (end of query): ${head.subarray(at, at + 100).toString('utf8').trimEnd()}. `)
  }
  if (st.intoOutfile) throw exception('INTO_OUTFILE_NOT_ALLOWED', 'INTO OUTFILE is not allowed')
  if (st.fromInfile) throw new ClickHouseException(78, 'Query has infile and was send directly to server', 'UNKNOWN_TYPE_OF_QUERY')
  // A statement that writes is refused before any work; one that is no statement at all is left to the parser.
  const writes = WRITE_KINDS.has(st.kind)
  if (user === 'analyst' && writes) throw readonlyRefusal('analyst')
  if (input.method !== 'POST' && writes)
    throw readonlyRefusal(user, '. For queries over HTTP, method GET implies readonly. You should use method POST for modifying queries')

  const format = st.outputFormat ?? params.defaultFormat ?? 'TabSeparated'
  const setup = setupStatements(params, { limits: user === 'analyst' ? input.analystLimits : [], readonlyGet: user === 'svc' && input.method !== 'POST' })
  const base = { setup, format }
  if (st.insert && st.insert.format !== 'Values' && st.insert.dataStart <= head.length) {
    const { dataStart, infileAt } = st.insert
    return { kind: st.kind, format, run: { ...base, sql: '', stream: false, insert: { data: text.subarray(dataStart), before: text.subarray(0, infileAt).toString('utf8'), after: text.subarray(infileAt, dataStart).toString('utf8') } } }
  }
  if (st.insert) return { kind: st.kind, format, run: { ...base, sql: text.toString('utf8'), stream: false } }
  if (truncated || st.incomplete || (!READ_KINDS.has(st.kind) && !writes && (user === 'analyst' || input.method !== 'POST'))) {
    // Only ClickHouse's parser can answer these (too long, a string or comment left open, no statement it
    // knows, for a user or method that may only read). A stream parses
    // the statement before it runs anything and refuses all but queries, so nothing else can slip through.
    return { kind: st.kind, format, run: { ...base, sql: head.toString('utf8'), stream: true } }
  }
  const stream = STREAMABLE_KINDS.has(st.kind) && isStreamable(format) && !params.http.waitEndOfQuery
  return { kind: st.kind, format, run: { ...base, sql: text.toString('utf8'), stream } }
}

/** Checks a query id is free, as a server does across its running queries. */
export function claimQueryId(running: Set<string>, id: string): () => void {
  if (running.has(id)) throw new ClickHouseException(CODES.QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING, `Query with id = ${id} is already running.`, 'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING')
  running.add(id)
  return () => running.delete(id)
}
