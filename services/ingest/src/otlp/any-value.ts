/**
 * OTLP AnyValue -> the span record's attribute encoding (schemas/span.v1.avsc):
 * a string value is stored verbatim; every other value is stored as JSON text and
 * its key is listed in json_attribute_keys.
 *
 * Values are serialized straight to JSON text rather than to JS values first,
 * because an int64 (`intValue: "9007199254740993"`) must keep its exact digits and
 * a JS number cannot hold them. Decisions (documented for readers of the records):
 * - intValue -> the integer's decimal digits (a JSON number, exact for any int64).
 * - doubleValue -> a JSON number; NaN / Infinity / -Infinity, which JSON cannot
 *   express, become the JSON strings "NaN" / "Infinity" / "-Infinity".
 * - bytesValue -> the base64 text as a JSON string (`"AAEC"`): the bytes are not
 *   UTF-8 in general, and keeping the exporter's base64 is lossless.
 * - an empty AnyValue (`{}`, or a KeyValue without value) -> JSON `null`.
 * - arrayValue / kvlistValue -> JSON arrays / objects of the decoded values.
 */

/** A value inside an attribute that cannot be decoded; the span carrying it is dead-lettered. */
export class InvalidValueError extends Error {}

import { boundedJson, jsonDepthExceeds, MAX_JSON_DEPTH } from '@svc/shared/json-limits'

const INT_RE = /^[+-]?\d+$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const MAX_DEPTH = MAX_JSON_DEPTH

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Short rendering of an offending value for an error message; safe for any size and depth. */
export function preview(v: unknown): string {
  if (v === undefined) return 'undefined'
  const s = boundedJson(v, { maxDepth: MAX_DEPTH, maxChars: 64 })
  return s.length > 64 ? s.slice(0, 61) + '...' : s
}

function intText(v: unknown): string {
  if (typeof v === 'string' && INT_RE.test(v)) {
    const n = BigInt(v)
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString()
  }
  // The JS exporter sends ints as numbers; past 2^53 they already lost precision, accept them as they are.
  if (typeof v === 'number' && Number.isInteger(v)) {
    const n = BigInt(v)
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString()
  }
  throw new InvalidValueError(`intValue ${preview(v)} is not an int64`)
}

function doubleText(v: unknown): string {
  // proto3 JSON allows a double as a string too, including "NaN", "Infinity" and "-Infinity".
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined
  if (n === undefined || (Number.isNaN(n) && v !== 'NaN' && typeof v !== 'number')) throw new InvalidValueError(`doubleValue ${preview(v)} is not a number`)
  return Number.isFinite(n) ? JSON.stringify(n) : JSON.stringify(String(n))
}

function boolText(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (v === 'true' || v === 'false') return v
  throw new InvalidValueError(`boolValue ${preview(v)} is not a boolean`)
}

/** JSON text of one AnyValue (strings as JSON strings). */
export function anyValueJson(v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new InvalidValueError(`value nested deeper than ${MAX_DEPTH} levels`)
  if (v === undefined || v === null) return 'null'
  if (!isObject(v)) throw new InvalidValueError(`value ${preview(v)} is not an AnyValue object`)
  // The first variant present wins; a well-formed AnyValue sets exactly one.
  if (v.stringValue !== undefined && v.stringValue !== null) {
    if (typeof v.stringValue !== 'string') throw new InvalidValueError(`stringValue ${preview(v.stringValue)} is not a string`)
    return JSON.stringify(v.stringValue)
  }
  if (v.intValue !== undefined && v.intValue !== null) return intText(v.intValue)
  if (v.doubleValue !== undefined && v.doubleValue !== null) return doubleText(v.doubleValue)
  if (v.boolValue !== undefined && v.boolValue !== null) return boolText(v.boolValue)
  if (v.arrayValue !== undefined && v.arrayValue !== null) {
    const values = listOf(v.arrayValue, 'arrayValue')
    let out = '['
    for (let i = 0; i < values.length; i++) out += (i ? ',' : '') + anyValueJson(values[i], depth + 1)
    return out + ']'
  }
  if (v.kvlistValue !== undefined && v.kvlistValue !== null) return keyValuesJson(listOf(v.kvlistValue, 'kvlistValue'), depth + 1)
  if (v.bytesValue !== undefined && v.bytesValue !== null) {
    if (typeof v.bytesValue !== 'string') throw new InvalidValueError(`bytesValue ${preview(v.bytesValue)} is not base64 text`)
    return JSON.stringify(v.bytesValue)
  }
  return 'null'
}

/** `{ values: [...] }` of arrayValue / kvlistValue; a missing list is empty (proto3 default). */
function listOf(container: unknown, what: string): unknown[] {
  if (!isObject(container)) throw new InvalidValueError(`${what} is not an object`)
  const values = container.values
  if (values === undefined || values === null) return []
  if (!Array.isArray(values)) throw new InvalidValueError(`${what}.values is not a list`)
  return values
}

function keyOf(kv: unknown): string {
  if (!isObject(kv) || typeof kv.key !== 'string') throw new InvalidValueError(`key-value ${preview(kv)} has no string key`)
  return kv.key
}

/** JSON object text of a KeyValue list (event/link attributes, nested kvlists). */
export function keyValuesJson(list: unknown[], depth = 0): string {
  let out = '{'
  for (let i = 0; i < list.length; i++) {
    const kv = list[i]
    const key = keyOf(kv)
    out += (i ? ',' : '') + JSON.stringify(key) + ':' + anyValueJson((kv as Record<string, unknown>).value, depth)
  }
  return out + '}'
}

/** An attribute map with no prototype, so a key like "__proto__" is just a key. */
export const newAttributeMap = (): Record<string, string> => Object.create(null) as Record<string, string>

/**
 * Decodes an OTLP attribute list into `into` (string values verbatim, the rest as
 * JSON text) and records the keys of JSON-text values, with `jsonKeyPrefix`, in
 * `jsonKeys`. A repeated key keeps its last value (as the OTel SDKs do), so a
 * later string value also drops the key from `jsonKeys`. Throws
 * InvalidValueError naming the attribute at fault.
 */
export function decodeAttributeList(list: unknown[], into: Record<string, string>, jsonKeys: Set<string>, jsonKeyPrefix = ''): void {
  for (const kv of list) {
    const key = keyOf(kv)
    const value = (kv as Record<string, unknown>).value
    if (isObject(value) && typeof value.stringValue === 'string') {
      into[key] = value.stringValue
      if (jsonKeys.size) jsonKeys.delete(jsonKeyPrefix + key)
      continue
    }
    try {
      into[key] = anyValueJson(value)
    } catch (err) {
      if (err instanceof InvalidValueError) throw new InvalidValueError(`attribute ${JSON.stringify(key)}: ${err.message}`)
      throw err
    }
    jsonKeys.add(jsonKeyPrefix + key)
  }
}

/**
 * Flat-form attributes: a plain object of JSON values (already parsed, so ints past
 * 2^53 were rounded by JSON.parse; a client needing exact int64s sends strings).
 * A value nested deeper than AnyValue may be throws InvalidValueError.
 */
export function decodeAttributeObject(obj: Record<string, unknown>, into: Record<string, string>, jsonKeys: Set<string>): void {
  for (const key of Object.keys(obj)) {
    const v = obj[key]
    if (typeof v === 'string') {
      into[key] = v
      continue
    }
    if (jsonDepthExceeds(v, MAX_DEPTH)) throw new InvalidValueError(`attribute ${JSON.stringify(key)}: value nested deeper than ${MAX_DEPTH} levels`)
    into[key] = JSON.stringify(v) ?? 'null'
    jsonKeys.add(key)
  }
}
