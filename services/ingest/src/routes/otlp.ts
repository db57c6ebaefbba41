/**
 * POST /v1/otlp/traces (alias /v1/traces): OTLP/JSON or the flat span array (and
 * OTLP protobuf where the operator turned it on) to spans.raw.v1, through the shared
 * request life in accept.ts (202 only once durable), decoded by the traces decoder
 * (decoders/preparers.ts).
 */
import { Hono } from 'hono'
import { apiKeyAuth } from '../middleware/api-key.js'
import { acceptHandler, type IngestRouteDeps } from './accept.js'

export function otlpRoutes(deps: IngestRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  const handler = acceptHandler(deps, { preparer: 'traces', source: 'ingest.otlp', signal: 'traces' })
  app.post('/v1/otlp/traces', auth, handler)
  app.post('/v1/traces', auth, handler)
  return app
}
