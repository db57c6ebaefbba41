import { describe, expect, it } from 'vitest'
import { decodeFrame, encodeFrame, partitionForKey } from './framing.js'

describe('embedded log framing', () => {
  it('round-trips offset, time, key and value', () => {
    const f = encodeFrame(42n, 1700000000123, Buffer.from('key'), Buffer.from('value'))
    const d = decodeFrame(f, 0)
    expect(d.kind).toBe('record')
    if (d.kind !== 'record') return
    expect(d.size).toBe(f.length)
    expect(d.record).toEqual({ offset: 42n, timestamp: 1700000000123, key: Buffer.from('key'), value: Buffer.from('value') })
  })

  it('keeps a null key distinct from an empty one', () => {
    const nul = decodeFrame(encodeFrame(0n, 0, null, Buffer.alloc(0)), 0)
    const empty = decodeFrame(encodeFrame(0n, 0, Buffer.alloc(0), Buffer.alloc(0)), 0)
    expect(nul.kind === 'record' && nul.record.key).toBeNull()
    expect(empty.kind === 'record' && empty.record.key).toEqual(Buffer.alloc(0))
  })

  it('reports a frame cut short as incomplete and a flipped bit as corrupt', () => {
    const f = encodeFrame(7n, 1, null, Buffer.from('payload'))
    expect(decodeFrame(f.subarray(0, f.length - 1), 0)).toEqual({ kind: 'incomplete', needed: f.length })
    expect(decodeFrame(f.subarray(0, 3), 0).kind).toBe('incomplete')
    const bad = Buffer.from(f)
    bad[bad.length - 1]! ^= 1
    expect(decodeFrame(bad, 0).kind).toBe('corrupt')
  })

  it('decodes consecutive frames at their positions', () => {
    const a = encodeFrame(1n, 1, null, Buffer.from('a'))
    const b = encodeFrame(2n, 2, Buffer.from('k'), Buffer.from('bb'))
    const both = Buffer.concat([a, b])
    const second = decodeFrame(both, a.length)
    expect(second.kind === 'record' && second.record.value.toString()).toBe('bb')
  })

  it('maps a key to a stable partition and spreads keys across partitions', () => {
    expect(partitionForKey('trace-1', 6)).toBe(partitionForKey('trace-1', 6))
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionForKey(`trace-${i}`, 6)))
    expect(used.size).toBe(6)
  })
})
