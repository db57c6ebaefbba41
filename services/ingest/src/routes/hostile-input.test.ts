/**
 * Hostile input on every ingest route: deep nesting, times outside the stored
 * range. Never a 500: the whole body is a 400, or the offending item is
 * dead-lettered and the rest accepted.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { codingAgentEventV1, deadLetterV1 } from '@svc/shared/bus/records'
import { decodeSpanRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createIngestApp, type IngestApp } from '../app.js'
import { KEY, testControlState } from '../test-support/control.js'
import { RecordingBus } from '../test-support/recording-bus.js'

let bus: RecordingBus
let ingest: IngestApp
beforeEach(() => {
  bus = new RecordingBus()
  ingest = createIngestApp({ bus, control: { state: testControlState() }, config: loadConfig({ SVC_INGEST_MAX_BODY_BYTES: String(4 * 1024 * 1024) }), log: createLogger({ level: 'silent' }) })
})

const headers = { 'content-type': 'application/json', 'x-svc-api-key': KEY }
const post = (path: string, body: string) => ingest.app.request(path, { method: 'POST', body, headers })
const deadLetters = () => bus.records(TOPICS.spansRawDlq).map((r) => deadLetterV1.decode(r.value))
const spansWritten = () => decodeSpanRecords(bus.records(TOPICS.spansRaw).map((r) => r.value))

/** JSON text of `levels` nested arrays: JSON.stringify itself cannot write it. */
const deepArray = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels)
/** An OTLP AnyValue of `levels` nested kvlists. */
const deepKvlist = (levels: number) => '{"kvlistValue":{"values":[{"key":"k","value":'.repeat(levels) + '{"stringValue":"x"}' + '}]}}'.repeat(levels)
const DEEP = 10_000

const flatSpan = (spanId: string, extra = '') =>
  `{"trace_id":"${'a'.repeat(32)}","span_id":"${spanId}","name":"s","start_time_unix_ns":1718000000000000000,"end_time_unix_ns":1718000001000000000${extra}}`
const otlpSpan = (spanId: string, extra = '') =>
  `{"traceId":"${'a'.repeat(32)}","spanId":"${spanId}","name":"s","startTimeUnixNano":"1718000000000000000","endTimeUnixNano":"1718000001000000000"${extra}}`
const otlpBody = (...spans: string[]) => `{"resourceSpans":[{"scopeSpans":[{"spans":[${spans.join(',')}]}]}]}`

async function expectOneDeadLettered(res: Response, reason: RegExp) {
  expect(res.status).toBe(202)
  const body = (await res.json()) as Record<string, unknown>
  expect(body).toMatchObject({ rejected_spans: 1, accepted_spans: 1 })
  const dl = deadLetters()
  expect(dl).toHaveLength(1)
  expect(dl[0]!.reason).toMatch(reason)
  expect(Buffer.byteLength(dl[0]!.payload)).toBeLessThanOrEqual(64 * 1024)
  expect(spansWritten().map((s) => s.span_id)).toEqual(['1'.repeat(16)])
}

describe('deep nesting (10,000 levels)', () => {
  it('flat span: an attribute nested deeper than 32 levels dead-letters that span, the rest is accepted', async () => {
    const res = await post('/v1/otlp/traces', `[${flatSpan('1'.repeat(16))},${flatSpan('2'.repeat(16), `,"attributes":{"deep":${deepArray(DEEP)}}`)}]`)
    await expectOneDeadLettered(res, /attribute "deep".*nested deeper than 32 levels/)
  })

  it('flat span: 32 levels are accepted and kept as JSON text', async () => {
    const res = await post('/v1/otlp/traces', `[${flatSpan('1'.repeat(16), `,"attributes":{"ok":${deepArray(32)}}`)}]`)
    expect(res.status).toBe(202)
    expect(spansWritten()[0]!.attributes.ok).toBe(deepArray(32))
  })

  it('OTLP span: a kvlist nested 10,000 levels dead-letters the span (its payload written down to a depth)', async () => {
    const res = await post('/v1/otlp/traces', otlpBody(otlpSpan('1'.repeat(16)), otlpSpan('2'.repeat(16), `,"attributes":[{"key":"deep","value":${deepKvlist(DEEP)}}]`)))
    await expectOneDeadLettered(res, /nested deeper than 32 levels/)
    expect(deadLetters()[0]!.payload).toContain('[nested too deep]')
  })

  it('OTLP span: an id or time field holding a deep value dead-letters the span', async () => {
    for (const field of ['traceId', 'spanId', 'startTimeUnixNano', 'parentSpanId']) {
      bus = new RecordingBus()
      ingest = createIngestApp({ bus, control: { state: testControlState() }, config: loadConfig({}), log: createLogger({ level: 'silent' }) })
      const bad = otlpSpan('2'.repeat(16)).replace(/^\{/, `{"${field}":${deepArray(DEEP)},`).replace(new RegExp(`,"${field}":"[^"]*"`), '')
      await expectOneDeadLettered(await post('/v1/otlp/traces', otlpBody(otlpSpan('1'.repeat(16)), bad)), new RegExp(field))
    }
  })

  it('a span rejected for another reason, carrying a deep extra field, is dead-lettered', async () => {
    const res = await post('/v1/otlp/traces', `[${flatSpan('1'.repeat(16))},${flatSpan('short', `,"extra":${deepArray(DEEP)}`)}]`)
    await expectOneDeadLettered(res, /span_id "short"/)
  })

  it('a body that is only nesting is a 400', async () => {
    for (const path of ['/v1/otlp/traces', '/v1/otlp/coding-agent/v1/metrics', '/v1/otlp/coding-agent/v1/logs', '/v1/otlp/coding-agent/v1/activity']) {
      const res = await post(path, deepArray(DEEP))
      expect(res.status, path).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'bad_request' })
    }
  })

  it('coding-agent metrics, logs and activity: a deep value rejects that item only', async () => {
    const point = (attrs: string) => `{"asInt":"1","timeUnixNano":"1718000000000000000","attributes":[${attrs}]}`
    const metrics = `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m","sum":{"dataPoints":[${point('')},${point(`{"key":"deep","value":${deepKvlist(DEEP)}}`)}]}}]}]}]}`
    const record = (extra: string) => `{"timeUnixNano":"1718000000000000000","attributes":[{"key":"event.name","value":{"stringValue":"api_request"}}]${extra}}`
    const logs = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${record('')},${record(`,"body":${deepKvlist(DEEP)}`)}]}]}]}`
    const activity = `{"activities":[{"type":"user_prompt","timestamp":"2026-01-31T10:00:00Z"},{"type":"api_request","timestamp":"2026-01-31T10:00:00Z","model":${deepArray(DEEP)}}]}`
    for (const [kind, body] of [['metrics', metrics], ['logs', logs], ['activity', activity]] as const) {
      const res = await post(`/v1/otlp/coding-agent/v1/${kind}`, body)
      expect(res.status, kind).toBe(202)
      expect(JSON.stringify(await res.json()), kind).toMatch(/"rejected_[a-z_]+":1/)
    }
    expect(deadLetters()).toHaveLength(3)
  })
})

describe('memory held by request bodies', () => {
  const CHUNK = 16 * 1024
  const BUDGET = 256 * 1024

  /** A chunked body (no content-length) that stops after `pauseAt` bytes until released, counting what was pulled. */
  function pausingBody(text: string, pauseAt: number) {
    const buf = Buffer.from(text)
    let off = 0
    let pulled = 0
    let onPause!: () => void
    let release!: () => void
    const paused = new Promise<void>((r) => (onPause = r))
    const released = new Promise<void>((r) => (release = r))
    const stream = new ReadableStream<Uint8Array>(
      {
        async pull(ctl) {
          if (off === pauseAt) {
            onPause()
            await released
          }
          if (off >= buf.length) return ctl.close()
          const end = Math.min(off + CHUNK, off < pauseAt ? pauseAt : buf.length)
          ctl.enqueue(buf.subarray(off, end))
          pulled += end - off
          off = end
        },
      },
      { highWaterMark: 0 },
    )
    return { stream, paused, release, pulled: () => pulled }
  }

  it('concurrent chunked bodies beyond the in-flight budget: charged as they arrive, the excess answered 503, nothing accepted lost', async () => {
    ingest = createIngestApp({
      bus,
      control: { state: testControlState() },
      config: loadConfig({ SVC_INGEST_MAX_INFLIGHT_BYTES: String(BUDGET), SVC_INGEST_MAX_BODY_BYTES: String(4 * 1024 * 1024) }),
      log: createLogger({ level: 'silent' }),
    })
    const bodies = Array.from({ length: 6 }, (_, i) => {
      const text = `[${flatSpan(String(i + 1).repeat(16), `,"attributes":{"pad":"${'x'.repeat(150 * 1024)}"}`)}]`
      return pausingBody(text, 6 * CHUNK)
    })
    const settled = new Set<number>()
    const responses = bodies.map((b, i) =>
      Promise.resolve(ingest.app.request('/v1/otlp/traces', { method: 'POST', body: b.stream, duplex: 'half', headers } as RequestInit)).then((res) => (settled.add(i), res)),
    )
    // Every request has either read its first 96 KiB (and waits for the rest) or been answered.
    await Promise.all(bodies.map((b, i) => Promise.race([b.paused, responses[i]])))
    const holding = bodies.filter((_, i) => !settled.has(i))
    expect(ingest.budget.inflightBytes).toBeLessThanOrEqual(BUDGET)
    expect(holding.reduce((sum, b) => sum + b.pulled(), 0)).toBeLessThanOrEqual(BUDGET + holding.length * CHUNK)
    expect(holding.length).toBeGreaterThan(0)
    expect(holding.length).toBeLessThan(bodies.length)

    for (const b of bodies) b.release()
    const results = await Promise.all(responses)
    const accepted = results.flatMap((r, i) => (r.status === 202 ? [String(i + 1).repeat(16)] : []))
    for (const r of results) {
      expect([202, 503]).toContain(r.status)
      if (r.status === 503) expect(r.headers.get('retry-after')).toBe('1')
    }
    // Those still holding then grow past the budget together: at least one completes.
    expect(accepted.length).toBeGreaterThan(0)
    expect(accepted.length).toBeLessThanOrEqual(holding.length)
    expect(spansWritten().map((s) => s.span_id).sort()).toEqual(accepted.sort())
    expect(ingest.budget.inflightBytes).toBe(0)
  })
})

describe('/metrics cardinality', () => {
  it('1,000 requests to random paths add a handful of request-duration series, labelled by route pattern', async () => {
    const random = (i: number) => `${i.toString(36)}-${Math.random().toString(36).slice(2)}`
    for (let i = 0; i < 1000; i++) {
      const path = [`/v1/${random(i)}`, `/v1/workspaces/${random(i)}/sdk-config`, `/v1/otlp/traces/${random(i)}`, `/v1/otlp/coding-agent/v1/${random(i)}`][i % 4]!
      await ingest.app.request(path, { method: i % 3 ? 'GET' : 'POST', headers })
    }
    const text = await (await ingest.app.request('/metrics')).text()
    const series = text.split('\n').filter((l) => l.startsWith('svc_ingest_request_duration_seconds_count{'))
    expect(series.length).toBeLessThanOrEqual(5)
    expect(series).toContain('svc_ingest_request_duration_seconds_count{route="/v1/workspaces/:ws/sdk-config",status="404"} 167')
    expect(series.filter((l) => l.includes('route="unmatched"')).length).toBeGreaterThan(0)
  }, 60_000)
})

describe('times outside the stored range', () => {
  it('activity: a timestamp past 2262 (beyond int64 nanoseconds) or before 1970 dead-letters the record', async () => {
    const act = (ts: string) => `{"type":"user_prompt","timestamp":${ts}}`
    const body = `{"activities":[${act('"2026-01-31T10:00:00Z"')},${act('"9999-12-31T00:00:00Z"')},${act('99999999999999')},${act('"1969-12-31T23:59:59Z"')}]}`
    const res = await post('/v1/otlp/coding-agent/v1/activity', body)
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({ accepted_log_records: 1, rejected_log_records: 3 })
    expect(bus.records(TOPICS.codingAgentEvents).map((r) => codingAgentEventV1.decode(r.value).time_unix_nano)).toEqual([1769853600000000000n])
  })

  it('spans: start or end beyond int64 nanoseconds are dead-lettered, flat and OTLP', async () => {
    const flat = await post('/v1/otlp/traces', `[${flatSpan('1'.repeat(16))},${flatSpan('2'.repeat(16)).replace('1718000001000000000', '10000000000000000000')}]`)
    await expectOneDeadLettered(flat, /end_time_unix_ns/)
    bus = new RecordingBus()
    ingest = createIngestApp({ bus, control: { state: testControlState() }, config: loadConfig({}), log: createLogger({ level: 'silent' }) })
    const otlp = await post('/v1/otlp/traces', otlpBody(otlpSpan('1'.repeat(16)), otlpSpan('2'.repeat(16)).replace('"1718000000000000000"', '"9223372036854775808"')))
    await expectOneDeadLettered(otlp, /startTimeUnixNano/)
  })
})
