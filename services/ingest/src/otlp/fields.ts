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

const ZEROS_RE = /^0+$/
const NANOS_RE = /^\d{1,19}$/
const INT64_MAX = 2n ** 63n - 1n
// Base64 of 16 and 8 bytes, standard or URL-safe alphabet, padded or not: what
// protobuf's JSON mapping (MessageToJson, JsonFormat) writes for `bytes` ids.
const BASE64_16_RE = /^[A-Za-z0-9+/_-]{22}(?:==)?$/
const BASE64_8_RE = /^[A-Za-z0-9+/_-]{11}=?$/

const absent = (v: unknown) => v === undefined || v === null

/**
 * An id of `bytes` bytes as lower-case hex: OTLP/JSON's hex (any case), or the base64
 * that protobuf's own JSON mapping produces. Null when it is neither. The lengths
 * cannot be confused: hex of 16 bytes is 32 characters, base64 of 16 bytes 22 or 24.
 */
export function idHex(v: unknown, bytes: 16 | 8): string | null {
  if (typeof v !== 'string') return null
  if (v.length === bytes * 2) return /^[0-9a-fA-F]+$/.test(v) ? v.toLowerCase() : null
  if (!(bytes === 16 ? BASE64_16_RE : BASE64_8_RE).test(v)) return null
  // Node reads both alphabets; the regex has already refused anything else.
  return Buffer.from(v, 'base64').toString('hex')
}

function requiredId(v: unknown, field: string, bytes: 16 | 8): string {
  if (absent(v) || v === '') throw new SpanRejected(`${field} is missing`)
  const hex = idHex(v, bytes)
  if (hex === null) throw new SpanRejected(`${field} ${preview(v)} is not ${bytes * 2} hex characters (or base64 of ${bytes} bytes)`)
  if (ZEROS_RE.test(hex)) throw new SpanRejected(`${field} is all zeros`)
  return hex
}

export const traceId = (v: unknown, field: string): string => requiredId(v, field, 16)

export const spanId = (v: unknown, field: string): string => requiredId(v, field, 8)

/** Roots: the JS exporter omits the field, Python/Go/Collector send "", a few send zeros. */
export function parentSpanId(v: unknown, field: string): string {
  if (absent(v) || v === '') return ''
  const hex = idHex(v, 8)
  if (hex === null) throw new SpanRejected(`${field} ${preview(v)} is not 16 hex characters (or base64 of 8 bytes)`)
  return ZEROS_RE.test(hex) ? '' : hex
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

/**
 * A repeated OTLP field: absent/null is the empty list (proto3), anything else but a
 * list is malformed. `path` names the field in the error; a function when building it
 * per item would cost more than the check (a metric's data points).
 */
export function listField(v: unknown, path: string | (() => string)): unknown[] {
  if (absent(v)) return []
  if (!Array.isArray(v)) throw new MalformedRequest(`${typeof path === 'string' ? path : path()} is not a list`)
  return v
}
