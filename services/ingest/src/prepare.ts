/**
 * The CPU-bound middle of an ingest request: the body's bytes parsed (JSON, or OTLP
 * protobuf), decoded by the route's preparer and encoded as bus records. It takes
 * and returns plain data only, so it runs the same on the request's thread or on an
 * ingest thread (prepare-pool.ts), and it reads no shared state: what a preparer
 * needs of the control plane (capture_text) is worked out before and passed in.
 */
import { badRequest } from '@svc/shared/http/errors'
import { boundedJson, MAX_JSON_DEPTH } from '@svc/shared/json-limits'
import { MalformedRequest } from './otlp/fields.js'
import { decodeProtobufRequest, type OtlpSignal } from './otlp/protobuf.js'
import type { Prepared, Preparer } from './routes/accept.js'
import { prepareActivity, prepareLogs, prepareMetrics } from './routes/coding-agent.js'
import { prepareTraces } from './routes/otlp.js'

/** Every preparer by the name an ingest route gives (IngestRoute.preparer). */
export const PREPARERS = {
  traces: prepareTraces,
  'coding-agent.metrics': prepareMetrics,
  'coding-agent.logs': prepareLogs,
  'coding-agent.activity': prepareActivity,
} as const satisfies Record<string, Preparer>

export type PreparerName = keyof typeof PREPARERS

export interface PrepareJob {
  preparer: PreparerName
  signal: OtlpSignal
  format: 'json' | 'protobuf'
  /** The body, decompressed. */
  bytes: Uint8Array
  tenant: { org_id: string; workspace_id: string; project_id: string }
  receivedAtMs: number
  /** The workspace's capture_text setting when the request arrived. */
  captureText: boolean
}

/** Dead-letter payloads are cut here; the reason says what was wrong, the payload is for a human to look at. */
const DEAD_LETTER_PAYLOAD_MAX_BYTES = 64 * 1024

/** Parses and prepares one request; a body that is not what it claims is a 400 (HttpError). */
export function runPrepare(job: PrepareJob): Prepared {
  const p = PREPARERS[job.preparer](parseBody(job.bytes, job.format, job.signal), job.tenant, job.receivedAtMs, { captureText: job.captureText })
  return { ...p, rejected: p.rejected.map((r) => ({ reason: r.reason, payload: deadLetterPayload(r.item) })) }
}

/** A rejected item as its dead letter keeps it: JSON cut to a depth and a size, never half a character. */
function deadLetterPayload(item: unknown): string {
  return truncateUtf8(boundedJson(item, { maxDepth: MAX_JSON_DEPTH, maxChars: DEAD_LETTER_PAYLOAD_MAX_BYTES }), DEAD_LETTER_PAYLOAD_MAX_BYTES)
}

/** Cuts a string to at most `maxBytes` of UTF-8 without leaving half a character. */
function truncateUtf8(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s
  const buf = Buffer.from(s, 'utf8')
  if (buf.length <= maxBytes) return s
  let end = maxBytes
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end-- // back off to a character boundary
  return buf.subarray(0, end).toString('utf8')
}

/** JSON.parse, or the protobuf decoder into what the JSON decoders read; 400 when the body is neither. */
export function parseBody(bytes: Uint8Array, format: PrepareJob['format'], signal: OtlpSignal): unknown {
  if (format === 'protobuf') {
    try {
      return decodeProtobufRequest(signal, bytes)
    } catch (err) {
      if (err instanceof MalformedRequest) throw badRequest(err.message)
      throw err
    }
  }
  try {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
    // A UTF-8 byte-order mark is legal in a JSON document but JSON.parse rejects it.
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (err) {
    throw badRequest(`body is not valid JSON: ${(err as Error).message}`)
  }
}
