/**
 * Coding-agent telemetry ingest (spec "Ingest API"): POST
 * /v1/otlp/coding-agent/v1/{traces,metrics,logs,activity}. The rules of trace
 * ingest hold: API key only (401), JSON only (415 for protobuf), 400 for a
 * malformed body, 413 past the size limit, 503 when the in-flight budget is full
 * or the bus does not acknowledge, and a 202 only once every record (and the dead
 * letter of every rejected item) is durable on the bus.
 *
 * - traces: decoded exactly as POST /v1/otlp/traces and written to spans.raw.v1,
 *   so a coding agent's spans are ordinary traces.
 * - metrics: one CodingAgentMetricPoint per data point on coding-agent.metrics.v1.
 * - logs, activity: one CodingAgentEvent per record on coding-agent.events.v1.
 * Metric points and events are keyed workspace:session, so one consumer sees a
 * session's series in order (the cumulative -> delta conversion needs that).
 */
import { Hono, type Context } from 'hono'
import {
  codingAgentEventV1,
  codingAgentKey,
  codingAgentMetricV1,
  deadLetterV1,
  spanV1,
  traceKey,
  type DeadLetterRecord,
} from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { OutgoingRecord } from '@svc/shared/bus/types'
import { stripContent } from '@svc/shared/domain/content-capture'
import { badRequest, HttpError } from '@svc/shared/http/errors'
import { readJsonBody } from '../body.js'
import { apiKeyAuth, apiKeyPrincipal, type ApiKeyPrincipal } from '../middleware/api-key.js'
import { unavailable } from '../middleware/backpressure.js'
import { decodeTraceRequest } from '../otlp/decode.js'
import { decodeActivityRequest, decodeLogsRequest, stripEventText } from '../otlp/logs.js'
import { decodeMetricsRequest, type RejectedItem } from '../otlp/metrics.js'
import { DEAD_LETTER_PAYLOAD_MAX_BYTES, PRODUCE_CHUNK, truncateUtf8, type OtlpRouteDeps } from './otlp.js'

export const CODING_AGENT_PREFIX = '/v1/otlp/coding-agent/v1'

/** What a route writes: the records per topic, what was rejected, and the 202 body's counts. */
interface Prepared {
  records: Array<{ topic: string; records: OutgoingRecord[] }>
  rejected: RejectedItem[]
  accepted: number
  /** Names in the 202 body, e.g. accepted_data_points. */
  noun: string
  /** OTLP partialSuccess field counting rejected items (rejectedDataPoints, rejectedLogRecords, rejectedSpans). */
  partialField: string
}

/** The session a record belongs to, for its key: session.id (Claude Code), conversation.id (Codex), else the employee. */
export function sessionOf(attrs: Record<string, string>, fallback: string): string {
  return attrs['session.id'] || attrs['conversation.id'] || attrs['user.email'] || attrs['user.account_uuid'] || attrs['user.account_id'] || fallback
}

type Preparer = (body: unknown, p: ApiKeyPrincipal, receivedAtMs: number, deps: OtlpRouteDeps) => Prepared

const tenant = (p: ApiKeyPrincipal) => ({ org_id: p.org_id, workspace_id: p.workspace_id })

const prepareMetrics: Preparer = (body, p, receivedAtMs) => {
  const d = decodeMetricsRequest(body, { tenant: tenant(p), receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  const records = d.points.map((pt) => ({ key: codingAgentKey(pt.workspace_id, sessionOf(pt.attributes, pt.metric_name)), value: codingAgentMetricV1.encode(pt) }))
  return { records: [{ topic: TOPICS.codingAgentMetrics, records }], rejected: d.rejected, accepted: records.length, noun: 'data_points', partialField: 'rejectedDataPoints' }
}

const eventPreparer =
  (decode: typeof decodeLogsRequest): Preparer =>
  (body, p, receivedAtMs, deps) => {
    const d = decode(body, { tenant: tenant(p), receivedAtMs })
    if (!d.ok) throw badRequest(d.message)
    // capture_text off: prompt and completion text is stored nowhere (read per request, as for spans).
    if (deps.state.setting<unknown>(p.workspace_id, 'capture_text', false) !== true) for (const e of d.events) deps.metrics.text_attributes_dropped += stripEventText(e)
    const records = d.events.map((e) => ({ key: codingAgentKey(e.workspace_id, sessionOf(e.attributes, e.event_name)), value: codingAgentEventV1.encode(e) }))
    return { records: [{ topic: TOPICS.codingAgentEvents, records }], rejected: d.rejected, accepted: records.length, noun: 'log_records', partialField: 'rejectedLogRecords' }
  }

const prepareTraces: Preparer = (body, p, receivedAtMs, deps) => {
  const d = decodeTraceRequest(body, { principal: p, receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  if (deps.state.setting<unknown>(p.workspace_id, 'capture_text', false) !== true) for (const s of d.spans) deps.metrics.text_attributes_dropped += stripContent(s)
  const records = d.spans.map((s) => ({ key: traceKey(s.workspace_id, s.trace_id), value: spanV1.encode(s) }))
  return { records: [{ topic: TOPICS.spansRaw, records }], rejected: d.rejected, accepted: records.length, noun: 'spans', partialField: 'rejectedSpans' }
}

export function codingAgentRoutes(deps: OtlpRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  app.post(`${CODING_AGENT_PREFIX}/traces`, auth, handler(deps, prepareTraces, 'ingest.coding-agent.traces'))
  app.post(`${CODING_AGENT_PREFIX}/metrics`, auth, handler(deps, prepareMetrics, 'ingest.coding-agent.metrics'))
  app.post(`${CODING_AGENT_PREFIX}/logs`, auth, handler(deps, eventPreparer(decodeLogsRequest), 'ingest.coding-agent.logs'))
  app.post(`${CODING_AGENT_PREFIX}/activity`, auth, handler(deps, eventPreparer(decodeActivityRequest), 'ingest.coding-agent.activity'))
  return app
}

function handler(deps: OtlpRouteDeps, prepare: Preparer, source: string) {
  const { bus, budget, metrics, log } = deps
  return async (c: Context) => {
    metrics.requests++
    const principal = apiKeyPrincipal(c)
    const declared = Number(c.req.header('content-length'))
    const reservation = budget.reserve(Number.isFinite(declared) && declared > 0 ? Math.min(declared, deps.maxBodyBytes) : 0)
    if (!reservation) {
      metrics.throttled_requests++
      throw unavailable(budget.isClosing ? 'ingest is shutting down; retry' : 'ingest is at capacity; retry shortly')
    }
    let handedOff = false
    try {
      const body = await readJsonBody(c, { maxBytes: deps.maxBodyBytes })
      if (!reservation.resize(body.bytes)) {
        metrics.throttled_requests++
        throw unavailable('ingest is at capacity; retry shortly')
      }
      const receivedAtMs = Date.now()
      const prepared = prepare(body.value, principal, receivedAtMs, deps)
      const deadLetters: OutgoingRecord[] = prepared.rejected.map((r) => ({ key: principal.workspace_id, value: deadLetterV1.encode(deadLetter(r, principal, source, receivedAtMs)) }))
      const calls: Promise<unknown>[] = []
      for (const { topic, records } of [...prepared.records, { topic: TOPICS.spansRawDlq, records: deadLetters }])
        for (let i = 0; i < records.length; i += PRODUCE_CHUNK) calls.push(bus.produce(topic, records.slice(i, i + PRODUCE_CHUNK)))
      handedOff = true
      void Promise.allSettled(calls).then(reservation.release)
      try {
        await withTimeout(Promise.all(calls), deps.produceTimeoutMs)
      } catch (err) {
        metrics.produce_failures++
        log.warn({ err, source, records: prepared.accepted, workspace_id: principal.workspace_id }, 'bus did not acknowledge coding-agent records; answering 503')
        throw unavailable('the records could not be stored; retry')
      }
      metrics.dead_lettered += deadLetters.length
      const out: Record<string, unknown> = { [`accepted_${prepared.noun}`]: prepared.accepted, [`rejected_${prepared.noun}`]: prepared.rejected.length }
      if (prepared.rejected.length) {
        const reasons = [...new Set(prepared.rejected.map((r) => r.reason))]
        out.partialSuccess = { [prepared.partialField]: String(prepared.rejected.length), errorMessage: reasons.slice(0, 3).join('; ') + (reasons.length > 3 ? `; and ${reasons.length - 3} more reasons` : '') }
      }
      return c.json(out, 202)
    } catch (err) {
      if (err instanceof HttpError && err.status === 400) metrics.malformed_requests++
      throw err
    } finally {
      if (!handedOff) reservation.release()
    }
  }
}

function deadLetter(r: RejectedItem, p: { org_id: string; workspace_id: string }, source: string, receivedAtMs: number): DeadLetterRecord {
  return { org_id: p.org_id, workspace_id: p.workspace_id, source, reason: r.reason, payload: truncateUtf8(JSON.stringify(r.item) ?? 'null', DEAD_LETTER_PAYLOAD_MAX_BYTES), received_at_ms: receivedAtMs }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bus produce did not settle within ${ms} ms`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
