/**
 * POST /v1/otlp/traces (alias /v1/traces): OTLP/JSON or the flat span array (and
 * OTLP protobuf where the operator turned it on) to spans.raw.v2 (a record per trace), through the shared request life in accept.ts (202 only once
 * durable). With capture_text off the text is removed here, before anything is
 * written, so it is stored nowhere (read per request, so a change applies to the
 * next batch and never to stored spans).
 */
import { Hono } from 'hono'
import { spanBatchRecords } from '@svc/shared/bus/span-batch'
import { TOPICS } from '@svc/shared/bus/topics'
import { stripContent } from '@svc/shared/domain/content-capture'
import { badRequest } from '@svc/shared/http/errors'
import { apiKeyAuth } from '../middleware/api-key.js'
import { decodeTraceRequest } from '../otlp/decode.js'
import { acceptHandler, type IngestRouteDeps, type Preparer } from './accept.js'

/** Spans to spans.raw.v2; also the coding-agent traces route's decoder. */
export const prepareTraces: Preparer = (body, tenant, receivedAtMs, { captureText }) => {
  const d = decodeTraceRequest(body, { principal: tenant, receivedAtMs })
  if (!d.ok) throw badRequest(d.message)
  let dropped = 0
  if (!captureText) for (const s of d.spans) dropped += stripContent(s)
  return {
    records: [{ topic: TOPICS.spansRaw, records: spanBatchRecords(d.spans) }],
    rejected: d.rejected,
    accepted: d.spans.length,
    noun: 'spans',
    partialField: 'rejectedSpans',
    counts: { accepted_spans: d.spans.length, rejected_spans: d.rejected.length, text_attributes_dropped: dropped },
  }
}

export function otlpRoutes(deps: IngestRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  const handler = acceptHandler(deps, { preparer: 'traces', source: 'ingest.otlp', signal: 'traces' })
  app.post('/v1/otlp/traces', auth, handler)
  app.post('/v1/traces', auth, handler)
  return app
}
