import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { CORRUPT_FRAME, LoggedRecord, encodeFrame, encodeFrames, frameSize, partitionForKey } from './framing.js'

/** The frame at `pos`: its size, and the record a consumer reads from it. */
const frameAt = (buf: Buffer, pos: number) => {
  const r = new LoggedRecord({ topic: 't', partition: 0, buf }, pos)
  return { size: frameSize(buf, pos), record: { offset: r.offsetBigInt, timestamp: r.timestamp, key: r.key, value: r.value } }
}

describe('embedded log framing', () => {
  it('round-trips offset, time, key and value', () => {
    const f = encodeFrame(42n, 1700000000123, Buffer.from('key'), Buffer.from('value'))
    const d = frameAt(f, 0)
    expect(d.size).toBe(f.length)
    expect(d.record).toEqual({ offset: 42n, timestamp: 1700000000123, key: Buffer.from('key'), value: Buffer.from('value') })
  })

  it('keeps a null key distinct from an empty one', () => {
    const nul = frameAt(encodeFrame(0n, 0, null, Buffer.alloc(0)), 0)
    const empty = frameAt(encodeFrame(0n, 0, Buffer.alloc(0), Buffer.alloc(0)), 0)
    expect(nul.size).toBeGreaterThan(0)
    expect(nul.record.key).toBeNull()
    expect(empty.record.key).toEqual(Buffer.alloc(0))
  })

  it('reports a frame cut short as incomplete and a flipped bit as corrupt', () => {
    const f = encodeFrame(7n, 1, null, Buffer.from('payload'))
    expect(frameSize(f.subarray(0, f.length - 1), 0)).toBe(-f.length)
    expect(frameSize(f.subarray(0, 3), 0)).toBeLessThan(0)
    const bad = Buffer.from(f)
    bad[bad.length - 1]! ^= 1
    expect(frameSize(bad, 0)).toBe(CORRUPT_FRAME)
  })

  it('decodes consecutive frames at their positions', () => {
    const a = encodeFrame(1n, 1, null, Buffer.from('a'))
    const b = encodeFrame(2n, 2, Buffer.from('k'), Buffer.from('bb'))
    const both = Buffer.concat([a, b])
    const second = frameAt(both, a.length)
    expect(second.size).toBe(b.length)
    expect(second.record.value.toString()).toBe('bb')
  })

  it('reads a record from its frame in a chunk on access: offset, time, key and value as a consumer receives them', () => {
    const frames = encodeFrames(9_007_199_254_740_993n, 1700000000123, [
      { key: 'trace-1', value: Buffer.from('first') },
      { key: null, value: Buffer.from('second') },
      { key: Buffer.alloc(0), value: Buffer.alloc(0) },
    ])
    const chunk = { topic: 'spans.raw.v1', partition: 1, buf: frames }
    const records: LoggedRecord[] = []
    for (let pos = 0; pos < frames.length; pos += frameSize(frames, pos)) records.push(new LoggedRecord(chunk, pos))
    expect(records.map((r) => [r.topic, r.partition, r.offset, r.timestamp, r.key?.toString() ?? null, r.value.toString()])).toEqual([
      ['spans.raw.v1', 1, '9007199254740993', 1700000000123, 'trace-1', 'first'],
      ['spans.raw.v1', 1, '9007199254740994', 1700000000123, null, 'second'],
      ['spans.raw.v1', 1, '9007199254740995', 1700000000123, '', ''],
    ])
    expect(records[1]!.offsetBigInt).toBe(9_007_199_254_740_994n)
  })

  it('sizes a whole frame, asks for the bytes a cut one needs, and refuses a corrupt one', () => {
    const f = encodeFrame(7n, 1, Buffer.from('k'), Buffer.from('payload'))
    expect(frameSize(f, 0)).toBe(f.length)
    expect(frameSize(f.subarray(0, f.length - 1), 0)).toBe(-f.length)
    expect(frameSize(f.subarray(0, 3), 0)).toBe(-8)
    const badKey = Buffer.from(f)
    badKey.writeInt32BE(1000, 8 + 16)
    badKey.writeUInt32BE(crc32(badKey.subarray(8)), 4)
    expect(frameSize(badKey, 0)).toBe(CORRUPT_FRAME)
  })

  it('maps a key to a stable partition and spreads keys across partitions', () => {
    expect(partitionForKey('trace-1', 6)).toBe(partitionForKey('trace-1', 6))
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionForKey(`trace-${i}`, 6)))
    expect(used.size).toBe(6)
  })
})

/** The frame format written out field by field (framing.ts's file comment), apart from the encoder under test. */
function referenceFrame(offset: bigint, timestamp: number, key: Buffer | null, value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.alloc(20), key ?? Buffer.alloc(0), value])
  body.writeBigUInt64BE(offset, 0)
  body.writeDoubleBE(timestamp, 8)
  body.writeInt32BE(key ? key.length : -1, 16)
  const head = Buffer.alloc(8)
  head.writeUInt32BE(body.length, 0)
  head.writeUInt32BE(crc32(body), 4)
  return Buffer.concat([head, body])
}

describe('encodeFrames', () => {
  it('writes an append\'s records as the frames of consecutive offsets, a string key as its UTF-8', () => {
    const records = [
      { key: 'wörkspace:trace 漢', value: Buffer.from('one') },
      { key: null, value: Buffer.alloc(0) },
      { key: Buffer.from('k'), value: Buffer.from('three') },
    ]
    const joined = encodeFrames(10n, 1700000000123, records)
    const one = records.map((r, i) => referenceFrame(10n + BigInt(i), 1700000000123, typeof r.key === 'string' ? Buffer.from(r.key) : r.key, r.value))
    expect(joined.equals(Buffer.concat(one))).toBe(true)
    let pos = 0
    for (const [i, r] of records.entries()) {
      const f = frameAt(joined, pos)
      if (f.size <= 0) throw new Error(`frame ${i}: size ${f.size}`)
      expect(f.record.offset).toBe(10n + BigInt(i))
      expect(f.record.key?.toString()).toBe(r.key === null ? undefined : r.key.toString())
      expect(f.record.value.equals(r.value)).toBe(true)
      pos += f.size
    }
  })
})
