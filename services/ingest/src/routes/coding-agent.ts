/**
 * Coding-agent telemetry ingest (spec "Ingest API"): POST
 * /v1/otlp/coding-agent/v1/{traces,metrics,logs,activity}. The rules of trace
 * ingest hold: API key only (401), JSON (protobuf 415 unless the operator turned
 * it on; the activity endpoint's protobuf is an OTLP logs request), 400 for a
 * malformed body, 413 past the size limit, 503 when the in-flight budget is full
 * or the bus does not acknowledge, and a 202 only once every record (and the dead
 * letter of every rejected item) is durable on the bus.
 *
 * - traces: decoded exactly as POST /v1/otlp/traces and written to spans.raw.v1,
 *   so a coding agent's spans are ordinary traces.
 * - metrics: one CodingAgentMetricPoint per data point on coding-agent.metrics.v1.
 * - logs, activity: one CodingAgentEvent per record on coding-agent.events.v1.
 * Metric points and events are keyed workspace:session, so one consumer sees a
 * session's series in order (the cumulative -> delta conversion needs that). The
 * decoders are in decoders/preparers.ts.
 */
import { Hono } from 'hono'
import { apiKeyAuth } from '../middleware/api-key.js'
import { acceptHandler, type IngestRoute, type IngestRouteDeps } from './accept.js'

export const CODING_AGENT_PREFIX = '/v1/otlp/coding-agent/v1'

/** The coding-agent endpoints by name, shared with the gRPC services (metrics and logs). */
export const codingAgentRoute = {
  traces: { preparer: 'traces', source: 'ingest.coding-agent.traces', signal: 'traces' },
  metrics: { preparer: 'metrics', source: 'ingest.coding-agent.metrics', signal: 'metrics' },
  logs: { preparer: 'logs', source: 'ingest.coding-agent.logs', signal: 'logs' },
  activity: { preparer: 'activity', source: 'ingest.coding-agent.activity', signal: 'logs' },
} as const satisfies Record<string, IngestRoute>

export function codingAgentRoutes(deps: IngestRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  for (const [name, route] of Object.entries(codingAgentRoute)) app.post(`${CODING_AGENT_PREFIX}/${name}`, auth, acceptHandler(deps, route))
  return app
}
