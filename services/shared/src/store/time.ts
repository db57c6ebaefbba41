/**
 * Time conversions between the three forms a timestamp takes here: integer
 * nanoseconds (bigint, or a decimal string as ClickHouse and the bus carry it),
 * ISO 8601 text for API responses and query parameters, and ClickHouse's
 * DateTime64 text. Nanoseconds are never routed through a float, so keyset
 * cursors and span ordering stay exact.
 *
 * API timestamps are ISO 8601 UTC with millisecond precision ('...T..:..:..sssZ'),
 * the form Date.prototype.toISOString gives, so every client parses them.
 * Sub-millisecond detail stays available as durations and in cursors.
 */

const NS_PER_MS = 1_000_000n

/**
 * The instants a stored time can hold: int64 nanoseconds as DateTime64(9) reads
 * them, 1900-01-01T00:00:00Z to 2262-04-11T23:47:16.854775807Z. A time outside
 * would wrap when bound as an Int64 query parameter (2300 reads as 1715).
 */
export const MIN_STORED_NS = -2_208_988_800_000_000_000n
export const MAX_STORED_NS = 2n ** 63n - 1n
export const isStoredNs = (ns: bigint): boolean => ns >= MIN_STORED_NS && ns <= MAX_STORED_NS

/** Nanoseconds since the epoch to ISO 8601 UTC, truncated to the millisecond. */
export function nsToIso(ns: string | bigint): string {
  const n = typeof ns === 'bigint' ? ns : BigInt(ns)
  // Floor division so an instant before 1970 still truncates towards the past.
  let ms = n / NS_PER_MS
  if (n < 0n && ms * NS_PER_MS !== n) ms -= 1n
  return new Date(Number(ms)).toISOString()
}

/** Nanoseconds between two instants as (fractional) milliseconds. */
export function nsDiffToMs(startNs: string | bigint, endNs: string | bigint): number {
  const d = BigInt(endNs) - BigInt(startNs)
  return Number(d) / 1e6
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/

/**
 * Parses an RFC 3339 / ISO 8601 timestamp (with Z or an offset, fractions down to
 * the nanosecond) or a date alone (midnight UTC) to nanoseconds since the epoch.
 * A time without a zone is read as UTC, the API's only zone. Returns null for
 * anything else, including impossible dates such as 2024-02-30.
 */
export function isoToNs(iso: string | null | undefined): bigint | null {
  if (typeof iso !== 'string') return null
  const m = ISO_RE.exec(iso.trim())
  if (!m) return null
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  const ms = Date.UTC(year, month - 1, day, hour, minute, second)
  // Date.UTC silently rolls 2024-02-30 over to March; reject instead.
  const check = new Date(ms)
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null
  let offsetMin = 0
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2))
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0
    if (oh > 23 || om > 59) return null
    offsetMin = sign * (oh * 60 + om)
  }
  const fracNs = BigInt(frac.padEnd(9, '0') || '0')
  return (BigInt(ms) - BigInt(offsetMin) * 60_000n) * NS_PER_MS + fracNs
}

const CH_RE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/

/**
 * ClickHouse DateTime64 text in UTC ('2023-11-14 22:13:20.123456789', the JSON
 * output form) to nanoseconds. The queries here select toUnixTimestamp64Nano(x)
 * as a string instead, which needs no parsing; this is for rows read elsewhere.
 */
export function chDateTimeToNs(text: string): bigint | null {
  const m = CH_RE.exec(text)
  if (!m) return null
  const [, y, mo, d, h, mi, s, frac = ''] = m
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  if (!Number.isFinite(ms)) return null
  return BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, '0'))
}
