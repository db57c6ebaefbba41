import { mkdirSync } from 'node:fs'
import { unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { Logger } from '../log.js'
import { insertRows, insertSeconds } from '../metrics.js'
import type { ClusterTarget } from './cluster.js'
import type { QueryOptions, QueryParams, Store } from './types.js'

function settingsOf(opts: QueryOptions | undefined): ClickHouseSettings | undefined {
  if (!opts?.settings && !opts?.tag) return undefined
  // log_comment lands in system.query_log, so analysts can tell which caller ran a query.
  return { ...(opts.settings as ClickHouseSettings | undefined), ...(opts.tag ? { log_comment: opts.tag } : {}) }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Whether every row has exactly these keys, none of them undefined. */
function samePresentColumns(rows: Array<Record<string, unknown>>, columns: string[]): boolean {
  for (const r of rows) {
    let n = 0
    for (const k in r) {
      if (r[k] === undefined) return false
      n++
    }
    if (n !== columns.length) return false
    for (const c of columns) if (!(c in r)) return false
  }
  return true
}

/** A string literal for SQL: only for text this process made itself (INFILE takes no query parameter). */
const sqlLiteral = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

/**
 * A Store over @clickhouse/client. The same code serves a ClickHouse server over
 * HTTP and chdb in process: only the client's connection differs.
 *
 * Under chdb, per-call settings are applied with SET on the one session and so
 * outlive the call; pass only settings that are harmless to keep (log_comment is).
 */
export function clickhouseStore(client: ClickHouseClient, kind: 'server' | 'chdb', log: Logger, opts: { insertDir?: string; cluster?: ClusterTarget } = {}): Store {
  let closed = false
  // chdb takes an inline INSERT's data as part of the statement text, which its SQL
  // front end scans before the format parser sees it; INSERT ... FROM INFILE hands
  // the bytes to the format parser directly. Measured on the benchmark's spans
  // (JSONEachRow, 20k-row inserts into spans_v1): ~20% more rows/s for the same CPU.
  // A server gets the ordinary streamed insert, which is already that direct path.
  const insertDir = kind === 'chdb' ? opts.insertDir : undefined
  if (insertDir) mkdirSync(insertDir, { recursive: true })
  let insertSeq = 0
  const fail = (op: string, sql: string, opts: QueryOptions | undefined, err: unknown): never => {
    log.debug({ err, op, tag: opts?.tag, sql: sql.slice(0, 200) }, 'clickhouse statement failed')
    throw err
  }
  return {
    kind,
    ...(opts.cluster ? { cluster: opts.cluster } : {}),
    async query<Row = Record<string, unknown>>(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<Row[]> {
      try {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: settingsOf(opts) })
        return await rs.json<Row>()
      } catch (err) {
        return fail('query', sql, opts, err)
      }
    },
    async command(sql: string, params?: QueryParams, opts?: QueryOptions): Promise<void> {
      try {
        await client.command({ query: sql, query_params: params, clickhouse_settings: settingsOf(opts) })
      } catch (err) {
        fail('command', sql, opts, err)
      }
    },
    async insert<Row extends Record<string, unknown>>(table: string, rows: Row[], opts?: QueryOptions): Promise<void> {
      if (rows.length === 0) return
      // Positional rows (JSONCompactEachRow) with the column list given once: the text
      // is a third smaller than JSONEachRow and ClickHouse parses it ~35% faster
      // (measured on the benchmark's spans). Rows that leave a column out (to get its
      // DEFAULT) cannot be positional; such an insert keeps JSONEachRow.
      const columns = Object.keys(rows[0]!)
      for (const c of columns) if (!IDENTIFIER.test(c)) throw new Error(`not a column name: ${JSON.stringify(c)}`)
      const positional = samePresentColumns(rows, columns)
      const format = positional ? 'JSONCompactEachRow' : 'JSONEachRow'
      const line = positional ? (r: Row) => JSON.stringify(columns.map((c) => r[c])) : (r: Row) => JSON.stringify(r)
      const timer = insertSeconds.startTimer({ table })
      insertRows.observe({ table }, rows.length)
      try {
        if (insertDir) {
          const file = join(insertDir, `${process.pid}-${++insertSeq}.json`)
          let body = ''
          for (const r of rows) body += line(r) + '\n'
          await writeFile(file, body)
          try {
            await client.command({
              query: `INSERT INTO {table:Identifier} ${positional ? `(${columns.join(', ')}) ` : ''}FROM INFILE ${sqlLiteral(file)} FORMAT ${format}`,
              query_params: { table },
              clickhouse_settings: settingsOf(opts),
            })
          } finally {
            await unlink(file).catch(() => {})
          }
        } else if (positional) {
          await client.insert({ table, columns: columns as [string, ...string[]], values: rows.map((r) => columns.map((c) => r[c])), format, clickhouse_settings: settingsOf(opts) })
        } else {
          await client.insert({ table, values: rows, format, clickhouse_settings: settingsOf(opts) })
        }
        timer()
      } catch (err) {
        fail('insert', `INSERT INTO ${table}`, opts, err)
      }
    },
    async close(): Promise<void> {
      if (closed) return
      closed = true
      await client.close()
    },
  }
}
