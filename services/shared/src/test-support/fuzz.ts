/**
 * A small seeded fuzzer for the HTTP apps' tests: mutations of valid JSON bodies
 * (type swaps, extreme numbers, deep nesting, long and broken strings, missing,
 * extra and duplicate keys, truncation), of binary (protobuf) bodies, of how they are sent (content type,
 * encoding, truncated gzip) and random query strings. Everything is drawn from one
 * seeded generator, so a seed names a sequence of requests: a failure prints it,
 * and FUZZ_SEED=<seed> replays it.
 */
import { deflateSync, gzipSync } from 'node:zlib'

export interface Rng {
  /** [0, 1) */
  next(): number
  int(n: number): number
  pick<T>(items: readonly T[]): T
  chance(p: number): boolean
}

/** mulberry32: tiny, fast and good enough to drive mutations. */
export function rng(seed: number): Rng {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p }
}

/** The seed of a run: FUZZ_SEED when set, else the suite's fixed one (CI stays reproducible). */
export const fuzzSeed = (fallback: number): number => (process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : fallback)

// Placeholders written as strings, replaced in the JSON text by what JSON.stringify cannot write.
const DEEP = '\u0000deep\u0000'
const RAW = '\u0000raw\u0000'

const STRINGS = ['', ' ', 'null', '0', '-1', 'NaN', 'Infinity', '1e400', '9223372036854775808', '\ud800', '\udfff\ud800', 'é"\\\n\t', '💥', '\u202e', '\u0000', '<script>', "'; DROP TABLE spans_v1; --", '{not json}', '__proto__', 'a'.repeat(70_000)]
const NUMBERS = [0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, 2 ** 64, 1e21, 5e-324]
const RAW_NUMBERS = ['9223372036854775808', '-9223372036854775809', '1e400', '-1e400', '123456789012345678901234567890', '0.000000000000000000000000001']
const KEYS = ['__proto__', 'constructor', 'prototype', '', 'x'.repeat(300), 'résumé', 'toString', 'hasOwnProperty']

/** A random JSON value of any type (shallow). */
function randomValue(r: Rng): unknown {
  switch (r.int(9)) {
    case 0: return null
    case 1: return r.chance(0.5)
    case 2: return r.pick(NUMBERS)
    case 3: return r.pick(STRINGS)
    case 4: return []
    case 5: return {}
    case 6: return [r.pick(STRINGS), r.pick(NUMBERS)]
    case 7: return { [r.pick(KEYS)]: r.pick(STRINGS) }
    default: return r.pick([DEEP, RAW])
  }
}

type Container = Record<string, unknown> | unknown[]
const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null

/** Every container of the value with a key in it, for picking a place to mutate. */
function places(root: Container): Array<[Container, string | number]> {
  const out: Array<[Container, string | number]> = []
  const stack: Container[] = [root]
  while (stack.length) {
    const c = stack.pop()!
    for (const k of Array.isArray(c) ? c.keys() : Object.keys(c)) {
      out.push([c, k])
      const v = (c as Record<string | number, unknown>)[k]
      if (isContainer(v)) stack.push(v)
    }
  }
  return out
}

const MUTATIONS = ['swap', 'number', 'string', 'deep', 'delete', 'extra', 'duplicate', 'repeat', 'raw-number'] as const

/** Applies 1-3 structural mutations to a copy of `base`; returns the JSON text and what was done. */
export function mutateJson(base: unknown, r: Rng): { text: string; note: string } {
  const root = { v: structuredClone(base) as unknown }
  const notes: string[] = []
  const duplicates: string[] = []
  for (let n = 1 + r.int(3); n > 0; n--) {
    const all = places(root)
    if (all.length === 0) break
    const [c, k] = r.pick(all)
    const at = c as Record<string | number, unknown>
    const m = r.pick(MUTATIONS)
    notes.push(`${m}@${String(k).slice(0, 20)}`)
    if (m === 'swap') at[k] = randomValue(r)
    else if (m === 'number') at[k] = r.pick(NUMBERS)
    else if (m === 'raw-number') at[k] = RAW
    else if (m === 'string') at[k] = r.pick(STRINGS)
    else if (m === 'deep') at[k] = DEEP
    else if (m === 'delete') {
      if (Array.isArray(c)) c.splice(Number(k), 1)
      else delete at[k]
    }
    else if (m === 'extra') {
      // defineProperty: an own "__proto__" key, as JSON.parse makes it, not a prototype change.
      if (Array.isArray(c)) c.push(randomValue(r))
      else Object.defineProperty(at, r.pick(KEYS), { value: randomValue(r), enumerable: true, writable: true, configurable: true })
    } else if (m === 'repeat' && Array.isArray(at[k])) {
      const list = at[k] as unknown[]
      at[k] = Array.from({ length: 200 }, (_, i) => list[i % Math.max(1, list.length)] ?? null)
    } else if (m === 'duplicate' && !Array.isArray(c)) duplicates.push(String(k))
  }
  let text = JSON.stringify(root.v) ?? 'null'
  const deep = (levels: number) => (r.chance(0.5) ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels))
  text = text.replaceAll(JSON.stringify(DEEP), () => deep(r.pick([33, 100, 5000, 20_000])))
  text = text.replaceAll(JSON.stringify(RAW), () => r.pick(RAW_NUMBERS))
  // Duplicate keys: JSON.parse keeps the last; a second copy with another value follows the first.
  for (const k of duplicates) text = text.replace(`${JSON.stringify(k)}:`, `${JSON.stringify(k)}:${JSON.stringify(randomValue(r)).replaceAll(JSON.stringify(DEEP), '[]').replaceAll(JSON.stringify(RAW), '0')},${JSON.stringify(k)}:`)
  if (r.chance(0.08)) {
    text = text.slice(0, r.int(text.length))
    notes.push('truncated')
  }
  if (r.chance(0.04)) {
    const i = r.int(text.length + 1)
    text = text.slice(0, i) + r.pick(['\u0000', '\ud800', ',', '}', ']]]', 'NaN', '\\u12']) + text.slice(i)
    notes.push('garbled')
  }
  return { text, note: notes.join(' ') }
}

const BYTE_MUTATIONS = ['flip', 'insert', 'delete', 'truncate', 'huge-length', 'splice', 'repeat', 'random'] as const

/**
 * Applies 1-3 byte-level mutations to a copy of a binary body (protobuf): flipped
 * bits, inserted and deleted bytes, truncation, a varint length of 4 GiB put in,
 * a span of the body repeated or spliced elsewhere, random bytes.
 */
export function mutateBytes(base: Uint8Array, r: Rng): { body: Uint8Array; note: string } {
  let b = Buffer.from(base)
  const notes: string[] = []
  for (let n = 1 + r.int(3); n > 0; n--) {
    const m = r.pick(BYTE_MUTATIONS)
    const at = r.int(b.length + 1)
    notes.push(`${m}@${at}`)
    if (m === 'flip' && b.length) b[at % b.length]! ^= 1 << r.int(8)
    else if (m === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([r.int(256)]), b.subarray(at)])
    else if (m === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + r.int(8))])
    else if (m === 'truncate') b = b.subarray(0, at)
    else if (m === 'huge-length') b = Buffer.concat([b.subarray(0, at), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), b.subarray(at)])
    else if (m === 'splice' || m === 'repeat') {
      const piece = b.subarray(r.int(b.length + 1)).subarray(0, 1 + r.int(64))
      const copies = m === 'repeat' ? 1 + r.int(50) : 1
      b = Buffer.concat([b.subarray(0, at), ...Array.from({ length: copies }, () => piece), b.subarray(at)])
    } else if (m === 'random') b = Buffer.from(Array.from({ length: r.int(256) }, () => r.int(256)))
  }
  return { body: b, note: notes.join(' ') }
}

interface Sent {
  body: Uint8Array | string
  headers: Record<string, string>
  note: string
}

/** How a body is sent: mostly as JSON, sometimes with another content type, compressed, or broken compression. */
export function transport(text: string, r: Rng): Sent {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const roll = r.int(20)
  if (roll === 0) return { body: text, headers: { 'content-type': r.pick(['text/plain', 'application/x-protobuf', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', '', 'application/otlp+json']) }, note: 'content-type' }
  if (roll === 1) return { body: gzipSync(text), headers: { ...headers, 'content-encoding': 'gzip' }, note: 'gzip' }
  if (roll === 2) {
    const gz = gzipSync(text)
    return { body: gz.subarray(0, r.int(gz.length)), headers: { ...headers, 'content-encoding': 'gzip' }, note: 'truncated gzip' }
  }
  if (roll === 3) return { body: deflateSync(text), headers: { ...headers, 'content-encoding': r.pick(['deflate', 'gzip']) }, note: 'deflate' }
  if (roll === 4) return { body: text, headers: { ...headers, 'content-encoding': r.pick(['br', 'gzip', 'identity, gzip', 'x-unknown']) }, note: 'encoding' }
  if (roll === 5) return { body: Buffer.from(text, 'latin1'), headers, note: 'latin1' }
  return { body: text, headers, note: 'json' }
}

const QUERY_VALUES = ['', '0', '1', '-1', '50', '500', '501', '1.5', '1e3', '1e400', 'NaN', 'null', 'true', 'false', 'TRUE', 'day', 'week', 'month', 'year', 'p95', 'p99', 'llm', 'A+', 'B-', 'F', '2026-01-01T00:00:00Z', '2300-01-01T00:00:00Z', '1899-12-31', '2262-04-11T23:47:16.854775807Z', '2024-02-30', '9223372036854775807', '99999999999999999999', '%00', '%ZZ', '\ud800', '💥', "'", 'a'.repeat(5000), 'eyJ2IjoxfQ', '../..', '[]', '{}']

/** A query string over `names` (and a stray one now and then): random, boundary and broken values, sometimes repeated. */
export function fuzzQuery(names: readonly string[], r: Rng): string {
  const parts: string[] = []
  for (const name of [...names, 'unknown_param']) {
    if (!r.chance(0.5)) continue
    for (let n = r.chance(0.1) ? 2 : 1; n > 0; n--) {
      const v = r.pick(QUERY_VALUES)
      // '%00', '%ZZ' are sent as written, and a lone surrogate as its (invalid) UTF-8 bytes: the app sees broken escapes too.
      parts.push(`${encodeURIComponent(name)}=${v.startsWith('%') ? v : v === '\ud800' ? '%ED%A0%80' : encodeURIComponent(v)}`)
    }
  }
  return parts.length ? `?${parts.join('&')}` : ''
}
