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
  const keyLen = key ? key.length : 0
  const bodyLen = BODY_FIXED_BYTES + keyLen + value.length
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bodyLen)
  buf.writeUInt32BE(bodyLen, 0)
  let p = FRAME_HEADER_BYTES
  buf.writeBigUInt64BE(offset, p)
  buf.writeDoubleBE(timestamp, p + 8)
  buf.writeInt32BE(key ? key.length : -1, p + 16)
  p += BODY_FIXED_BYTES
  if (key) p += key.copy(buf, p)
  value.copy(buf, p)
  buf.writeUInt32BE(crc32(buf.subarray(FRAME_HEADER_BYTES)), 4)
  return buf
}

export type FrameResult =
  | { kind: 'record'; record: FramedRecord; size: number }
  /** Not enough bytes in the buffer for a whole frame (read more, or a torn tail). */
  | { kind: 'incomplete'; needed: number }
  | { kind: 'corrupt' }

/** Decodes the frame at `pos`. Key and value are copies, safe to keep after the buffer is reused. */
export function decodeFrame(buf: Buffer, pos: number): FrameResult {
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
      key: keyLen < 0 ? null : Buffer.from(body.subarray(BODY_FIXED_BYTES, keyEnd)),
      value: Buffer.from(body.subarray(keyEnd)),
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
