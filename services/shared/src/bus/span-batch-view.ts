/**
 * A spans.raw.v2 record (span-batch.v2.avsc) read in place: the fields the batch
 * holds once, each span's id, its times as exact 64-bit halves, and where each of
 * its other fields starts in the record's bytes, without making a string of them.
 *
 * The assembler copies those fields from here into spans_v1's RowBinary rows
 * (assembler/src/span-rows.ts): Avro and RowBinary write a string the same way but
 * for the length prefix, so an attribute map goes from the bus to ClickHouse without
 * becoming ~40 JavaScript strings per span and back (decoding those strings, and
 * collecting them, was the largest part of the span consumer's time).
 *
 * Reading checks the record's framing as avsc's decode does (every length inside
 * the record, nothing left over), so a record this refuses is the runner's to
 * dead-letter as undecodable, as before. The layout is span-batch.v2.avsc's, field
 * by field: a field added to the schema must be added here (span-batch-view.test.ts
 * reads records both ways, span-rows.test.ts 2,000 random spans through it).
 */
import { spanBatchV2, type SpanBatchRecord } from './span-batch.js'

/**
 * Slots per span in SpanBatchView.at: positions in the record's bytes (of a string's
 * or collection's length prefix), numbered in the schema's order, so a run of
 * consecutive fields is a run of slots.
 */
export const SpanField = {
  SpanId: 0,
  ParentSpanId: 1,
  Name: 2,
  Kind: 3,
  StatusCode: 4,
  StatusMessage: 5,
  ServiceName: 6,
  ScopeName: 7,
  ResourceAttributes: 8,
  Attributes: 9,
  JsonAttributeKeys: 10,
  Events: 11,
  Links: 12,
  /** The items of ResourceAttributes, Attributes and JsonAttributeKeys. */
  ResourceCount: 13,
  AttributesCount: 14,
  JsonKeysCount: 15,
} as const
export const STRIDE = 16

export class SpanBatchView {
  readonly spanIds: string[] = []
  /** Per span, STRIDE slots (SpanField). */
  at: Int32Array = EMPTY
  /** Per span, its start and end in nanoseconds as 32-bit halves: start hi, start lo, end hi, end lo (hi signed, lo unsigned). */
  times: Float64Array = EMPTY_TIMES
  org_id = ''
  workspace_id = ''
  project_id = ''
  trace_id = ''
  received_at_ms = 0

  constructor(readonly buf: Buffer) {}

  get count(): number {
    return this.spanIds.length
  }

  /** The record as avsc decodes it (the paths that need whole span objects: dead letters, tools). */
  decoded(): SpanBatchRecord {
    return spanBatchV2.decode(this.buf)
  }
}
const EMPTY = new Int32Array(0)
const EMPTY_TIMES = new Float64Array(0)

class Malformed extends Error {}

/** Reads the Avro long at r.pos known to be small (a length or a count: exact up to 2^53), and moves r.pos past it. */
export function readSmallLong(buf: Buffer, r: { pos: number }): number {
  let pos = r.pos
  let n = 0
  let scale = 1
  let b: number
  do {
    if (pos >= buf.length || scale > 2 ** 49) throw new Malformed('truncated or oversized varint')
    b = buf[pos++]!
    n += (b & 0x7f) * scale
    scale *= 128
  } while (b & 0x80)
  r.pos = pos
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2
}

/** Skips a string, checking its length. */
function skipString(buf: Buffer, r: { pos: number }): void {
  const len = readSmallLong(buf, r)
  if (len < 0 || r.pos + len > buf.length) throw new Malformed('string past the end of the record')
  r.pos += len
}

function readString(buf: Buffer, r: { pos: number }): string {
  const len = readSmallLong(buf, r)
  if (len < 0 || r.pos + len > buf.length) throw new Malformed('string past the end of the record')
  r.pos += len
  return buf.toString('utf8', r.pos - len, r.pos)
}

/** Skips an array of strings (`perItem` 1) or a map of string to string (2); answers its item count. */
function skipStrings(buf: Buffer, r: { pos: number }, perItem: 1 | 2): number {
  let items = 0
  for (;;) {
    let n = readSmallLong(buf, r)
    if (n === 0) return items
    if (n < 0) {
      n = -n
      readSmallLong(buf, r) // the block's size in bytes
    }
    for (let i = 0; i < n * perItem; i++) skipString(buf, r)
    items += n
  }
}

/** Appends the 64-bit two's complement halves of the Avro long (zigzag varint) at r.pos to `out`: hi (signed), lo (unsigned). */
function readLongHalves(buf: Buffer, r: { pos: number }, out: number[]): void {
  let pos = r.pos
  // The zigzag value's low 32 bits in lo, high in hi, 7 bits a byte (the fifth byte's split between them). A
  // read past the end gives undefined, whose bits are 0 and which ends the loop; the check after it refuses it.
  let lo = 0
  let hi = 0
  let b: number
  let shift = 0
  do {
    if (shift > 63) throw new Malformed('long longer than ten bytes')
    b = buf[pos++]!
    if (shift < 28) lo |= (b & 0x7f) << shift
    else if (shift === 28) {
      lo |= (b & 0x0f) << 28
      hi = (b & 0x7f) >>> 4
    } else hi |= (b & 0x7f) << (shift - 32)
    shift += 7
  } while (b & 0x80)
  if (pos > buf.length) throw new Malformed('truncated long')
  r.pos = pos
  // v = (z >>> 1) ^ -(z & 1), on the halves.
  let vlo = ((lo >>> 1) | (hi << 31)) >>> 0
  let vhi = hi >>> 1
  if (lo & 1) {
    vlo = ~vlo >>> 0
    vhi = ~vhi
  }
  out.push(vhi, vlo)
}

/** Reads a SpanBatch record; throws on bytes that are not one. */
export function readSpanBatch(buf: Buffer): SpanBatchView {
  const view = new SpanBatchView(buf)
  const r = { pos: 0 }
  try {
    view.org_id = readString(buf, r)
    view.workspace_id = readString(buf, r)
    view.project_id = readString(buf, r)
    view.trace_id = readString(buf, r)
    const received = readSmallLong(buf, r)
    view.received_at_ms = received
    const at: number[] = []
    const times: number[] = []
    for (;;) {
      let n = readSmallLong(buf, r)
      if (n === 0) break
      if (n < 0) {
        n = -n
        readSmallLong(buf, r)
      }
      for (let k = 0; k < n; k++) {
        const base = at.length
        at.length += STRIDE
        at[base + SpanField.SpanId] = r.pos
        view.spanIds.push(readString(buf, r))
        for (let f = SpanField.ParentSpanId; f <= SpanField.Kind; f++) {
          at[base + f] = r.pos
          skipString(buf, r)
        }
        readLongHalves(buf, r, times) // start
        readLongHalves(buf, r, times) // end
        for (let f = SpanField.StatusCode; f <= SpanField.ScopeName; f++) {
          at[base + f] = r.pos
          skipString(buf, r)
        }
        at[base + SpanField.ResourceAttributes] = r.pos
        at[base + SpanField.ResourceCount] = skipStrings(buf, r, 2)
        at[base + SpanField.Attributes] = r.pos
        at[base + SpanField.AttributesCount] = skipStrings(buf, r, 2)
        at[base + SpanField.JsonAttributeKeys] = r.pos
        at[base + SpanField.JsonKeysCount] = skipStrings(buf, r, 1)
        at[base + SpanField.Events] = r.pos
        skipString(buf, r)
        at[base + SpanField.Links] = r.pos
        skipString(buf, r)
      }
    }
    if (r.pos !== buf.length) throw new Malformed('trailing bytes')
    if (!Number.isSafeInteger(received)) throw new Malformed('received_at_ms out of range')
    view.at = Int32Array.from(at)
    view.times = Float64Array.from(times)
    return view
  } catch (err) {
    if (err instanceof Malformed) throw new Error(`invalid SpanBatch: ${err.message}`)
    throw err
  }
}

/** spans.raw.v2's records as the assembler reads them (the runner's decoder of that topic). */
export const spanBatchV2View = { name: 'span-batch.v2.avsc', decode: readSpanBatch }
