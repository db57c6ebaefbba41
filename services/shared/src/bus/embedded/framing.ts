import { crc32 } from 'node:zlib'
import type { ConsumedRecord } from '../types.js'

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

/** frameSize's answer for a frame whose length or CRC is wrong (a whole frame is never 0 bytes). */
export const CORRUPT_FRAME = 0

/**
 * Checks the frame at `pos` without decoding it: its size when it is whole and its
 * CRC matches; minus the bytes it needs when the buffer ends before it does (read
 * more, or a torn tail); CORRUPT_FRAME when it can never be read.
 */
export function frameSize(buf: Buffer, pos: number): number {
  if (buf.length - pos < FRAME_HEADER_BYTES) return -FRAME_HEADER_BYTES
  const bodyLen = buf.readUInt32BE(pos)
  if (bodyLen < BODY_FIXED_BYTES) return CORRUPT_FRAME
  const size = FRAME_HEADER_BYTES + bodyLen
  if (buf.length - pos < size) return -size
  const body = pos + FRAME_HEADER_BYTES
  if (crc32(buf.subarray(body, pos + size)) !== buf.readUInt32BE(pos + 4)) return CORRUPT_FRAME
  if (buf.readInt32BE(body + 16) > bodyLen - BODY_FIXED_BYTES) return CORRUPT_FRAME
  return size
}

/** The offset of the whole frame at `pos` (frameSize said it is one). */
export const frameOffset = (buf: Buffer, pos: number): bigint => buf.readBigUInt64BE(pos + FRAME_HEADER_BYTES)

/** The buffer a read of one partition filled: its records are views of it. */
export interface ReadChunk {
  topic: string
  partition: number
  buf: Buffer
}

/**
 * A record as a consumer receives it, read on access from the frame at `at` in its
 * chunk. A batch of 20,000 records lives until its handler is done, long enough for
 * V8 to promote whatever it holds: this is one small object per record, where decoding
 * every field made eight (three objects, three Buffer views, a BigInt and a string).
 * Getters, so a spread (`{ ...r }`) does not copy them.
 */
export class LoggedRecord implements ConsumedRecord {
  constructor(
    private readonly chunk: ReadChunk,
    private readonly at: number,
  ) {}

  get topic(): string {
    return this.chunk.topic
  }

  get partition(): number {
    return this.chunk.partition
  }

  get offsetBigInt(): bigint {
    return frameOffset(this.chunk.buf, this.at)
  }

  get offset(): string {
    return this.offsetBigInt.toString()
  }

  get timestamp(): number {
    return this.chunk.buf.readDoubleBE(this.at + FRAME_HEADER_BYTES + 8)
  }

  get key(): Buffer | null {
    const keyLen = this.chunk.buf.readInt32BE(this.at + FRAME_HEADER_BYTES + 16)
    const start = this.at + FRAME_HEADER_BYTES + BODY_FIXED_BYTES
    return keyLen < 0 ? null : this.chunk.buf.subarray(start, start + keyLen)
  }

  get value(): Buffer {
    const buf = this.chunk.buf
    const keyLen = buf.readInt32BE(this.at + FRAME_HEADER_BYTES + 16)
    return buf.subarray(this.at + FRAME_HEADER_BYTES + BODY_FIXED_BYTES + Math.max(0, keyLen), this.at + FRAME_HEADER_BYTES + buf.readUInt32BE(this.at))
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
