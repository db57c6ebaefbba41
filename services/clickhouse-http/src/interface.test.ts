/**
 * The interface over a real chdb store, spoken to as curl would: raw HTTP requests
 * (node:http, so nothing decompresses or retries behind the test's back) for each
 * thing ClickHouse's HTTP interface does that clients rely on.
 */
import { request } from 'node:http'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestInterface, type TestInterface } from './test-support/interface.js'

let t: TestInterface

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: string
}

function http(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}${path}`, { method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'), headers: opts.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

const q = (query: string) => `/?query=${encodeURIComponent(query)}`
const svc = () => ({ authorization: t.svcAuth })
const analyst = () => ({ authorization: t.analystAuth })
const EXCEPTION = /^Code: (\d+)\. DB::Exception: [\s\S]+ \(([A-Z0-9_]+)\) \(version \d+\.\d+\.\d+\.\d+\)\n$/

function expectException(r: Reply, status: number, code: number, name: string) {
  expect(r.status).toBe(status)
  expect(r.headers['x-clickhouse-exception-code']).toBe(String(code))
  expect(r.text).toMatch(EXCEPTION)
  expect(EXCEPTION.exec(r.text)!.slice(1)).toEqual([String(code), name])
}

beforeAll(async () => {
  t = await startTestInterface({
    SVC_CLICKHOUSE_ANALYST_MAX_RESULT_ROWS: '1000',
    SVC_CLICKHOUSE_ANALYST_MAX_EXECUTION_TIME: '1',
    SVC_CLICKHOUSE_HTTP_MAX_BODY_BYTES: String(20 * 1024 * 1024),
  })
  const r = await http('/', { headers: svc(), body: "CREATE TABLE events (id UInt64, name String, tags Array(String)) ENGINE = MergeTree ORDER BY id" })
  expect(r.status).toBe(200)
  const rows = [{ id: 1, name: 'a', tags: ['x'] }, { id: 2, name: "b'\t", tags: [] }]
  expect((await http(q('INSERT INTO events FORMAT JSONEachRow'), { headers: svc(), body: rows.map((x) => JSON.stringify(x)).join('\n') })).status).toBe(200)
}, 30_000)

afterAll(async () => {
  await t?.close()
})

describe('ClickHouse HTTP interface', () => {
  it('answers /ping, / and /replicas_status "Ok." without credentials, and 404 elsewhere', async () => {
    for (const path of ['/ping', '/', '/replicas_status']) {
      const r = await http(path)
      expect([r.status, r.text]).toEqual([200, 'Ok.\n'])
    }
    expect((await http('/play')).status).toBe(404)
  })

  it('runs /?query=SELECT 1 with the headers a server sends', async () => {
    const r = await http(q('SELECT 1'), { headers: svc() })
    expect([r.status, r.text]).toEqual([200, '1\n'])
    expect(r.headers['x-clickhouse-format']).toBe('TabSeparated')
    expect(r.headers['content-type']).toBe('text/tab-separated-values; charset=UTF-8')
    expect(r.headers['x-clickhouse-query-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect(r.headers['x-clickhouse-timezone']).toBeTruthy()
    expect(r.headers['x-clickhouse-server-display-name']).toBeTruthy()
    expect(JSON.parse(r.headers['x-clickhouse-summary'] as string)).toMatchObject({ result_rows: '1', written_rows: '0' })
  })

  it('joins the query parameter and the body with a line break, as ClickHouse does', async () => {
    const r = await http(`${q('SELECT count()')}`, { headers: svc(), body: 'FROM events' })
    expect(r.text).toBe('2\n')
    const body = await http('/', { headers: analyst(), body: 'SELECT name FROM events ORDER BY id FORMAT JSONEachRow' })
    expect(body.text).toBe('{"name":"a"}\n{"name":"b\'\\t"}\n')
  })

  it('writes each format as ClickHouse does, named by default_format, X-ClickHouse-Format or the FORMAT clause', async () => {
    const sql = 'SELECT id, name FROM events ORDER BY id'
    const expected: Record<string, string> = {
      JSONEachRow: '{"id":1,"name":"a"}\n{"id":2,"name":"b\'\\t"}\n',
      JSONStringsEachRow: '{"id":"1","name":"a"}\n{"id":"2","name":"b\'\\t"}\n',
      JSONCompactEachRow: '[1, "a"]\n[2, "b\'\\t"]\n',
      TabSeparated: '1\ta\n2\tb\\\'\\t\n',
      TabSeparatedWithNames: 'id\tname\n1\ta\n2\tb\\\'\\t\n',
      TabSeparatedWithNamesAndTypes: 'id\tname\nUInt64\tString\n1\ta\n2\tb\\\'\\t\n',
      CSV: '1,"a"\n2,"b\'\t"\n',
      CSVWithNames: '"id","name"\n1,"a"\n2,"b\'\t"\n',
    }
    for (const [format, text] of Object.entries(expected)) {
      const viaParam = await http(`${q(sql)}&default_format=${format}`, { headers: analyst() })
      expect([format, viaParam.text]).toEqual([format, text])
      expect(viaParam.headers['x-clickhouse-format']).toBe(format)
      const viaClause = await http(q(`${sql} FORMAT ${format}`), { headers: analyst() })
      expect([format, viaClause.text]).toEqual([format, text])
    }
    const viaHeader = await http(q(sql), { headers: { ...analyst(), 'x-clickhouse-format': 'JSONCompactEachRow' } })
    expect(viaHeader.text).toBe(expected.JSONCompactEachRow)
    const json = JSON.parse((await http(q(`${sql} FORMAT JSON`), { headers: analyst() })).text) as { data: unknown[]; rows: number; meta: unknown[] }
    expect([json.rows, json.data, json.meta]).toEqual([2, [{ id: 1, name: 'a' }, { id: 2, name: "b'\t" }], [{ name: 'id', type: 'UInt64' }, { name: 'name', type: 'String' }]])
    const compact = JSON.parse((await http(q(`${sql} FORMAT JSONCompact`), { headers: analyst() })).text) as { data: unknown[] }
    expect(compact.data).toEqual([[1, 'a'], [2, "b'\t"]])
    const rowBinary = await http(q('SELECT toUInt16(258) AS n FORMAT RowBinary'), { headers: analyst() })
    expect([...rowBinary.body]).toEqual([2, 1])
    expect(rowBinary.headers['content-type']).toBe('application/octet-stream')
    const native = await http(q('SELECT 1 AS check FORMAT Native'), { headers: analyst() })
    expect(native.body.toString('latin1')).toBe('\u0001\u0001\u0005check\u0005UInt8\u0001')
  })

  it('binds param_<name> values as ClickHouse text, never as SQL', async () => {
    const hostile = "x'; DROP TABLE events; --"
    const r = await http(`${q('SELECT {s:String} AS s, {n:UInt8} + 1 AS n, {a:Array(String)} AS a FORMAT JSONEachRow')}&param_s=${encodeURIComponent(hostile)}&param_n=41&param_a=${encodeURIComponent("['p','q']")}`, { headers: analyst() })
    expect(JSON.parse(r.text)).toEqual({ s: hostile, n: 42, a: ['p', 'q'] })
    const escaped = await http(`${q('SELECT {s:String} AS s FORMAT JSONEachRow')}&param_s=${encodeURIComponent('tab\\there')}`, { headers: analyst() })
    expect(JSON.parse(escaped.text)).toEqual({ s: 'tab\there' })
    expect((await http(q('SELECT count() FROM events'), { headers: svc() })).text).toBe('2\n')
    expectException(await http(q('SELECT {missing:String}'), { headers: analyst() }), 500, 456, 'UNKNOWN_QUERY_PARAMETER')
  })

  it('applies settings from the URL, and refuses an unknown one with 404 / UNKNOWN_SETTING', async () => {
    expect((await http(`${q("SELECT getSetting('max_threads')")}&max_threads=3`, { headers: svc() })).text).toBe('3\n')
    expectException(await http(`${q('SELECT number FROM numbers(10)')}&max_result_rows=2&result_overflow_mode=throw`, { headers: svc() }), 500, 396, 'TOO_MANY_ROWS_OR_BYTES')
    expectException(await http(`${q('SELECT 1')}&no_such_setting=1`, { headers: svc() }), 404, 115, 'UNKNOWN_SETTING')
  })

  it('uses the database of the parameter or the X-ClickHouse-Database header', async () => {
    expect((await http(`${q('SELECT currentDatabase()')}&database=system`, { headers: analyst() })).text).toBe('system\n')
    expect((await http(q('SELECT count() > 0 FROM tables'), { headers: { ...analyst(), 'x-clickhouse-database': 'system' } })).text).toBe('1\n')
    expectException(await http(`${q('SELECT 1')}&database=nope`, { headers: analyst() }), 404, 81, 'UNKNOWN_DATABASE')
  })

  it('echoes the query id and refuses one already running', async () => {
    const r = await http(`${q('SELECT 1')}&query_id=my-query`, { headers: svc() })
    expect(r.headers['x-clickhouse-query-id']).toBe('my-query')
    const slow = http(`${q('SELECT sleep(2)')}&query_id=busy`, { headers: svc() })
    let slowDone = false
    void slow.then(() => (slowDone = true))
    // The slow query holds its id once the server has read its request, which a loaded machine can delay past
    // any fixed wait: ask again until refused, while it runs.
    let second: Reply
    do second = await http(q('SELECT 2'), { headers: { ...svc(), 'x-clickhouse-query-id': 'busy' } })
    while (second.status === 200 && !slowDone)
    const first = await slow
    // Whichever the server read while the other held the id is refused: the probe, or (if a probe was read first) the slow query.
    if (second.status === 200) expectException(first, 500, 216, 'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING')
    else {
      expectException(second, 500, 216, 'QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING')
      expect(first.status).toBe(200)
    }
    expect((await http(`${q('SELECT 3')}&query_id=busy`, { headers: svc() })).text).toBe('3\n')
  })

  it('authenticates by X-ClickHouse-User/-Key, basic auth and user/password parameters, and refuses as ClickHouse does', async () => {
    expect((await http(q('SELECT currentUser() != \'\''), { headers: { 'x-clickhouse-user': 'analyst', 'x-clickhouse-key': 'analyst-test-password' } })).text).toBe('1\n')
    expect((await http(`${q('SELECT 1')}&user=svc&password=svc-test-password`)).text).toBe('1\n')
    const wrong = await http(q('SELECT 1'), { headers: { 'x-clickhouse-user': 'analyst', 'x-clickhouse-key': 'nope' } })
    expectException(wrong, 403, 516, 'AUTHENTICATION_FAILED')
    expect(wrong.text).toMatch(/^Code: 516\. DB::Exception: analyst: Authentication failed: password is incorrect, or there is no user with such name\./)
    expectException(await http(`${q('SELECT 1')}&user=root&password=x`), 403, 516, 'AUTHENTICATION_FAILED')
    const none = await http(q('SELECT 1'))
    expectException(none, 401, 194, 'REQUIRED_PASSWORD')
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/)
    expectException(await http(`${q('SELECT 1')}&user=svc&password=svc-test-password`, { headers: svc() }), 403, 516, 'AUTHENTICATION_FAILED')
  })

  it('reads a gzip request body and compresses the response when asked (enable_http_compression=1)', async () => {
    const r = await http('/?enable_http_compression=1', { headers: { ...svc(), 'content-encoding': 'gzip', 'accept-encoding': 'gzip' }, body: gzipSync('SELECT count() FROM events') })
    expect(r.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(r.body).toString()).toBe('2\n')
    const plain = await http('/', { headers: { ...svc(), 'accept-encoding': 'gzip' }, body: 'SELECT 1' })
    expect([plain.headers['content-encoding'], plain.text]).toEqual([undefined, '1\n'])
    const streamed = await http(`${q('SELECT number FROM numbers(200000) FORMAT JSONEachRow')}&enable_http_compression=1`, { headers: { ...analyst(), 'accept-encoding': 'gzip' } })
    expect(streamed.status).toBe(500) // over the analyst's 1,000 rows, before any output
    const big = await http(`${q('SELECT number FROM numbers(200000) FORMAT JSONEachRow')}&enable_http_compression=1`, { headers: { ...svc(), 'accept-encoding': 'gzip' } })
    expect(gunzipSync(big.body).toString().split('\n').length).toBe(200001)
    expectException(await http('/', { headers: { ...svc(), 'content-encoding': 'zstd' }, body: 'x' }), 501, 48, 'NOT_IMPLEMENTED')
    expectException(await http('/', { headers: { ...svc(), 'content-encoding': 'gzip' }, body: 'not gzip' }), 500, 271, 'CANNOT_DECOMPRESS')
  })

  it('answers malformed SQL, unknown tables and formats, and a second statement with the server\'s codes and statuses', async () => {
    expectException(await http(q('SELEC 1'), { headers: analyst() }), 400, 62, 'SYNTAX_ERROR')
    expectException(await http(q('SELECT * FROM no_such_table'), { headers: analyst() }), 404, 60, 'UNKNOWN_TABLE')
    expectException(await http(q('SELECT 1 FORMAT NoSuchFormat'), { headers: analyst() }), 404, 73, 'UNKNOWN_FORMAT')
    expectException(await http(`${q('SELECT 1')}&default_format=NoSuchFormat`, { headers: analyst() }), 404, 73, 'UNKNOWN_FORMAT')
    expectException(await http('/', { headers: svc(), body: 'SELECT 1; DROP TABLE events' }), 400, 62, 'SYNTAX_ERROR')
    expectException(await http('/', { headers: svc(), body: "SELECT 1 INTO OUTFILE '/tmp/svc-outfile'" }), 500, 358, 'INTO_OUTFILE_NOT_ALLOWED')
    expectException(await http('/', { headers: svc(), body: "SELECT 'unterminated" }), 400, 62, 'SYNTAX_ERROR')
    expect((await http(q('SELECT count() FROM events'), { headers: svc() })).text).toBe('2\n')
  })

  it("keeps the analyst read-only: INSERT, DROP, settings and table functions are refused with READONLY", async () => {
    expect((await http(q("SELECT getSetting('readonly'), getSetting('max_result_rows')"), { headers: analyst() })).text).toBe('1\t1000\n')
    expectException(await http('/', { headers: analyst(), body: 'INSERT INTO events VALUES (3, \'c\', [])' }), 500, 164, 'READONLY')
    expectException(await http('/', { headers: analyst(), body: 'DROP TABLE events' }), 500, 164, 'READONLY')
    expectException(await http('/', { headers: analyst(), body: 'SELECT 1 SETTINGS readonly = 0' }), 500, 164, 'READONLY')
    expectException(await http(`${q('SELECT 1')}&max_result_rows=0`, { headers: analyst() }), 500, 164, 'READONLY')
    expectException(await http(q("SELECT * FROM file('/etc/hostname', 'LineAsString')"), { headers: analyst() }), 500, 164, 'READONLY')
    expectException(await http(q('SELECT number FROM numbers(5000) FORMAT JSON'), { headers: analyst() }), 500, 396, 'TOO_MANY_ROWS_OR_BYTES')
    expectException(await http(q('SELECT count() FROM numbers(1000000000000)'), { headers: analyst() }), 408, 159, 'TIMEOUT_EXCEEDED')
    // A GET never modifies, even for svc.
    const get = await http(q('DROP TABLE events'), { headers: svc() })
    expectException(get, 500, 164, 'READONLY')
    expect(get.text).toMatch(/method GET implies readonly/)
    expect((await http(q('SELECT count() FROM events'), { headers: svc() })).text).toBe('2\n')
  })

  it('answers a 10 MB query as ClickHouse does (max_query_size), and a body over the limit with 413', async () => {
    const huge = `SELECT '${'x'.repeat(10 * 1024 * 1024)}'`
    for (const headers of [analyst(), svc()]) {
      const r = await http('/', { headers, body: huge })
      expectException(r, 400, 62, 'SYNTAX_ERROR')
      expect(r.text).toMatch(/Max query size exceeded/)
    }
    expectException(await http('/', { headers: svc(), body: Buffer.alloc(21 * 1024 * 1024, 0x20) }), 413, 229, 'QUERY_IS_TOO_LARGE')
    expect((await http(q('SELECT 1'), { headers: analyst() })).text).toBe('1\n')
  })

  it('streams a large result, and a client that goes away stops its query', async () => {
    const r = await http(q('SELECT number FROM numbers(1000000) FORMAT JSONEachRow'), { headers: svc() })
    const lines = r.text.split('\n')
    expect(lines.length).toBe(1_000_001)
    expect(lines[999_999]).toBe('{"number":999999}')
    await new Promise<void>((resolve, reject) => {
      const req = request(`${t.url}${q('SELECT number FROM numbers(10000000000) FORMAT JSONEachRow')}&query_id=abandoned`, { headers: svc() }, (res) => {
        res.once('data', () => {
          req.destroy()
          resolve()
        })
      })
      req.on('error', () => {})
      req.once('error', reject)
      req.end()
    })
    // The id is free again once the server saw the client go: the query is not running on.
    await expect.poll(async () => (await http(`${q('SELECT 1')}&query_id=abandoned`, { headers: svc() })).status, { timeout: 10_000 }).toBe(200)
  })

  it('runs concurrent queries of both users, queueing them behind their limits', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => http(q(`SELECT ${i} + sleep(0.05)`), { headers: i % 2 ? svc() : analyst() })))
    expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 12 }, (_, i) => `${i}\n`))
  })
})
