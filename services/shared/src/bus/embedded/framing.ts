import { crc32 } from 'node:zlib'

/**
 * On-disk record frame of the embedded log, one after another in a segment file:
 *
 *   u32 length of the body | u32 crc32 of the body | body
 *   body = u64 offset | f64 append time (ms) | i32 key length (-1: null) | key | value
 *
 * The CRC covers the whole body, so a frame cut short by a crash (or bit rot) is
 * detected at open and the segment is truncated to the last good frame.
 */
export const FRAME_HEADER_BYTES = 8
const BODY_FIXED_BYTES = 8 + 8 + 4

export interface FramedRecord {
  offset: bigint
  timestamp: number
  key: Buffer | null
  value: Buffer
}

export function encodeFrame(offset: bigint, timestamp: number, key: Buffer | null, value: Buffer): Buffer {
  return encodeFrames(offset, timestamp, [{ key, value }])
}

/**
 * Frames for consecutive offsets from `firstOffset`, written into one buffer (one
 * allocation per append, not one per record and another to join them); a string
 * key is written as its UTF-8 without a Buffer of its own.
 */
export function encodeFrames(firstOffset: bigint, timestamp: number, records: ReadonlyArray<{ key: Buffer | string | null; value: Buffer }>): Buffer {
  let total = 0
  const keyLens = new Int32Array(records.length)
  records.forEach((r, i) => {
    const keyLen = r.key === null ? -1 : typeof r.key === 'string' ? Buffer.byteLength(r.key) : r.key.length
    keyLens[i] = keyLen
    total += FRAME_HEADER_BYTES + BODY_FIXED_BYTES + Math.max(0, keyLen) + r.value.length
  })
  const buf = Buffer.allocUnsafe(total)
  let at = 0
  let offset = firstOffset
  records.forEach((r, i) => {
    const keyLen = keyLens[i]!
    const bodyLen = BODY_FIXED_BYTES + Math.max(0, keyLen) + r.value.length
    buf.writeUInt32BE(bodyLen, at)
    const body = at + FRAME_HEADER_BYTES
    buf.writeBigUInt64BE(offset++, body)
    buf.writeDoubleBE(timestamp, body + 8)
    buf.writeInt32BE(keyLen, body + 16)
    let p = body + BODY_FIXED_BYTES
    if (typeof r.key === 'string') p += buf.write(r.key, p, keyLen, 'utf8')
    else if (r.key) p += r.key.copy(buf, p)
    r.value.copy(buf, p)
    buf.writeUInt32BE(crc32(buf.subarray(body, body + bodyLen)), at + 4)
    at = body + bodyLen
  })
  return buf
}

export type FrameResult =
  | { kind: 'record'; record: FramedRecord; size: number }
  /** Not enough bytes in the buffer for a whole frame (read more, or a torn tail). */
  | { kind: 'incomplete'; needed: number }
  | { kind: 'corrupt' }

/**
 * Decodes the frame at `pos`. Key and value are copies, safe to keep after the
 * buffer is reused; `copy` false hands out views instead, for a buffer read for
 * these records alone (it lives as long as they do).
 */
export function decodeFrame(buf: Buffer, pos: number, copy = true): FrameResult {
  if (buf.length - pos < FRAME_HEADER_BYTES) return { kind: 'incomplete', needed: FRAME_HEADER_BYTES }
  const bodyLen = buf.readUInt32BE(pos)
  if (bodyLen < BODY_FIXED_BYTES) return { kind: 'corrupt' }
  const size = FRAME_HEADER_BYTES + bodyLen
  if (buf.length - pos < size) return { kind: 'incomplete', needed: size }
  const body = buf.subarray(pos + FRAME_HEADER_BYTES, pos + size)
  if (crc32(body) !== buf.readUInt32BE(pos + 4)) return { kind: 'corrupt' }
  const keyLen = body.readInt32BE(16)
  if (keyLen > bodyLen - BODY_FIXED_BYTES) return { kind: 'corrupt' }
  const keyEnd = BODY_FIXED_BYTES + Math.max(0, keyLen)
  return {
    kind: 'record',
    size,
    record: {
      offset: body.readBigUInt64BE(0),
      timestamp: body.readDoubleBE(8),
      key: keyLen < 0 ? null : copy ? Buffer.from(body.subarray(BODY_FIXED_BYTES, keyEnd)) : body.subarray(BODY_FIXED_BYTES, keyEnd),
      value: copy ? Buffer.from(body.subarray(keyEnd)) : body.subarray(keyEnd),
    },
  }
}

/** Kafka-compatible in spirit: the same key always maps to the same partition. FNV-1a, cheap and stable. */
export function partitionForKey(key: string, partitions: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0) % partitions
}
