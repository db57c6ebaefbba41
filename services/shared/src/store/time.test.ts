import { describe, expect, it } from 'vitest'
import { chDateTimeToNs, isoToNs, nsDiffToMs, nsToIso } from './time.js'

describe('nsToIso', () => {
  it('truncates to the millisecond, UTC', () => {
    expect(nsToIso('1700000000123456789')).toBe('2023-11-14T22:13:20.123Z')
    expect(nsToIso(1_700_000_000_999_999_999n)).toBe('2023-11-14T22:13:20.999Z')
    expect(nsToIso(0n)).toBe('1970-01-01T00:00:00.000Z')
  })

  it('floors instants before the epoch', () => {
    expect(nsToIso(-1n)).toBe('1969-12-31T23:59:59.999Z')
  })
})

describe('isoToNs', () => {
  it('parses Z and offsets with fractions down to the nanosecond', () => {
    expect(isoToNs('2023-11-14T22:13:20.123456789Z')).toBe(1_700_000_000_123_456_789n)
    expect(isoToNs('2023-11-14T22:13:20Z')).toBe(1_700_000_000_000_000_000n)
    expect(isoToNs('2023-11-14T22:13:20.5Z')).toBe(1_700_000_000_500_000_000n)
    expect(isoToNs('2023-11-15T00:13:20.123+02:00')).toBe(1_700_000_000_123_000_000n)
    expect(isoToNs('2023-11-14T17:13:20-0500')).toBe(1_700_000_000_000_000_000n)
    expect(isoToNs('2023-11-14 22:13:20z')).toBe(1_700_000_000_000_000_000n)
  })

  it('reads a date alone as midnight UTC and a zoneless time as UTC', () => {
    expect(isoToNs('2023-11-14')).toBe(BigInt(Date.UTC(2023, 10, 14)) * 1_000_000n)
    expect(isoToNs('2023-11-14T22:13:20')).toBe(1_700_000_000_000_000_000n)
    expect(isoToNs('2023-11-14T22:13Z')).toBe(1_699_999_980_000_000_000n)
  })

  it('round-trips with nsToIso at millisecond precision', () => {
    const iso = '2024-02-29T23:59:59.999Z'
    expect(nsToIso(isoToNs(iso)!)).toBe(iso)
  })

  it('returns null for anything else', () => {
    for (const bad of ['', 'yesterday', '2023-13-01', '2024-02-30', '2023-11-14T25:00:00Z', '2023-11-14T22:13:20+25:00', '1700000000', '2023-11-14T22:13:20.1234567891Z', null, undefined])
      expect(isoToNs(bad as string), String(bad)).toBeNull()
  })
})

describe('chDateTimeToNs', () => {
  it('parses ClickHouse DateTime64 text exactly', () => {
    expect(chDateTimeToNs('2023-11-14 22:13:20.123456789')).toBe(1_700_000_000_123_456_789n)
    expect(chDateTimeToNs('2023-11-14 22:13:20.123')).toBe(1_700_000_000_123_000_000n)
    expect(chDateTimeToNs('2023-11-14 22:13:20')).toBe(1_700_000_000_000_000_000n)
    expect(chDateTimeToNs('nope')).toBeNull()
  })
})

describe('nsDiffToMs', () => {
  it('keeps sub-millisecond precision', () => {
    expect(nsDiffToMs('1000000000', '1001500000')).toBe(1.5)
  })
})
