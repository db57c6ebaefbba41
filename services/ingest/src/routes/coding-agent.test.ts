/** POST /v1/otlp/coding-agent/v1/{traces,metrics,logs,activity}: the trace ingest rules, on the coding-agent topics. */
import { readFileSync } from 'node:fs'
import { beforeEach, describe, expect, it } from 'vitest'
import { codingAgentEventV1, codingAgentMetricV1, deadLetterV1 } from '@svc/shared/bus/records'
import { decodeSpanRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createIngestApp, type IngestApp } from '../app.js'
import { KEY, ORG, REVOKED_KEY, testControlState, WS } from '../test-support/control.js'
import { jsExporterPayload } from '../test-support/payloads.js'
import { RecordingBus } from '../test-support/recording-bus.js'

const fixture = (f: string) => JSON.parse(readFileSync(new URL(`../../../../tests/fixtures/coding-agent/${f}`, import.meta.url), 'utf8'))
let bus: RecordingBus
let ingest: IngestApp
beforeEach(() => {
  bus = new RecordingBus()
  ingest = createIngestApp({ bus, control: { state: testControlState() }, config: loadConfig({ SVC_INGEST_MAX_BODY_BYTES: String(64 * 1024) }), log: createLogger({ level: 'silent' }) })
})

const json = { 'content-type': 'application/json' }
const auth = { 'x-svc-api-key': KEY }
const post = (kind: string, body: unknown, headers: Record<string, string> = { ...json, ...auth }) =>
  ingest.app.request(`/v1/otlp/coding-agent/v1/${kind}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers })
const KINDS = ['traces', 'metrics', 'logs', 'activity'] as const
const bodies: Record<(typeof KINDS)[number], unknown> = {
  traces: jsExporterPayload(),
  metrics: fixture('claude-code-metrics.json'),
  logs: fixture('claude-code-logs.json'),
  activity: fixture('activity.json'),
}

describe('auth and content rules, every endpoint', () => {
  it('401 without a key, with an invalid or revoked key, or a JWT; nothing produced', async () => {
    for (const kind of KINDS)
      for (const headers of [json, { ...json, 'x-svc-api-key': 'dr_' + 'x'.repeat(40) }, { ...json, 'x-svc-api-key': REVOKED_KEY }, { ...json, authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln' }]) {
        const res = await post(kind, bodies[kind], headers)
        expect(res.status, kind).toBe(401)
        expect(await res.json()).toMatchObject({ error: 'unauthorized' })
      }
    expect(bus.calls).toEqual([])
  })

  it('415 for protobuf, 400 for invalid JSON or a malformed body, 202 with a bearer dr_ key', async () => {
    for (const kind of KINDS) {
      expect((await post(kind, 'x', { 'content-type': 'application/x-protobuf', ...auth })).status, kind).toBe(415)
      expect((await post(kind, '{nope', { ...json, ...auth })).status, kind).toBe(400)
      expect((await post(kind, { resourceSpans: 1, resourceMetrics: 1, resourceLogs: 1, activities: 1 })).status, kind).toBe(400)
      expect((await post(kind, bodies[kind], { ...json, authorization: `Bearer ${KEY}` })).status, kind).toBe(202)
    }
  })

  it('503 when the bus does not acknowledge: never a 202 before the records are durable', async () => {
    bus.failProduce(new Error('broker unreachable'))
    for (const kind of KINDS) expect((await post(kind, bodies[kind])).status, kind).toBe(503)
  })
})

describe('what each endpoint writes', () => {
  it('metrics: one point per data point on coding-agent.metrics.v1, keyed workspace:session, tenant from the key', async () => {
    const res = await post('metrics', bodies.metrics)
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ accepted_data_points: 3, rejected_data_points: 0 })
    const recs = bus.records(TOPICS.codingAgentMetrics)
    expect(recs.map((r) => r.key)).toEqual([`${WS.id}:4f7d…`, `${WS.id}:dev@acme.com`, `${WS.id}:example.queue.depth`])
    expect(codingAgentMetricV1.decode(recs[0]!.value)).toMatchObject({ org_id: ORG.id, workspace_id: WS.id, metric_name: 'claude_code.token.usage', value: 1523, temporality: 'delta' })
  })

  it('logs and activity: one event per record on coding-agent.events.v1', async () => {
    expect(await (await post('logs', bodies.logs)).json()).toEqual({ accepted_log_records: 2, rejected_log_records: 0 })
    expect(await (await post('activity', bodies.activity)).json()).toEqual({ accepted_log_records: 4, rejected_log_records: 0 })
    const events = bus.records(TOPICS.codingAgentEvents).map((r) => codingAgentEventV1.decode(r.value))
    expect(events.map((e) => e.event_name)).toEqual(['api_request', 'tool_result', 'activity.api_request', 'activity.commit', 'activity.file_edit', 'activity.pull_request'])
    expect(events.every((e) => e.workspace_id === WS.id && e.org_id === ORG.id)).toBe(true)
  })

  it('traces: ordinary spans on spans.raw.v2', async () => {
    expect(await (await post('traces', bodies.traces)).json()).toEqual({ accepted_spans: 2, rejected_spans: 0 })
    expect(decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value)).map((s) => s.workspace_id)).toEqual([WS.id, WS.id])
  })

  it('bad items are dead-lettered, the rest accepted, partialSuccess says why', async () => {
    const res = await post('activity', { activities: [{ type: 'commit', timestamp: 1, commit_sha: 'zz' }, { type: 'user_prompt', timestamp: 1 }] })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual({ accepted_log_records: 1, rejected_log_records: 1, partialSuccess: { rejectedLogRecords: '1', errorMessage: 'commit_sha "zz" is not a hex commit id' } })
    const dl = bus.records(TOPICS.spansRawDlq).map((r) => deadLetterV1.decode(r.value))
    expect(dl).toMatchObject([{ workspace_id: WS.id, source: 'ingest.coding-agent.activity', reason: 'commit_sha "zz" is not a hex commit id' }])
    const m = await post('metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'x', sum: { dataPoints: [{ timeUnixNano: '1', asInt: 'a' }] } }] }] }] })
    expect(await m.json()).toMatchObject({ accepted_data_points: 0, rejected_data_points: 1, partialSuccess: { rejectedDataPoints: '1' } })
  })
})
