/**
 * Field-level parsing shared by the OTLP/JSON and flat decoders. Each parser either
 * returns the normalized value or throws SpanRejected with a reason that ends up in
 * the dead letter (and in the 202's partialSuccess.errorMessage).
 */
import { preview } from './any-value.js'

/** A span that fails validation: dead-lettered, the rest of the batch is still accepted. */
export class SpanRejected extends Error {}

/** The request as a whole is malformed: the route answers 400 and nothing is written. */
export class MalformedRequest extends Error {}

/** The one attribute a client may use to route a span: to a project of its own workspace. */
export const PROJECT_ATTRIBUTE = 'svc.project_id'

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const TRACE_ID_RE = /^[0-9a-fA-F]{32}$/
const SPAN_ID_RE = /^[0-9a-fA-F]{16}$/
const ZEROS_RE = /^0+$/
const NANOS_RE = /^\d{1,19}$/
const INT64_MAX = 2n ** 63n - 1n

const absent = (v: unknown) => v === undefined || v === null

export function traceId(v: unknown, field: string): string {
  if (absent(v) || v === '') throw new SpanRejected(`${field} is missing`)
  if (typeof v !== 'string' || !TRACE_ID_RE.test(v)) throw new SpanRejected(`${field} ${preview(v)} is not 32 hex characters`)
  if (ZEROS_RE.test(v)) throw new SpanRejected(`${field} is all zeros`)
  return v.toLowerCase()
}

export function spanId(v: unknown, field: string): string {
  if (absent(v) || v === '') throw new SpanRejected(`${field} is missing`)
  if (typeof v !== 'string' || !SPAN_ID_RE.test(v)) throw new SpanRejected(`${field} ${preview(v)} is not 16 hex characters`)
  if (ZEROS_RE.test(v)) throw new SpanRejected(`${field} is all zeros`)
  return v.toLowerCase()
}

/** Roots: the JS exporter omits the field, Python/Go/Collector send "", a few send zeros. */
export function parentSpanId(v: unknown, field: string): string {
  if (absent(v) || v === '') return ''
  if (typeof v !== 'string' || !SPAN_ID_RE.test(v)) throw new SpanRejected(`${field} ${preview(v)} is not 16 hex characters`)
  return ZEROS_RE.test(v) ? '' : v.toLowerCase()
}

/**
 * Unix nanoseconds as a string of digits (OTLP/JSON's int64 form) or a JSON number
 * (some exporters; past 2^53 it already lost precision, which we accept). 0 is
 * proto3's "unset", so it counts as missing. Must fit the Avro long.
 */
export function parseNanos(v: unknown): bigint | null {
  let n: bigint
  if (typeof v === 'string' && NANOS_RE.test(v)) n = BigInt(v)
  else if (typeof v === 'number' && Number.isInteger(v) && v >= 0) n = BigInt(v)
  else return null
  return fitsNanos(n) ? n : null
}

/** Every stored time is Unix nanoseconds in an int64 (Avro long, DateTime64(9)): 1970 to 2262-04-11. */
export const fitsNanos = (n: bigint): boolean => n > 0n && n <= INT64_MAX

export function requiredNanos(v: unknown, field: string): bigint {
  if (absent(v) || v === '' || v === '0' || v === 0) throw new SpanRejected(`${field} is missing`)
  const n = parseNanos(v)
  if (n === null) throw new SpanRejected(`${field} ${preview(v)} is not a positive integer of nanoseconds`)
  return n
}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const

/** 0-5 or SPAN_KIND_* (or the bare name); anything else is UNSPECIFIED rather than a rejection. */
export function spanKind(v: unknown): string {
  if (typeof v === 'number') return KINDS[v] ?? 'UNSPECIFIED'
  if (typeof v === 'string') {
    const name = v.toUpperCase().replace(/^SPAN_KIND_/, '')
    if ((KINDS as readonly string[]).includes(name)) return name
    if (/^\d$/.test(v)) return KINDS[Number(v)] ?? 'UNSPECIFIED'
  }
  return 'UNSPECIFIED'
}

const STATUS = ['UNSET', 'OK', 'ERROR'] as const

/** 0|1|2, STATUS_CODE_* or the bare name (flat form: "OK"); anything else is UNSET. */
export function statusCode(v: unknown): string {
  if (typeof v === 'number') return STATUS[v] ?? 'UNSET'
  if (typeof v === 'string') {
    const name = v.toUpperCase().replace(/^STATUS_CODE_/, '')
    if ((STATUS as readonly string[]).includes(name)) return name
    if (/^\d$/.test(v)) return STATUS[Number(v)] ?? 'UNSET'
  }
  return 'UNSET'
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** A repeated OTLP field: absent/null is the empty list (proto3), anything else but a list is malformed. */
export function listField(v: unknown, path: string): unknown[] {
  if (absent(v)) return []
  if (!Array.isArray(v)) throw new MalformedRequest(`${path} is not a list`)
  return v
}
