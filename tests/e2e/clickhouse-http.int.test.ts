/**
 * ClickHouse's HTTP interface end to end. The issue's "done when": after a start on
 * a fresh data directory, the analyst, with the password the start wrote into
 * init-credentials.json, counts the spans ingest accepted, and is refused INSERT and
 * DROP with ClickHouse's READONLY. Then the service's whole store layer over it:
 * the all-in-one with CLICKHOUSE_URL pointing at a store served by the interface
 * (what `pnpm start:clickhouse` is to the multi-process shape) migrates, assembles
 * and answers the read API through @clickhouse/client over HTTP.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVC_PASSWORD, startTestInterface, type TestInterface } from '@svc/clickhouse-http/test-support/interface'
import { eventually, startTestStack, TEST_KEY } from '../support/stack.js'
import { agentTrace, otlpEnvelope } from '../support/traces.js'

type Stack = Awaited<ReturnType<typeof startTestStack>>
const stacks: Stack[] = []
let store: TestInterface | undefined

afterAll(async () => {
  for (const s of stacks) await s.close()
  await store?.close()
})

/** As curl -u user:password 'http://…/?query=…' would. */
async function curl(url: string, user: string, password: string, query: string, method = 'GET') {
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  const res = method === 'GET' ? await fetch(`${url}/?query=${encodeURIComponent(query)}`, { headers: { authorization: auth } }) : await fetch(`${url}/`, { method, body: query, headers: { authorization: auth } })
  return { status: res.status, text: await res.text() }
}

/** Sends traces to ingest; the spans it accepted (202). */
async function sendTraces(s: Stack, traces: number): Promise<{ accepted: number; traceIds: string[] }> {
  let accepted = 0
  const traceIds: string[] = []
  for (let i = 0; i < traces; i++) {
    const t = agentTrace({ spans: 5 + i })
    const res = await fetch(`${s.ingestUrl}/v1/traces`, { method: 'POST', body: JSON.stringify(otlpEnvelope(t.spans)), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })
    if (res.status === 202) {
      accepted += t.spans.length
      traceIds.push(t.traceId)
    }
  }
  return { accepted, traceIds }
}

describe('ClickHouse HTTP interface, end to end', () => {
  it("answers the analyst (password from init-credentials.json) the number of spans accepted, and refuses its INSERT and DROP", async () => {
    const s = await startTestStack('embedded')
    stacks.push(s)
    expect(s.clickhousePort).not.toBeNull()
    const url = `http://127.0.0.1:${s.clickhousePort}`
    const kept = JSON.parse(readFileSync(join(s.dataDir, 'init-credentials.json'), 'utf8')) as { clickhouse: { svc: string; analyst: string } }
    const password = kept.clickhouse.analyst
    // analytics.spans is the documented view (issue 17, item 2); spans_v1 is what holds the rows until it exists.
    const table = (await curl(url, 'analyst', password, 'EXISTS TABLE analytics.spans')).text === '1\n' ? 'analytics.spans' : 'spans_v1'
    const { accepted } = await sendTraces(s, 6)
    expect(accepted).toBe(5 + 6 + 7 + 8 + 9 + 10)
    const counted = await eventually(async () => {
      const r = await curl(url, 'analyst', password, `SELECT count() FROM ${table}`)
      return r.text === `${accepted}\n` ? r : undefined
    }, 20_000, 100)
    expect(counted.status).toBe(200)
    for (const statement of [`INSERT INTO spans_v1 (span_id) VALUES ('x')`, 'DROP TABLE spans_v1']) {
      const r = await curl(url, 'analyst', password, statement, 'POST')
      expect(r.status).toBe(500)
      expect(r.text).toMatch(/^Code: 164\. DB::Exception: .*\(READONLY\)/)
    }
    expect((await curl(url, 'analyst', 'wrong', 'SELECT 1')).status).toBe(403)
    expect((await curl(url, 'analyst', password, `SELECT count() FROM ${table}`)).text).toBe(`${accepted}\n`)
    // chdb holds one data directory per process: the next test's store is another.
    await stacks.pop()!.close()
  })

  it("runs the service's whole store layer (migrations, the assembler's inserts, the read API's queries) over @clickhouse/client to the interface", async () => {
    store = await startTestInterface()
    const s = await startTestStack('embedded', { CLICKHOUSE_URL: store.url, CLICKHOUSE_USER: 'svc', CLICKHOUSE_PASSWORD: SVC_PASSWORD })
    stacks.push(s)
    expect(s.store.kind).toBe('server')
    expect(s.clickhousePort).toBeNull() // a process with a ClickHouse server serves no interface of its own
    const { accepted, traceIds } = await sendTraces(s, 4)
    const listed = await eventually(async () => {
      const res = await fetch(`${s.apiUrl}/v1/observ/orgs/acme/workspaces/agents/traces?include_empty=true&page_size=100`, { headers: { 'x-svc-api-key': TEST_KEY } })
      const body = (await res.json()) as { data: Array<{ trace_id: string; span_count: number }> }
      const counts = traceIds.map((id) => body.data.find((r) => r.trace_id === id)?.span_count ?? 0)
      return counts.reduce((a, b) => a + b, 0) === accepted ? body.data : undefined
    }, 20_000, 100)
    expect(listed.length).toBe(traceIds.length)
    const migrations = await curl(store.url, 'analyst', 'analyst-test-password', 'SELECT count() > 20 FROM schema_migrations')
    expect(migrations.text).toBe('1\n')
    expect((await curl(store.url, 'analyst', 'analyst-test-password', 'SELECT count() FROM spans_v1')).text).toBe(`${accepted}\n`)
  })
})
