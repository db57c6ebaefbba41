/**
 * Each ingest route's decoder, by name (a route names its decoder, so a decoder
 * thread can run it): a parsed body and its tenant -> the records per topic (keys
 * and Avro values), the rejected items (dead-lettered by the request) and the 202's
 * names. A 400 is thrown as badRequest. With capture_text off the text is removed
 * here, before anything is encoded, so it is stored nowhere.
 */
import { codingAgentEventV1, codingAgentKey, codingAgentMetricV1, spanV1, traceKey } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import { stripContent } from '@svc/shared/domain/content-capture'
import { badRequest } from '@svc/shared/http/errors'
import { decodeTraceRequest } from '../otlp/decode.js'
import { decodeActivityRequest, decodeLogsRequest, stripEventText } from '../otlp/logs.js'
import { decodeMetricsRequest } from '../otlp/metrics.js'
import type { Decoded, Tenant } from './job.js'

type Preparer = (body: unknown, p: Tenant, receivedAtMs: number, opts: { captureText: boolean }) => Decoded

/** The session a record belongs to, for its key: session.id (Claude Code), conversation.id (Codex), else the employee. */
export function sessionOf(attrs: Record<string, string>, fallback: string): string {
  return attrs['session.id'] || attrs['conversation.id'] || attrs['user.email'] || attrs['user.account_uuid'] || attrs['user.account_id'] || fallback
}

const tenant = (p: Tenant) => ({ org_id: p.org_id, workspace_id: p.workspace_id })

/** Spans to spans.raw.v1 (POST /v1/otlp/traces, the coding-agent traces, gRPC traces). */
const traces: Preparer = (body, p, receivedAtMs, opts) => {
  const d = decodeTraceRequest(body, { principal: p, receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  let textDropped = 0
  if (!opts.captureText) for (const s of d.spans) textDropped += stripContent(s)
  const records = d.spans.map((s) => ({ key: traceKey(s.workspace_id, s.trace_id), value: spanV1.encode(s) }))
  return {
    records: [{ topic: TOPICS.spansRaw, records }],
    rejected: d.rejected,
    accepted: records.length,
    noun: 'spans',
    partialField: 'rejectedSpans',
    textDropped,
    spans: { accepted: records.length, rejected: d.rejected.length },
  }
}

const metrics: Preparer = (body, p, receivedAtMs) => {
  const d = decodeMetricsRequest(body, { tenant: tenant(p), receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  const records = d.points.map((pt) => ({ key: codingAgentKey(pt.workspace_id, sessionOf(pt.attributes, pt.metric_name)), value: codingAgentMetricV1.encode(pt) }))
  return { records: [{ topic: TOPICS.codingAgentMetrics, records }], rejected: d.rejected, accepted: records.length, noun: 'data_points', partialField: 'rejectedDataPoints', textDropped: 0 }
}

const events =
  (decode: typeof decodeLogsRequest): Preparer =>
  (body, p, receivedAtMs, opts) => {
    const d = decode(body, { tenant: tenant(p), receivedAtMs })
    if (!d.ok) throw badRequest(d.message)
    // capture_text off: prompt and completion text is stored nowhere (read per request, as for spans).
    let textDropped = 0
    if (!opts.captureText) for (const e of d.events) textDropped += stripEventText(e)
    const records = d.events.map((e) => ({ key: codingAgentKey(e.workspace_id, sessionOf(e.attributes, e.event_name)), value: codingAgentEventV1.encode(e) }))
    return { records: [{ topic: TOPICS.codingAgentEvents, records }], rejected: d.rejected, accepted: records.length, noun: 'log_records', partialField: 'rejectedLogRecords', textDropped }
  }

export const PREPARERS = { traces, metrics, logs: events(decodeLogsRequest), activity: events(decodeActivityRequest) } satisfies Record<string, Preparer>

export type PreparerName = keyof typeof PREPARERS
