/**
 * One ingest request's CPU work, from the body's bytes to the encoded records:
 * parse (JSON or protobuf), decode and validate, strip the text where capture_text
 * is off, Avro-encode. It runs on an ingest decoder thread (thread.ts) or inline
 * (pool.ts, size 0), the same function either way, so what crosses between threads
 * is only plain data: the body in, one buffer of every record's value out (both
 * transferred, not copied), with the keys, the rejected items' dead-letter payloads
 * and the counts.
 */
import type { OutgoingRecord } from '@svc/shared/bus/types'
import { HttpError } from '@svc/shared/http/errors'
import { boundedJson, MAX_JSON_DEPTH } from '@svc/shared/json-limits'
import { parseIngestBody, type BodyFormat } from '../body.js'
import type { RejectedItem } from '../otlp/metrics.js'
import type { OtlpSignal } from '../otlp/protobuf.js'
import { PREPARERS, type PreparerName } from './preparers.js'

export interface Tenant {
  org_id: string
  workspace_id: string
  project_id: string
}

export interface DecodeJob {
  preparer: PreparerName
  signal: OtlpSignal
  format: BodyFormat
  body: Uint8Array
  principal: Tenant
  receivedAtMs: number
  /** The workspace's capture_text, read by the request (the settings live on the main thread). */
  captureText: boolean
}

/** Dead-letter payloads are cut here; the reason says what was wrong, the payload is for a human to look at. */
export const DEAD_LETTER_PAYLOAD_MAX_BYTES = 64 * 1024

/** What a route's decoder makes of one request: the records per topic, what it rejected, and the 202 body's names. */
export interface Decoded {
  records: Array<{ topic: string; records: OutgoingRecord[] }>
  rejected: RejectedItem[]
  accepted: number
  /** Names in the 202 body, e.g. accepted_spans, accepted_data_points. */
  noun: string
  /** The OTLP partialSuccess field counting rejected items (rejectedSpans, rejectedDataPoints, rejectedLogRecords). */
  partialField: string
  /** Text attributes removed because capture_text is off. */
  textDropped: number
  /** Spans accepted and rejected, counted in /metrics once the records are durable (only the span routes count them). */
  spans?: { accepted: number; rejected: number }
}

/** A rejected item as its dead letter carries it: the payload is JSON text, bounded in depth and size. */
export interface RejectedPayload {
  reason: string
  payload: string
}

/** What the request writes: a Decoded whose rejected items are already dead-letter payloads (a rejected item can be any JSON, too deep to send between threads). */
export interface Prepared extends Omit<Decoded, 'rejected'> {
  rejected: RejectedPayload[]
}

/** A Prepared as it crosses threads: each topic's keys and value ends into one shared buffer of values. */
export interface PackedPrepared extends Omit<Prepared, 'records'> {
  topics: Array<{ topic: string; keys: Array<string | null>; ends: Uint32Array }>
  values: ArrayBuffer
}

/** The error of a job, as thrown on the main thread: an HttpError's fields (400 for a bad body), or an unexpected error's message. */
export type JobError = { status: HttpError['status']; code: string; message: string; detail?: unknown } | { status: 500; message: string; unexpected: true }

export type JobAnswer = { ok: true; prepared: PackedPrepared } | { ok: false; error: JobError }

export function runJob(job: DecodeJob): JobAnswer {
  try {
    const body = parseIngestBody(job.format, job.signal, job.body)
    return { ok: true, prepared: pack(PREPARERS[job.preparer](body, job.principal, job.receivedAtMs, { captureText: job.captureText })) }
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, error: { status: err.status, code: err.code, message: err.message, detail: err.detail } }
    return { ok: false, error: { status: 500, message: err instanceof Error ? (err.stack ?? err.message) : String(err), unexpected: true } }
  }
}

/** Copies every value into one buffer of its own (so it can be transferred) and notes where each ends. */
export function pack(p: Decoded): PackedPrepared {
  let total = 0
  for (const t of p.records) for (const r of t.records) total += r.value.byteLength
  const values = new ArrayBuffer(total)
  const into = new Uint8Array(values)
  let at = 0
  const topics = p.records.map(({ topic, records }) => {
    const keys = new Array<string | null>(records.length)
    const ends = new Uint32Array(records.length)
    records.forEach((r, i) => {
      into.set(r.value, at)
      at += r.value.byteLength
      keys[i] = r.key
      ends[i] = at
    })
    return { topic, keys, ends }
  })
  const { records: _records, rejected, ...rest } = p
  return { ...rest, rejected: rejected.map((r) => ({ reason: r.reason, payload: deadLetterPayload(r.item) })), topics, values }
}

/** The records again, each value a view into the one buffer (no copy). */
export function unpack(p: PackedPrepared): Prepared {
  const values = Buffer.from(p.values)
  let at = 0
  const records = p.topics.map(({ topic, keys, ends }) => ({
    topic,
    records: keys.map((key, i) => {
      const value = values.subarray(at, ends[i])
      at = ends[i]!
      return { key, value }
    }),
  }))
  const { topics: _topics, values: _values, ...rest } = p
  return { ...rest, records }
}

/** The job's error as the request throws it: the same HttpError inline or from a thread. */
export function jobError(e: JobError): Error {
  if ('unexpected' in e) return new Error(`ingest decoder failed: ${e.message}`)
  return new HttpError(e.status, e.code, e.message, e.detail)
}

function deadLetterPayload(item: unknown): string {
  return truncateUtf8(boundedJson(item, { maxDepth: MAX_JSON_DEPTH, maxChars: DEAD_LETTER_PAYLOAD_MAX_BYTES }), DEAD_LETTER_PAYLOAD_MAX_BYTES)
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
