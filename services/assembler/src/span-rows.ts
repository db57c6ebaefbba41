/**
 * spans_v1 rows written straight from a spans.raw.v2 record's bytes
 * (shared/src/bus/span-batch-view.ts): the same bytes spanRow's row gets from the
 * store's RowBinary encoders (span-rows.test.ts compares them), without the span
 * first becoming an object of strings. Avro and RowBinary write a string alike but
 * for its length prefix (a zigzag varint, an unsigned one), so strings, the
 * attribute maps and json_attribute_keys are copied with their prefix rewritten;
 * times go from the record's varints to little-endian halves without a BigInt; only
 * the attributes genAiFacts reads are decoded (GENAI_FACT_KEYS).
 *
 * A span this writer would not write exactly as spanRow's row is written (a time,
 * receipt or expiry outside what the store's encoders take, an id that is not
 * storable, a token count past 2^53, a cost that is not finite) is left to the span consumer's generic path, which stores or rejects it
 * as before. So is every span when spans_v1's column types are not the ones these
 * bytes are (SPAN_COLUMN_TYPES): a migration that changes one is noticed, not
 * misread.
 */
import { isAscii, isUtf8 } from 'node:buffer'
import { readSmallLong, SpanField, STRIDE, type SpanBatchView } from '@svc/shared/bus/span-batch-view'
import { isStorableUuid } from '@svc/shared/bus/run-consumer'
import { GENAI_FACT_KEYS, type GenAiFacts } from '@svc/shared/domain/genai'
import { encoderFor, RowBinaryWriter, type EncodedRows, type RowEncoding } from '@svc/shared/store/row-binary'
import { SPAN_COLUMNS, spanFacts, type RowContext } from './assemble.js'

/** spans_v1's columns as these rows write them, SPAN_COLUMNS' order (the table's types after clickhouse/ migrations). */
export const SPAN_COLUMN_TYPES: Readonly<Record<string, string>> = {
  org_id: 'UUID',
  workspace_id: 'UUID',
  project_id: 'LowCardinality(String)',
  trace_id: 'String',
  span_id: 'String',
  parent_span_id: 'String',
  name: 'LowCardinality(String)',
  kind: 'LowCardinality(String)',
  start_time: "DateTime64(9, 'UTC')",
  end_time: "DateTime64(9, 'UTC')",
  duration_ns: 'UInt64',
  status_code: 'LowCardinality(String)',
  status_message: 'String',
  service_name: 'LowCardinality(String)',
  scope_name: 'LowCardinality(String)',
  model: 'LowCardinality(String)',
  provider: 'LowCardinality(String)',
  span_type: 'LowCardinality(String)',
  input_tokens: 'UInt64',
  output_tokens: 'UInt64',
  cache_read_tokens: 'UInt64',
  cache_write_tokens: 'UInt64',
  reasoning_tokens: 'UInt64',
  cost_usd: 'Float64',
  cost_source: 'LowCardinality(String)',
  pricing_version: 'LowCardinality(String)',
  is_llm: 'UInt8',
  resource_attributes: 'Map(String, String)',
  attributes: 'Map(String, String)',
  json_attribute_keys: 'Array(String)',
  events: 'String',
  links: 'String',
  received_at: "DateTime64(3, 'UTC')",
  expires_at: "DateTime('UTC')",
  batch_id: 'UInt64',
  first_delivery: 'UInt8',
}

const TWO_22 = 2 ** 22
const TWO_32 = 2 ** 32
// DateTime64(9) takes a tick count of 19 digits (row-binary.ts dateTime64), from 10^18 ns: these halves.
const MIN_NS_HI = 232_830_643
const MIN_NS_LO = 2_808_348_672
const MAX_EXPIRY_S = 4_294_967_295
const uuid = encoderFor('UUID')!
const uint64 = encoderFor('UInt64')!

/** floor((hi·2^32 + lo) / d) for 0 <= hi < 2^31, 0 <= lo < 2^32, 1,024 <= d <= 10^9 (the quotient below 2^53): long division in 22-bit digits, every step exact in a double. */
export function divide64(hi: number, lo: number, d: number): number {
  const d2 = Math.floor(hi / 4096)
  const d1 = (hi % 4096) * 1024 + Math.floor(lo / TWO_22)
  const d0 = lo % TWO_22
  const q2 = Math.floor(d2 / d)
  let cur = (d2 - q2 * d) * TWO_22 + d1
  const q1 = Math.floor(cur / d)
  cur = (cur - q1 * d) * TWO_22 + d0
  const q0 = Math.floor(cur / d)
  return (q2 * TWO_22 + q1) * TWO_22 + q0
}

/** Where the helpers below read in a record: one cursor, moved as they read. */
const cursor = { pos: 0 }

/**
 * Copies the Avro string at the cursor as a RowBinary string, moving the cursor past it.
 * Bytes that are not UTF-8 (avsc writes a lone surrogate as its three bytes) are
 * written as avsc's decode and the store's encoder would make them: replaced.
 */
function copyString(w: RowBinaryWriter, buf: Buffer): void {
  const len = readSmallLong(buf, cursor)
  const from = cursor.pos
  cursor.pos += len
  if (len <= 32) {
    // Most are short: a loop costs less than a call into Buffer.copy, and sees whether every byte is ASCII.
    w.reserve(1 + len)
    const out = w.buf
    let p = w.pos + 1
    let high = 0
    for (let i = 0; i < len; i++) high |= out[p++] = buf[from + i]!
    if (high < 0x80) {
      out[w.pos] = len
      w.pos = p
      return
    }
  } else if (isUtf8(buf.subarray(from, from + len))) {
    w.uvarint(len)
    w.reserve(len)
    w.pos += buf.copy(w.buf, w.pos, from, from + len)
    return
  }
  w.string(buf.toString('utf8', from, from + len))
}

/** Copies the Avro array of strings (`perItem` 1) or map of strings (2) at the cursor, `count` items, as RowBinary's Array or Map. */
function copyStrings(w: RowBinaryWriter, buf: Buffer, count: number, perItem: 1 | 2): void {
  w.uvarint(count)
  for (;;) {
    let n = readSmallLong(buf, cursor)
    if (n === 0) return
    if (n < 0) {
      n = -n
      readSmallLong(buf, cursor) // the block's size in bytes
    }
    for (let i = 0; i < n * perItem; i++) copyString(w, buf)
  }
}

/** A set of ASCII keys by byte length, each with its bytes: a map's key is matched against them without decoding it. */
type KeyTable = ReadonlyArray<ReadonlyArray<{ key: string; bytes: Buffer }> | undefined>

function keyTable(keys: Iterable<string>): KeyTable {
  const table: Array<Array<{ key: string; bytes: Buffer }> | undefined> = []
  for (const key of keys) {
    const bytes = Buffer.from(key)
    if (!isAscii(bytes)) throw new Error(`not an ASCII key: ${key}`)
    ;(table[bytes.length] ??= []).push({ key, bytes })
  }
  return table
}

const FACT_KEYS = keyTable(GENAI_FACT_KEYS)

/** The key of `table` equal to buf[from, from + len), if any. Compared from the end: the keys share their prefixes (gen_ai.usage.). */
function keyAt(table: KeyTable, buf: Buffer, from: number, len: number): string | undefined {
  const candidates = table[len]
  if (candidates === undefined) return undefined
  for (const { key, bytes } of candidates) {
    let i = len - 1
    while (i >= 0 && bytes[i] === buf[from + i]) i--
    if (i < 0) return key
  }
  return undefined
}

/**
 * The entries of the Avro map at the cursor whose key is in `keys`, decoded (a later
 * entry of a key wins, as in avsc's object). Keys are compared as bytes: the table's
 * are ASCII, so a key that is not matches none of them, as its decoded text would not.
 */
function pickStrings(buf: Buffer, keys: KeyTable): Record<string, string> {
  const out: Record<string, string> = {}
  for (;;) {
    let n = readSmallLong(buf, cursor)
    if (n === 0) return out
    if (n < 0) {
      n = -n
      readSmallLong(buf, cursor)
    }
    for (let i = 0; i < n; i++) {
      const klen = readSmallLong(buf, cursor)
      const key = keyAt(keys, buf, cursor.pos, klen)
      cursor.pos += klen
      const vlen = readSmallLong(buf, cursor)
      if (key !== undefined) out[key] = buf.toString('utf8', cursor.pos, cursor.pos + vlen)
      cursor.pos += vlen
    }
  }
}

/** Moves the cursor to `pos` (a field's position, SpanBatchView.at). */
const at = (pos: number) => {
  cursor.pos = pos
}

function halves(w: RowBinaryWriter, hi: number, lo: number): void {
  w.reserve(8)
  w.buf.writeUInt32LE(lo, w.pos)
  w.buf.writeUInt32LE(hi >>> 0, w.pos + 4)
  w.pos += 8
}

/** Whether hi·2^32 + lo has 19 digits (the DateTime64(9) the store's encoder takes). */
const nineteenDigits = (hi: number, lo: number) => hi > MIN_NS_HI || (hi === MIN_NS_HI && lo >= MIN_NS_LO)

/** Writes rows of spans_v1 from SpanBatchViews; null when the table's column types are not SPAN_COLUMN_TYPES. */
export function spanRowWriter(encoding: RowEncoding): SpanRowWriter | null {
  const expected = SPAN_COLUMNS.map((c) => SPAN_COLUMN_TYPES[c])
  const same = encoding.columns.length === SPAN_COLUMNS.length && encoding.columns.every((c, i) => c === SPAN_COLUMNS[i] && encoding.types[i] === expected[i])
  return same ? new SpanRowWriter() : null
}

export class SpanRowWriter {
  private readonly scratch = new RowBinaryWriter(256)
  private batchKey = ''
  private batchBytes = Buffer.alloc(0)
  private view: SpanBatchView | undefined
  /** The record's org_id, workspace_id, project_id and trace_id columns, which every row of its spans begins with. */
  private head = Buffer.alloc(0)

  /** Begins a record: whether its shared fields can be written here (storable ids, a 13-digit receipt time). */
  begin(view: SpanBatchView): boolean {
    this.view = undefined
    if (!isStorableUuid(view.org_id) || !isStorableUuid(view.workspace_id) || view.trace_id === '' || !(view.received_at_ms >= 1e12 && view.received_at_ms < 1e13)) return false
    const w = this.scratch
    w.pos = 0
    uuid(w, view.org_id)
    uuid(w, view.workspace_id)
    w.string(view.project_id)
    w.string(view.trace_id)
    this.head = Buffer.from(w.take())
    this.view = view
    return true
  }

  /**
   * Appends span `i` of the record begun last as a row, with batch id `batchId` (UInt64
   * text); false, writing nothing, when the span is for the generic path.
   */
  write(rows: EncodedRows, i: number, ctx: RowContext, batchId: string): boolean {
    const view = this.view
    if (!view) return false
    const t = view.times
    const sHi = t[4 * i]!
    const sLo = t[4 * i + 1]!
    const eHi = t[4 * i + 2]!
    const eLo = t[4 * i + 3]!
    if (!nineteenDigits(sHi, sLo) || !nineteenDigits(eHi, eLo) || view.spanIds[i] === '' || !Number.isInteger(ctx.retentionHours)) return false
    const expiresAt = divide64(sHi, sLo, 1e9) + ctx.retentionHours * 3600
    if (expiresAt > MAX_EXPIRY_S || expiresAt < 0) return false
    const { buf, at: pos } = view
    const base = i * STRIDE
    at(pos[base + SpanField.Attributes]!)
    const { facts, cost } = spanFacts(pickStrings(buf, FACT_KEYS), divide64(sHi, sLo, 1e6), ctx)
    // What the store's encoders would refuse (a count past 2^53, a cost that is not finite) the generic path rejects.
    if (!Number.isFinite(cost.usd) || !safeCounts(facts)) return false
    if (batchId !== this.batchKey) {
      const w = this.scratch
      w.pos = 0
      uint64(w, batchId)
      this.batchBytes = Buffer.from(w.take())
      this.batchKey = batchId
    }
    const head = this.head
    const batchBytes = this.batchBytes
    rows.pushWritten((w) => {
      w.bytes(head)
      // span_id, parent_span_id, name, kind: consecutive in the record as in the row.
      at(pos[base + SpanField.SpanId]!)
      for (let f = SpanField.SpanId; f <= SpanField.Kind; f++) copyString(w, buf)
      halves(w, sHi, sLo)
      halves(w, eHi, eLo)
      // duration_ns: end - start, 0 if negative.
      if (eHi > sHi || (eHi === sHi && eLo > sLo)) {
        const borrow = eLo < sLo ? 1 : 0
        halves(w, eHi - sHi - borrow, eLo - sLo + borrow * TWO_32)
      } else halves(w, 0, 0)
      // status_code, status_message, service_name, scope_name: consecutive too.
      at(pos[base + SpanField.StatusCode]!)
      for (let f = SpanField.StatusCode; f <= SpanField.ScopeName; f++) copyString(w, buf)
      w.string(facts.model)
      w.string(facts.provider)
      w.string(facts.spanType)
      w.int64(facts.inputTokens, false)
      w.int64(facts.outputTokens, false)
      w.int64(facts.cacheReadTokens, false)
      w.int64(facts.cacheWriteTokens, false)
      w.int64(facts.reasoningTokens, false)
      w.float(cost.usd, 8)
      w.string(cost.source)
      w.string(cost.version)
      w.uint(facts.isLlm ? 1 : 0, 1)
      at(pos[base + SpanField.ResourceAttributes]!)
      copyStrings(w, buf, pos[base + SpanField.ResourceCount]!, 2)
      at(pos[base + SpanField.Attributes]!)
      copyStrings(w, buf, pos[base + SpanField.AttributesCount]!, 2)
      at(pos[base + SpanField.JsonAttributeKeys]!)
      copyStrings(w, buf, pos[base + SpanField.JsonKeysCount]!, 1)
      at(pos[base + SpanField.Events]!)
      copyString(w, buf)
      at(pos[base + SpanField.Links]!)
      copyString(w, buf)
      w.int64(view.received_at_ms, true)
      w.uint(expiresAt, 4)
      w.bytes(batchBytes)
      w.uint(1, 1)
    })
    return true
  }
}

const safeCounts = (f: GenAiFacts) =>
  Number.isSafeInteger(f.inputTokens) && Number.isSafeInteger(f.outputTokens) && Number.isSafeInteger(f.cacheReadTokens) && Number.isSafeInteger(f.cacheWriteTokens) && Number.isSafeInteger(f.reasoningTokens)
