/**
 * The life of an ingest request, shared by every ingest route (traces, and the
 * coding-agent metrics, logs and activity) and every transport (HTTP with JSON or
 * protobuf bodies, gRPC in grpc.ts): admission (admission.ts: the pipeline's lag
 * and the embedded log's disk budget) and the in-flight budget -> body -> parse and
 * the route's preparer (on an ingest thread, prepare-pool.ts) -> produce. The 202
 * is sent only after the records (and the dead letters of rejected items) are
 * durable on the bus, so an acknowledged record is never lost; when the bus does
 * not acknowledge, the answer is 503 and the exporter retries the same batch
 * (duplicates are possible, losses are not).
 */
import type { Context } from 'hono'
import { deadLetterV1, type DeadLetterRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus, OutgoingRecord } from '@svc/shared/bus/types'
import { captureTextOn } from '@svc/shared/control/settings'
import type { ControlState } from '@svc/shared/control/state'
import { HttpError } from '@svc/shared/http/errors'
import type { Logger } from '@svc/shared/log'
import { readIngestBody, type BodyFormat } from '../body.js'
import type { Admission } from '../admission.js'
import type { IngestMetrics } from '../metrics.js'
import { apiKeyPrincipal, type ApiKeyPrincipal } from '../middleware/api-key.js'
import { unavailable, type InflightBudget } from '../middleware/backpressure.js'
import type { RejectedItem } from '../otlp/metrics.js'
import { encodeExportResponse, type OtlpSignal } from '../otlp/protobuf.js'
import type { PrepareJob, PreparerName } from '../prepare.js'
import type { PreparePool } from '../prepare-pool.js'

export interface IngestRouteDeps {
  bus: Bus
  state: ControlState
  budget: InflightBudget
  metrics: IngestMetrics
  log: Logger
  maxBodyBytes: number
  /** How long to wait for the bus to acknowledge before answering 503. */
  produceTimeoutMs: number
  /** OTLP protobuf bodies accepted too (SVC_INGEST_PROTOBUF); off, they get 415. */
  protobuf?: boolean
  /** Where bodies are parsed and prepared: an ingest thread, or this one (prepare-pool.ts). */
  prepare: PreparePool
  /** Refuses every request while the pipeline is too far behind or the embedded log is full (admission.ts); none: admit all. */
  admission?: Pick<Admission, 'check'>
  onKeyUsed?: (keyId: string) => void
}

/** Records per produce call: keeps one Kafka request (and one embedded-log append) bounded. */
export const PRODUCE_CHUNK = 5000
/** What a route writes for one request: the records per topic, what it rejected, and the 202 body's names. */
export interface Prepared {
  records: Array<{ topic: string; records: OutgoingRecord[] }>
  /** Each rejected item's reason and its dead letter's payload (prepare.ts writes it, so deep values never cross threads). */
  rejected: Array<{ reason: string; payload: string }>
  accepted: number
  /** Names in the 202 body, e.g. accepted_spans, accepted_data_points. */
  noun: string
  /** The OTLP partialSuccess field counting rejected items (rejectedSpans, rejectedDataPoints, rejectedLogRecords). */
  partialField: string
  /** Counts added to /metrics once the records are durable. */
  counts?: Partial<Record<PreparedCount, number>>
}

export type PreparedCount = 'accepted_spans' | 'rejected_spans' | 'text_attributes_dropped'

/**
 * Decodes a parsed request body into records (a 400 is thrown as badRequest). Runs
 * on an ingest thread (prepare.ts): plain data in and out, no shared state.
 */
export type Preparer = (body: unknown, tenant: PrepareJob['tenant'], receivedAtMs: number, opts: { captureText: boolean }) => Omit<Prepared, 'rejected'> & { rejected: RejectedItem[] }

/** One ingest endpoint, whatever the transport: an HTTP path, or a gRPC service's Export. */
export interface IngestRoute {
  preparer: PreparerName
  /** Names the route in dead letters (ingest.otlp, ingest.coding-agent.metrics, ingest.grpc.traces, ...). */
  source: string
  /** The OTLP message its protobuf bodies and gRPC calls carry. */
  signal: OtlpSignal
}

/** One request as its transport hands it over. */
export interface IngestCall {
  principal: ApiKeyPrincipal
  /** Bytes announced before the body is read (content-length); 0 when nothing was announced. */
  declaredBytes: number
  /** Reads the body under the size limit, calling `charge` each time the bytes held grow (it throws the 503); `charged` is what it holds the budget at. */
  read(charge: (heldBytes: number) => void): Promise<{ bytes: Buffer; format: BodyFormat; charged: number }>
}

/** What the exporter is told once everything is durable. */
export interface IngestOutcome {
  noun: string
  accepted: number
  /** The rejected items as OTLP's partialSuccess counts them (the field, e.g. rejectedSpans; sent only when some were). */
  partial: { field: string; rejected: number; errorMessage: string }
}

/**
 * The request life (see the file comment), shared by HTTP JSON, HTTP protobuf and
 * gRPC: resolves once the records and dead letters are durable; throws an
 * HttpError (400, 413, 415, 503) that each transport renders its own way.
 */
export async function ingestRequest(deps: IngestRouteDeps, route: IngestRoute, call: IngestCall): Promise<IngestOutcome> {
  const { bus, budget, metrics, log } = deps
  metrics.requests++
  const principal = call.principal
  deps.admission?.check(route.signal, principal.workspace_id)
  // Charge the announced wire size before reading so a flood of uploads is refused up
  // front; then the bytes held as they arrive (a chunked body announces nothing, and
  // gzip output outgrows its wire size), and the decompressed size once read.
  const upFront = Math.min(call.declaredBytes, deps.maxBodyBytes)
  const reservation = budget.reserve(upFront)
  if (!reservation) {
    metrics.throttled_requests++
    throw unavailable(budget.isClosing ? 'ingest is shutting down; retry' : 'ingest is at capacity; retry shortly')
  }
  const charge = (bytes: number) => {
    if (reservation.resize(bytes)) return
    // Released at once, not when the error has unwound: requests growing side by side
    // would otherwise all be refused in the same round.
    reservation.release()
    metrics.throttled_requests++
    throw unavailable('ingest is at capacity; retry shortly')
  }
  let handedOff = false
  try {
    const body = await call.read((held) => charge(Math.max(held, upFront)))
    charge(body.charged)
    const receivedAtMs = Date.now()
    const tenant = { org_id: principal.org_id, workspace_id: principal.workspace_id, project_id: principal.project_id }
    // capture_text is read per request, so a change applies to the next batch and never to stored spans.
    const captureText = captureTextOn(deps.state, principal.workspace_id)
    const prepared = await deps.prepare.run({ preparer: route.preparer, signal: route.signal, format: body.format, bytes: body.bytes, tenant, receivedAtMs, captureText })
    const deadLetters: OutgoingRecord[] = prepared.rejected.map((r) => ({ key: principal.workspace_id, value: deadLetterV1.encode(deadLetter(r, principal, route.source, receivedAtMs)) }))
    const calls: Promise<unknown>[] = []
    for (const { topic, records } of [...prepared.records, { topic: TOPICS.spansRawDlq, records: deadLetters }])
      for (let i = 0; i < records.length; i += PRODUCE_CHUNK) calls.push(bus.produce(topic, records.slice(i, i + PRODUCE_CHUNK)))
    // The bytes stay charged until every produce call settles, even if we stop waiting for them.
    handedOff = true
    void Promise.allSettled(calls).then(reservation.release)
    try {
      await withTimeout(Promise.all(calls), deps.produceTimeoutMs)
    } catch (err) {
      metrics.produce_failures++
      log.warn({ err, source: route.source, records: prepared.accepted, dead_letters: deadLetters.length, workspace_id: principal.workspace_id }, 'bus did not acknowledge the records; answering 503')
      throw unavailable('the records could not be stored; retry')
    }
    metrics.dead_lettered += deadLetters.length
    for (const [name, n] of Object.entries(prepared.counts ?? {})) metrics[name as PreparedCount] += n
    const rejected = prepared.rejected.length
    return { noun: prepared.noun, accepted: prepared.accepted, partial: { field: prepared.partialField, rejected, errorMessage: rejected ? summarize(prepared.rejected) : '' } }
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) metrics.malformed_requests++
    throw err
  } finally {
    if (!handedOff) reservation.release()
  }
}

/** The HTTP handler of a route: JSON in, JSON out; protobuf in, protobuf out (where the operator turned it on). */
export function acceptHandler(deps: IngestRouteDeps, route: IngestRoute) {
  return async (c: Context) => {
    const declared = Number(c.req.header('content-length'))
    let format = 'json' as BodyFormat
    const outcome = await ingestRequest(deps, route, {
      principal: apiKeyPrincipal(c),
      declaredBytes: Number.isFinite(declared) && declared > 0 ? declared : 0,
      read: async (charge) => {
        const body = await readIngestBody(c, { maxBytes: deps.maxBodyBytes, charge, protobuf: deps.protobuf === true })
        format = body.format
        return body
      },
    })
    if (format === 'protobuf') return c.body(new Uint8Array(encodeExportResponse(route.signal, outcome.partial)), 202, { 'content-type': 'application/x-protobuf' })
    const { field, rejected, errorMessage } = outcome.partial
    const out: Record<string, unknown> = { [`accepted_${outcome.noun}`]: outcome.accepted, [`rejected_${outcome.noun}`]: rejected }
    // partialSuccess is the OTLP Export*ServiceResponse field exporters log (int64 -> string in JSON).
    if (rejected) out.partialSuccess = { [field]: String(rejected), errorMessage }
    return c.json(out, 202)
  }
}

function deadLetter(r: Prepared['rejected'][number], p: { org_id: string; workspace_id: string }, source: string, receivedAtMs: number): DeadLetterRecord {
  return { org_id: p.org_id, workspace_id: p.workspace_id, source, reason: r.reason, payload: r.payload, received_at_ms: receivedAtMs }
}

function summarize(rejected: Prepared['rejected']): string {
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
