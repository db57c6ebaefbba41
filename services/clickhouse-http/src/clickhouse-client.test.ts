/**
 * The official Node client, @clickhouse/client, over HTTP to the interface: what
 * the service's own processes use through CLICKHOUSE_URL in the multi-process shape.
 */
import { ClickHouseError, createClient, type ClickHouseClient } from '@clickhouse/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANALYST_PASSWORD, SVC_PASSWORD, startTestInterface, type TestInterface } from './test-support/interface.js'

let t: TestInterface
const clients: ClickHouseClient[] = []
const client = (username: string, password: string, extra: Parameters<typeof createClient>[0] = {}) => {
  const c = createClient({ url: t.url, username, password, ...extra })
  clients.push(c)
  return c
}

async function clickhouseError(p: Promise<unknown>): Promise<{ code: string; type: string | undefined }> {
  try {
    await p
  } catch (err) {
    if (err instanceof ClickHouseError) return { code: err.code, type: err.type }
    throw err
  }
  throw new Error('no error')
}

beforeAll(async () => {
  t = await startTestInterface()
}, 30_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await t?.close()
})

describe('@clickhouse/client over the interface', () => {
  it('pings, creates, inserts as svc (JSONEachRow and positional) and queries with parameters', async () => {
    const svc = client('svc', SVC_PASSWORD)
    expect((await svc.ping()).success).toBe(true)
    await svc.command({ query: 'CREATE TABLE calls (id UInt64, model LowCardinality(String), tokens UInt32, at DateTime64(3)) ENGINE = MergeTree ORDER BY id' })
    const first = await svc.insert({ table: 'calls', values: [{ id: 1, model: 'gpt-4o', tokens: 120, at: '2026-01-01 00:00:00.000' }], format: 'JSONEachRow' })
    expect(first.summary?.written_rows).toBe('1')
    await svc.insert({ table: 'calls', columns: ['id', 'model', 'tokens', 'at'], values: [[2, 'claude', 300, '2026-01-01 00:00:01.000'], [3, 'gpt-4o', 80, '2026-01-01 00:00:02.000']], format: 'JSONCompactEachRow' })
    const analyst = client('analyst', ANALYST_PASSWORD)
    const rs = await analyst.query({
      query: 'SELECT model, sum(tokens) AS tokens FROM calls WHERE id IN {ids:Array(UInt64)} AND model != {skip:String} GROUP BY model ORDER BY model',
      query_params: { ids: [1, 2, 3], skip: "x' OR 1=1 --" },
      format: 'JSONEachRow',
    })
    // 64-bit integers as JSON numbers: ClickHouse's default since 25.8 (output_format_json_quote_64bit_integers=0).
    expect(await rs.json()).toEqual([{ model: 'claude', tokens: 300 }, { model: 'gpt-4o', tokens: 200 }])
  })

  it('streams a 100k-row JSONEachRow result', async () => {
    const rs = await client('analyst', ANALYST_PASSWORD).query({ query: 'SELECT number FROM numbers(100000)', format: 'JSONEachRow' })
    let rows = 0
    let last = -1
    for await (const batch of rs.stream<{ number: string }>()) {
      for (const row of batch) {
        last = Number(row.json().number)
        rows++
      }
    }
    expect([rows, last]).toEqual([100_000, 99_999])
  })

  it('compresses requests and responses when the client asks', async () => {
    const svc = client('svc', SVC_PASSWORD, { compression: { request: true, response: true } })
    await svc.insert({ table: 'calls', values: Array.from({ length: 1000 }, (_, i) => ({ id: 100 + i, model: 'm', tokens: 1, at: '2026-01-02 00:00:00.000' })), format: 'JSONEachRow' })
    const rs = await svc.query({ query: "SELECT count() AS n FROM calls WHERE model = 'm'", format: 'JSON' })
    expect((await rs.json<{ n: number }>()).data).toEqual([{ n: 1000 }])
  })

  it('surfaces failures as ClickHouseError with the server\'s code and type', async () => {
    const analyst = client('analyst', ANALYST_PASSWORD)
    expect(await clickhouseError(analyst.query({ query: 'SELECT * FROM no_such_table' }))).toEqual({ code: '60', type: 'UNKNOWN_TABLE' })
    expect(await clickhouseError(analyst.query({ query: 'SELECT (1' }))).toEqual({ code: '62', type: 'SYNTAX_ERROR' })
    expect(await clickhouseError(analyst.insert({ table: 'calls', values: [{ id: 9 }], format: 'JSONEachRow' }))).toEqual({ code: '164', type: 'READONLY' })
    expect(await clickhouseError(analyst.command({ query: 'DROP TABLE calls' }))).toEqual({ code: '164', type: 'READONLY' })
    expect(await clickhouseError(client('analyst', 'wrong').query({ query: 'SELECT 1' }))).toEqual({ code: '516', type: 'AUTHENTICATION_FAILED' })
  })
})
