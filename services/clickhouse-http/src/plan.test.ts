import { describe, expect, it } from 'vitest'
import { ClickHouseException } from './errors.js'
import { claimQueryId, maxQuerySizeOf, planQuery, type PlanInput } from './plan.js'
import { readRequestParams } from './request-params.js'

const ANALYST_LIMITS: PlanInput['analystLimits'] = [['max_execution_time', 30], ['max_result_rows', 1000], ['result_overflow_mode', 'throw'], ['readonly', 1]]

function plan(user: 'svc' | 'analyst', query: string, opts: { method?: string; url?: string; body?: string | Buffer; cut?: boolean } = {}) {
  const url = new URLSearchParams(opts.url ?? '')
  const params = readRequestParams(url, { get: () => undefined })
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body) : opts.body ?? Buffer.alloc(0)
  const text = Buffer.concat([Buffer.from(query === '' ? '' : `${query}\n`), body])
  return planQuery({ user, method: opts.method ?? 'POST', params, text, cut: opts.cut ?? false, maxQuerySize: maxQuerySizeOf(params, user, 262144), analystLimits: ANALYST_LIMITS })
}

const refusal = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    if (err instanceof ClickHouseException) return [err.code, err.message]
    throw err
  }
  throw new Error('not refused')
}

describe('planQuery', () => {
  it('streams queries in row formats and runs the rest whole', () => {
    expect(plan('analyst', 'SELECT 1', { url: 'default_format=JSONEachRow' }).run.stream).toBe(true)
    expect(plan('analyst', 'SELECT 1 FORMAT JSON').run.stream).toBe(false)
    expect(plan('analyst', 'SHOW TABLES').run.stream).toBe(false)
    expect(plan('svc', 'SELECT 1', { url: 'wait_end_of_query=1' }).run.stream).toBe(false)
    expect(plan('analyst', 'SELECT 1 FORMAT CSVWithNames', { url: 'default_format=JSON' }).format).toBe('CSVWithNames')
    expect(plan('analyst', 'SELECT 1').format).toBe('TabSeparated')
  })

  it('runs the analyst under its limits, readonly=1 before anything the request sets', () => {
    const { run } = plan('analyst', 'SELECT {n:UInt8}', { url: 'param_n=7&max_threads=2&database=analytics' })
    expect(run.setup).toEqual([
      'SET allow_introspection_functions = 0, implicit_select = 0',
      'SET max_execution_time = 30',
      'SET max_result_rows = 1000',
      "SET result_overflow_mode = 'throw'",
      'SET readonly = 1',
      "SET max_threads = '2'",
      "SET param_n = '7'",
      "SET param___database = 'analytics'",
      'USE {__database:Identifier}',
    ])
  })

  it('keeps parameter values as ClickHouse text, quoted as string literals, never in the query', () => {
    const { run } = plan('svc', 'SELECT {s:String}', { url: `param_s=${encodeURIComponent("it's a \\t tab")}` })
    expect(run.setup.slice(1)).toEqual(["SET param_s = 'it\\'s a \\\\t tab'"])
    expect(run.sql).toBe('SELECT {s:String}\n')
  })

  it("refuses the analyst's writes, and svc's over GET, with ClickHouse's READONLY", () => {
    expect(refusal(() => plan('analyst', 'DROP TABLE spans_v1'))).toEqual([164, 'analyst: Cannot execute query in readonly mode'])
    expect(refusal(() => plan('analyst', "INSERT INTO t VALUES (1)"))[0]).toBe(164)
    expect(refusal(() => plan('svc', 'CREATE TABLE t (x UInt8) ENGINE = Memory', { method: 'GET' }))[1]).toMatch(/method GET implies readonly/)
    expect(plan('svc', 'SELECT 1', { method: 'GET' }).run.setup.slice(1)).toEqual(['SET readonly = 2'])
  })

  it('refuses a second statement, INTO OUTFILE, FROM INFILE and an empty query', () => {
    expect(refusal(() => plan('svc', 'SELECT 1; DROP TABLE t'))).toEqual([62, 'Syntax error (Multi-statements are not allowed): failed at position 9 (end of query): ; DROP TABLE t. '])
    expect(refusal(() => plan('svc', "SELECT 1 INTO OUTFILE '/tmp/x'"))[0]).toBe(358)
    expect(refusal(() => plan('svc', "INSERT INTO t FROM INFILE '/etc/passwd' FORMAT CSV"))[0]).toBe(78)
    expect(refusal(() => plan('svc', '', { body: '  ' }))).toEqual([62, 'Empty query'])
  })

  it("hands an INSERT's data to the engine as bytes, with FROM INFILE's place in the statement", () => {
    const data = Buffer.from([0x01, 0x00, 0xff, 0x27, 0x3b])
    const { run } = plan('svc', 'INSERT INTO t (a) FORMAT RowBinary', { body: data })
    expect(run.insert).toEqual({ data, before: 'INSERT INTO t (a) ', after: 'FORMAT RowBinary\n' })
  })

  it("lets ClickHouse's parser answer a statement past max_query_size, which only it can (the analyst's body cut there)", () => {
    const long = `SELECT '${'x'.repeat(300_000)}'`
    const p = plan('svc', long)
    expect(p.run.stream).toBe(true)
    expect(p.run.sql.length).toBe(262145)
    expect(plan('analyst', '', { body: long.slice(0, 262145), cut: true }).run.sql.length).toBe(262145)
    // svc may raise the limit, as on a server; the analyst may not (readonly=1).
    expect(plan('svc', long, { url: 'max_query_size=1000000' }).run.sql.length).toBe(long.length + 1)
    expect(maxQuerySizeOf(readRequestParams(new URLSearchParams('max_query_size=1000000'), { get: () => undefined }), 'analyst', 262144)).toBe(262144)
  })

  it('refuses a query id already running', () => {
    const running = new Set<string>()
    const release = claimQueryId(running, 'q1')
    expect(refusal(() => claimQueryId(running, 'q1'))).toEqual([216, 'Query with id = q1 is already running.'])
    release()
    expect(() => claimQueryId(running, 'q1')).not.toThrow()
  })
})

describe('readRequestParams', () => {
  it('sorts settings, query parameters and what the HTTP handler reads itself', () => {
    const headers = new Map([['x-clickhouse-format', 'JSONCompact']])
    const p = readRequestParams(new URLSearchParams('query=SELECT+1&database=d&default_format=CSV&query_id=q&session_id=s&user=u&password=p&param_a=1&param_a=2&param_bad-name=x&max_threads=3&enable_http_compression=1&http_zlib_compression_level=6'), { get: (n) => headers.get(n) })
    expect(p).toEqual({
      query: 'SELECT 1',
      database: 'd',
      defaultFormat: 'JSONCompact',
      queryId: 'q',
      settings: [['max_threads', '3']],
      queryParams: [['a', '1']],
      http: { enableCompression: true, compressionLevel: 6, waitEndOfQuery: false },
    })
  })

  it("refuses ClickHouse's native compression and a setting name that cannot be one", () => {
    expect(refusal(() => readRequestParams(new URLSearchParams('compress=1'), { get: () => undefined }))[0]).toBe(48)
    expect(refusal(() => readRequestParams(new URLSearchParams('max threads=1'), { get: () => undefined }))).toEqual([115, "Unknown setting 'max threads'"])
  })
})
