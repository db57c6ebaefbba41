/**
 * Coding-agent telemetry ingest (spec "Ingest API"): POST
 * /v1/otlp/coding-agent/v1/{traces,metrics,logs,activity}. The rules of trace
 * ingest hold: API key only (401), JSON (protobuf 415 unless the operator turned
 * it on; the activity endpoint's protobuf is an OTLP logs request), 400 for a
 * malformed body, 413 past the size limit, 503 when the in-flight budget is full
 * or the bus does not acknowledge, and a 202 only once every record (and the dead
 * letter of every rejected item) is durable on the bus.
 *
 * - traces: decoded exactly as POST /v1/otlp/traces and written to spans.raw.v2,
 *   so a coding agent's spans are ordinary traces.
 * - metrics: one CodingAgentMetricPoint per data point on coding-agent.metrics.v1.
 * - logs, activity: one CodingAgentEvent per record on coding-agent.events.v1.
 * Metric points and events are keyed workspace:session, so one consumer sees a
 * session's series in order (the cumulative -> delta conversion needs that).
 */
import { Hono } from 'hono'
import { codingAgentEventV1, codingAgentKey, codingAgentMetricV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import { badRequest } from '@svc/shared/http/errors'
import { apiKeyAuth } from '../middleware/api-key.js'
import { decodeActivityRequest, decodeLogsRequest, stripEventText } from '../otlp/logs.js'
import { decodeMetricsRequest } from '../otlp/metrics.js'
import { acceptHandler, type IngestRoute, type IngestRouteDeps, type Preparer } from './accept.js'

export const CODING_AGENT_PREFIX = '/v1/otlp/coding-agent/v1'

/** The session a record belongs to, for its key: session.id (Claude Code), conversation.id (Codex), else the employee. */
export function sessionOf(attrs: Record<string, string>, fallback: string): string {
  return attrs['session.id'] || attrs['conversation.id'] || attrs['user.email'] || attrs['user.account_uuid'] || attrs['user.account_id'] || fallback
}

const tenantOf = (t: { org_id: string; workspace_id: string }) => ({ org_id: t.org_id, workspace_id: t.workspace_id })

export const prepareMetrics: Preparer = (body, tenant, receivedAtMs) => {
  const d = decodeMetricsRequest(body, { tenant: tenantOf(tenant), receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  const records = d.points.map((pt) => ({ key: codingAgentKey(pt.workspace_id, sessionOf(pt.attributes, pt.metric_name)), value: codingAgentMetricV1.encode(pt) }))
  return { records: [{ topic: TOPICS.codingAgentMetrics, records }], rejected: d.rejected, accepted: records.length, noun: 'data_points', partialField: 'rejectedDataPoints' }
}

const eventPreparer =
  (decode: typeof decodeLogsRequest): Preparer =>
  (body, tenant, receivedAtMs, { captureText }) => {
    const d = decode(body, { tenant: tenantOf(tenant), receivedAtMs })
    if (!d.ok) throw badRequest(d.message)
    // capture_text off: prompt and completion text is stored nowhere (read per request, as for spans).
    let dropped = 0
    if (!captureText) for (const e of d.events) dropped += stripEventText(e)
    const records = d.events.map((e) => ({ key: codingAgentKey(e.workspace_id, sessionOf(e.attributes, e.event_name)), value: codingAgentEventV1.encode(e) }))
    return { records: [{ topic: TOPICS.codingAgentEvents, records }], rejected: d.rejected, accepted: records.length, noun: 'log_records', partialField: 'rejectedLogRecords', counts: { text_attributes_dropped: dropped } }
  }
export const prepareLogs = eventPreparer(decodeLogsRequest)
export const prepareActivity = eventPreparer(decodeActivityRequest)

/** The coding-agent endpoints by name, shared with the gRPC services (metrics and logs). */
export const codingAgentRoute = {
  traces: { preparer: 'traces', source: 'ingest.coding-agent.traces', signal: 'traces' },
  metrics: { preparer: 'coding-agent.metrics', source: 'ingest.coding-agent.metrics', signal: 'metrics' },
  logs: { preparer: 'coding-agent.logs', source: 'ingest.coding-agent.logs', signal: 'logs' },
  activity: { preparer: 'coding-agent.activity', source: 'ingest.coding-agent.activity', signal: 'logs' },
} as const satisfies Record<string, IngestRoute>

export function codingAgentRoutes(deps: IngestRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  for (const [name, route] of Object.entries(codingAgentRoute)) app.post(`${CODING_AGENT_PREFIX}/${name}`, auth, acceptHandler(deps, route))
  return app
}
