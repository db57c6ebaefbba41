/**
 * SpanBatch records (span-batch.v2.avsc) written by hand from a request's span
 * records: the bytes avsc's encoder writes (span-batch-writer.test.ts compares them
 * over random spans), without first copying every span into an object of the
 * BatchedSpan shape for avsc's generated writer, and with a short ASCII string (ids,
 * names, attribute keys and values) written in one pass instead of measured by
 * Buffer.byteLength first. On the ingest thread this was a fifth of its time.
 *
 * Like span-batch-view.ts, it follows the schema field by field: a field added to
 * span-batch.v2.avsc must be added here.
 */
import { writeAscii } from '../ascii.js'
import { writeLong } from './avro.js'
import type { SpanRecord } from './records.js'

const SLAB_BYTES = 1 << 16

/**
 * Records are written one after another into a shared slab and handed out as views
 * of it (as avro.ts encodeInSlab does): a record that does not fit is moved to a
 * fresh slab as it grows.
 */
class SlabWriter {
  buf = Buffer.allocUnsafeSlow(SLAB_BYTES)
  pos = 0
  private start = 0

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const used = this.pos - this.start
    const next = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, 2 * (used + n)))
    this.buf.copy(next, 0, this.start, this.pos)
    this.buf = next
    this.start = 0
    this.pos = used
  }

  long(v: number | bigint): void {
    this.ensure(10)
    // Counts and lengths: one byte.
    if (typeof v === 'number' && v >= 0 && v < 64 && Number.isInteger(v)) {
      this.buf[this.pos++] = v * 2
      return
    }
    // writeLong takes numbers below 2^52 itself and bigints; a larger number goes as the bigint it is (a fraction throws).
    writeLong(this, typeof v === 'number' && !(Math.abs(v) < 2 ** 52) ? BigInt(v) : v)
  }

  /** A string as avsc writes it: its UTF-8 length (zigzag) and bytes, lone surrogates as avsc's own loop writes them below 65 bytes. */
  string(s: string): void {
    const len = s.length
    if (len < 64) {
      // ASCII, as most are: the zigzag length is one byte, and the bytes are the characters.
      this.ensure(1 + len)
      const end = writeAscii(s, this.buf, this.pos + 1)
      if (end >= 0) {
        this.buf[this.pos] = len * 2
        this.pos = end
        return
      }
    }
    const n = Buffer.byteLength(s)
    this.long(n)
    this.ensure(n)
    if (n > 64) this.pos += this.buf.write(s, this.pos, n, 'utf8')
    else this.pos = avscUtf8(s, this.buf, this.pos)
  }

  map(m: Record<string, string>): void {
    // Object.keys, as avsc's map writer: one pass over the keys (for...in twice cost as much again).
    const keys = Object.keys(m)
    const n = keys.length
    if (n > 0) {
      this.long(n)
      for (let i = 0; i < n; i++) {
        const k = keys[i]!
        this.string(k)
        this.string(m[k]!)
      }
    }
    this.long(0)
  }

  strings(a: readonly string[]): void {
    if (a.length > 0) {
      this.long(a.length)
      for (const s of a) this.string(s)
    }
    this.long(0)
  }

  /** Drops what was written since the last take (a record that failed half way). */
  abandon(): void {
    this.pos = this.start
  }

  /** The record written since the last take (a view of the slab). */
  take(): Buffer {
    const out = this.buf.subarray(this.start, this.pos)
    this.start = this.pos
    if (this.buf.length - this.pos < 1024) {
      this.buf = Buffer.allocUnsafeSlow(SLAB_BYTES)
      this.start = this.pos = 0
    }
    return out
  }
}

/** avsc's UTF-8 loop for strings of up to 64 bytes (Tap.prototype.writeString): a lone surrogate becomes the three bytes of its code unit. */
function avscUtf8(s: string, buf: Buffer, pos: number): number {
  for (let i = 0; i < s.length; i++) {
    let c1 = s.charCodeAt(i)
    let c2: number
    if (c1 < 0x80) buf[pos++] = c1
    else if (c1 < 0x800) {
      buf[pos++] = (c1 >> 6) | 0xc0
      buf[pos++] = (c1 & 0x3f) | 0x80
    } else if ((c1 & 0xfc00) === 0xd800 && ((c2 = s.charCodeAt(i + 1)) & 0xfc00) === 0xdc00) {
      c1 = 0x10000 + ((c1 & 0x03ff) << 10) + (c2 & 0x03ff)
      i++
      buf[pos++] = (c1 >> 18) | 0xf0
      buf[pos++] = ((c1 >> 12) & 0x3f) | 0x80
      buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80
      buf[pos++] = (c1 & 0x3f) | 0x80
    } else {
      buf[pos++] = (c1 >> 12) | 0xe0
      buf[pos++] = ((c1 >> 6) & 0x3f) | 0x80
      buf[pos++] = (c1 & 0x3f) | 0x80
    }
  }
  return pos
}

const writer = new SlabWriter()

/** One SpanBatch of these spans, which share org_id, workspace_id, project_id, trace_id and received_at_ms (those of the first are written). */
export function encodeSpanBatch(spans: readonly SpanRecord[]): Buffer {
  const w = writer
  try {
    const first = spans[0]!
    w.string(first.org_id)
    w.string(first.workspace_id)
    w.string(first.project_id)
    w.string(first.trace_id)
    w.long(first.received_at_ms)
    if (spans.length > 0) {
      w.long(spans.length)
      for (const s of spans) {
        w.string(s.span_id)
        w.string(s.parent_span_id)
        w.string(s.name)
        w.string(s.kind)
        w.long(s.start_time_unix_nano)
        w.long(s.end_time_unix_nano)
        w.string(s.status_code)
        w.string(s.status_message)
        w.string(s.service_name)
        w.string(s.scope_name)
        w.map(s.resource_attributes)
        w.map(s.attributes)
        w.strings(s.json_attribute_keys)
        w.string(s.events_json)
        w.string(s.links_json)
      }
    }
    w.long(0)
  } catch (err) {
    // A value that is not what the schema says (avsc refuses it too): nothing of this record stays in the slab.
    w.abandon()
    throw err
  }
  return w.take()
}
