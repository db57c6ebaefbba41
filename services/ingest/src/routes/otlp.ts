/**
 * POST /v1/otlp/traces (alias /v1/traces): auth -> admission (in-flight budget) ->
 * body -> decode -> produce. The 202 is sent only after the spans (and the dead
 * letters of rejected spans) are durable on the bus, so an acknowledged span is
 * never lost; when the bus does not acknowledge, the answer is 503 and the
 * exporter retries the same batch (duplicates are possible, losses are not).
 */
import { Hono, type Context } from 'hono'
import { deadLetterV1, spanV1, traceKey, type DeadLetterRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, OutgoingRecord } from '@svc/shared/bus/types'
import type { ControlState } from '@svc/shared/control/state'
import { badRequest, HttpError } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import { readJsonBody } from '../body.js'
import type { IngestMetrics } from '../metrics.js'
import { stripContent } from '@svc/shared/domain/content-capture'
import { apiKeyAuth, apiKeyPrincipal } from '../middleware/api-key.js'
import { unavailable, type InflightBudget } from '../middleware/backpressure.js'
import { decodeTraceRequest, type RejectedSpan } from '../otlp/decode.js'

export interface OtlpRouteDeps {
  bus: Bus
  state: ControlState
  budget: InflightBudget
  metrics: IngestMetrics
  log: Logger
  maxBodyBytes: number
  /** How long to wait for the bus to acknowledge before answering 503. */
  produceTimeoutMs: number
  onKeyUsed?: (keyId: string) => void
}

/** Records per produce call: keeps one Kafka request (and one embedded-log append) bounded. */
export const PRODUCE_CHUNK = 5000
/** Dead-letter payloads are cut here; the reason says what was wrong, the payload is for a human to look at. */
export const DEAD_LETTER_PAYLOAD_MAX_BYTES = 64 * 1024

export function otlpRoutes(deps: OtlpRouteDeps): Hono {
  const app = new Hono()
  const auth = apiKeyAuth(deps.state, deps.onKeyUsed)
  const handler = tracesHandler(deps)
  app.post('/v1/otlp/traces', auth, handler)
  app.post('/v1/traces', auth, handler)
  return app
}

function tracesHandler(deps: OtlpRouteDeps) {
  const { bus, budget, metrics, log } = deps
  return async (c: Context) => {
    metrics.requests++
    const principal = apiKeyPrincipal(c)
    // Charge the wire size before reading so a flood of uploads is refused up front;
    // re-charged with the decompressed size once known.
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
      const decoded = decodeTraceRequest(body.value, { principal, receivedAtMs })
      if (!decoded.ok) throw badRequest(decoded.message)
      // capture_text is read per request, so a change applies to the next batch and never to stored spans.
      if (deps.state.setting<unknown>(principal.workspace_id, 'capture_text', false) !== true)
        for (const s of decoded.spans) metrics.text_attributes_dropped += stripContent(s)

      const spans: OutgoingRecord[] = decoded.spans.map((s) => ({ key: traceKey(s.workspace_id, s.trace_id), value: spanV1.encode(s) }))
      const deadLetters: OutgoingRecord[] = decoded.rejected.map((r) => ({
        key: principal.workspace_id,
        value: deadLetterV1.encode(deadLetter(r, principal, receivedAtMs)),
      }))
      const calls = [...produceChunked(bus, TOPICS.spansRaw, spans), ...produceChunked(bus, TOPICS.spansRawDlq, deadLetters)]
      const produced = Promise.all(calls)
      // The bytes stay charged until every produce call settles, even if we stop waiting for them.
      handedOff = true
      void Promise.allSettled(calls).then(reservation.release)
      try {
        await withTimeout(produced, deps.produceTimeoutMs)
      } catch (err) {
        metrics.produce_failures++
        log.warn({ err, spans: spans.length, dead_letters: deadLetters.length, workspace_id: principal.workspace_id }, 'bus did not acknowledge spans; answering 503')
        throw unavailable('the spans could not be stored; retry')
      }

      metrics.accepted_spans += spans.length
      metrics.rejected_spans += deadLetters.length
      metrics.dead_lettered += deadLetters.length
      if (decoded.rejected.length === 0) return c.json({ accepted_spans: spans.length, rejected_spans: 0 }, 202)
      // partialSuccess is the OTLP ExportTraceServiceResponse field exporters log (int64 -> string in JSON).
      return c.json(
        {
          accepted_spans: spans.length,
          rejected_spans: decoded.rejected.length,
          partialSuccess: { rejectedSpans: String(decoded.rejected.length), errorMessage: summarize(decoded.rejected) },
        },
        202,
      )
    } catch (err) {
      if (err instanceof HttpError && err.status === 400) metrics.malformed_requests++
      throw err
    } finally {
      if (!handedOff) reservation.release()
    }
  }
}

function produceChunked(bus: Bus, topic: string, records: OutgoingRecord[]): Promise<unknown>[] {
  const calls: Promise<unknown>[] = []
  for (let i = 0; i < records.length; i += PRODUCE_CHUNK) calls.push(bus.produce(topic, records.slice(i, i + PRODUCE_CHUNK)))
  return calls
}

function deadLetter(r: RejectedSpan, p: { org_id: string; workspace_id: string }, receivedAtMs: number): DeadLetterRecord {
  return { org_id: p.org_id, workspace_id: p.workspace_id, source: 'ingest.otlp', reason: r.reason, payload: truncateUtf8(JSON.stringify(r.item) ?? 'null', DEAD_LETTER_PAYLOAD_MAX_BYTES), received_at_ms: receivedAtMs }
}

/** Cuts a string to at most `maxBytes` of UTF-8 without leaving half a character. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s
  const buf = Buffer.from(s, 'utf8')
  if (buf.length <= maxBytes) return s
  let end = maxBytes
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end-- // back off to a character boundary
  return buf.subarray(0, end).toString('utf8')
}

function summarize(rejected: RejectedSpan[]): string {
  const reasons = [...new Set(rejected.map((r) => r.reason))]
  const shown = reasons.slice(0, 3).join('; ')
  return reasons.length > 3 ? `${shown}; and ${reasons.length - 3} more reasons` : shown
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bus produce did not settle within ${ms} ms`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
