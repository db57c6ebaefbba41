/**
 * Rows as ClickHouse's RowBinaryWithNamesAndTypes: the store's inserts go as binary
 * rows instead of JSON text, which takes no JSON escaping here and takes ClickHouse
 * much less CPU to parse (in the one-process deployment that CPU is the hot path's
 * other core). The header names every column with its type, so ClickHouse checks
 * the bytes against the table as it is now: a type cached before a migration can
 * fail an insert, never misread one.
 *
 * A value is written only where its JSON text would mean the same thing to
 * ClickHouse (the rows were JSON before, and some callers still pass the forms JSON
 * allows). Anything else (a formatted date, a null in a non-Nullable column, a
 * fraction in an integer column) throws NotEncodable, and the caller sends that
 * insert as JSON, as before. insert.test.ts inserts the same rows both ways and
 * compares what ClickHouse stored.
 */

import { writeAscii } from '../ascii.js'

export class NotEncodable extends Error {}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DIGITS = /^\d+$/
const SIGNED_DIGITS = /^-?\d+$/
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const TWO_32 = 0x1_0000_0000

export class RowBinaryWriter {
  buf: Buffer
  pos = 0

  constructor(initialBytes = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initialBytes)
  }

  /** Room for `n` more bytes. */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n))
    this.buf.copy(grown, 0, 0, this.pos)
    this.buf = grown
  }

  uvarint(n: number): void {
    this.reserve(10)
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80
      n = Math.floor(n / 0x80)
    }
    this.buf[this.pos++] = n
  }

  string(s: string): void {
    const len = s.length
    if (len < 0x80) {
      // Short ASCII, as most are: a one-byte length and a byte per character.
      this.reserve(1 + len)
      const end = writeAscii(s, this.buf, this.pos + 1)
      if (end >= 0) {
        this.buf[this.pos] = len
        this.pos = end
        return
      }
    }
    const n = Buffer.byteLength(s, 'utf8')
    this.uvarint(n)
    this.reserve(n)
    this.pos += this.buf.write(s, this.pos, n, 'utf8')
  }

  /** An unsigned integer of `bytes` (1, 2 or 4) bytes. */
  uint(n: number, bytes: number): void {
    this.reserve(bytes)
    this.buf.writeUIntLE(n, this.pos, bytes)
    this.pos += bytes
  }

  int(n: number, bytes: number): void {
    this.reserve(bytes)
    this.buf.writeIntLE(n, this.pos, bytes)
    this.pos += bytes
  }

  /** Eight bytes of a 64-bit integer: a non-negative safe integer without a BigInt, anything else through one. */
  int64(n: number | bigint, signed: boolean): void {
    this.reserve(8)
    if (typeof n === 'number' && n >= 0) this.halves(n % TWO_32, Math.floor(n / TWO_32))
    else {
      if (signed) this.buf.writeBigInt64LE(BigInt(n), this.pos)
      else this.buf.writeBigUInt64LE(BigInt(n), this.pos)
      this.pos += 8
    }
  }

  /**
   * A non-negative integer below 2^63 from its text (at most 19 digits),
   * without a BigInt: the text is split as a·10^9 + b and the product worked out in
   * pieces that stay exact in a double.
   */
  int64Digits(s: string): void {
    if (s.length <= 15) return this.int64(Number(s), false)
    const a = Number(s.slice(0, -9))
    const b = Number(s.slice(-9))
    // a < 2^34: a = a1·2^16 + a0, so a·10^9 + b = a1·10^9·2^16 + (a0·10^9 + b), every part below 2^53.
    const y = Math.floor(a / 0x1_0000) * 1e9
    const z = (y % 0x1_0000) * 0x1_0000 + (a % 0x1_0000) * 1e9 + b
    this.reserve(8)
    this.halves(z % TWO_32, Math.floor(y / 0x1_0000) + Math.floor(z / TWO_32))
  }

  private halves(lo: number, hi: number): void {
    this.buf.writeUInt32LE(lo, this.pos)
    this.buf.writeUInt32LE(hi, this.pos + 4)
    this.pos += 8
  }

  float(x: number, bytes: 4 | 8): void {
    this.reserve(bytes)
    if (bytes === 8) this.buf.writeDoubleLE(x, this.pos)
    else this.buf.writeFloatLE(x, this.pos)
    this.pos += bytes
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length)
    this.buf.set(b, this.pos)
    this.pos += b.length
  }

  /** The bytes written so far (a view: valid until the writer is written to again). */
  take(): Buffer {
    return this.buf.subarray(0, this.pos)
  }
}

export type Encode = (w: RowBinaryWriter, v: unknown) => void

const fail = (type: string, v: unknown): never => {
  throw new NotEncodable(`${typeof v} ${String(v).slice(0, 40)} as ${type}`)
}

function integer(type: string, bytes: number, signed: boolean): Encode {
  const min = signed ? -(2 ** (bytes * 8 - 1)) : 0
  const max = signed ? 2 ** (bytes * 8 - 1) - 1 : 2 ** (bytes * 8) - 1
  return (w, v) => {
    const n = typeof v === 'boolean' ? Number(v) : v
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) return fail(type, v)
    if (signed) w.int(n, bytes)
    else w.uint(n, bytes)
  }
}

function integer64(type: string, signed: boolean): Encode {
  const min = signed ? -(2n ** 63n) : 0n
  const max = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n
  const text = signed ? SIGNED_DIGITS : DIGITS
  return (w, v) => {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || (!signed && v < 0)) return fail(type, v)
      return w.int64(v, signed)
    }
    if (typeof v === 'boolean') return w.int64(Number(v), signed)
    // Up to 18 digits is below 2^63 whatever they are: no BigInt needed.
    if (typeof v === 'string' && v.length <= 18 && DIGITS.test(v)) return w.int64Digits(v)
    const b = typeof v === 'bigint' ? v : typeof v === 'string' && text.test(v) && v.length <= 20 ? BigInt(v) : fail(type, v)
    if (b < min || b > max) return fail(type, v)
    w.int64(b, signed)
  }
}

/**
 * DateTime64(p) as its tick count. JSON text reads a run of digits as ticks only at
 * the length a tick count of this century has (10 + p digits: 2001 to 2286); a
 * shorter one it reads otherwise (as seconds, or as a date), so only that length is
 * taken here.
 */
function dateTime64(type: string, precision: number): Encode {
  const digits = 10 + precision
  return (w, v) => {
    if (typeof v === 'bigint') return w.int64(v, true)
    const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'string' ? v : fail(type, v)
    if (s.length !== digits || !DIGITS.test(s)) return fail(type, v)
    if (typeof v === 'number') w.int64(v, true)
    else w.int64Digits(s)
  }
}

function dateTime(type: string): Encode {
  return (w, v) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < TWO_32) return w.uint(v, 4)
    if (typeof v === 'string' && v.length === 10 && DIGITS.test(v)) return w.uint(Number(v), 4)
    fail(type, v)
  }
}

/** Date as days since 1970-01-01, from 'YYYY-MM-DD' only. */
const date: Encode = (w, v) => {
  const m = typeof v === 'string' ? DATE_RE.exec(v) : null
  if (!m) return fail('Date', v)
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  const day = ms / 86_400_000
  if (new Date(ms).toISOString().slice(0, 10) !== v || day < 0 || day > 0xffff) return fail('Date', v)
  w.uint(day, 2)
}

const uuidCache = new Map<string, Buffer>()
/** ClickHouse keeps a UUID as two UInt64 halves, each little-endian: 00112233-4455-6677-8899-aabbccddeeff is 77 66 .. 00 ff ee .. 88. */
const uuid: Encode = (w, v) => {
  if (typeof v !== 'string') return fail('UUID', v)
  let bytes = uuidCache.get(v)
  if (!bytes) {
    if (!UUID_RE.test(v)) return fail('UUID', v)
    const hex = Buffer.from(v.replace(/-/g, ''), 'hex')
    bytes = Buffer.allocUnsafe(16)
    for (let i = 0; i < 8; i++) {
      bytes[i] = hex[7 - i]!
      bytes[8 + i] = hex[15 - i]!
    }
    // Workspace and organization ids repeat on every row; a bounded cache keeps their bytes.
    if (uuidCache.size > 1000) uuidCache.clear()
    uuidCache.set(v, bytes)
  }
  w.bytes(bytes)
}

const string: Encode = (w, v) => (typeof v === 'string' ? w.string(v) : fail('String', v))

const float = (type: string, bytes: 4 | 8): Encode => (w, v) => (typeof v === 'number' && Number.isFinite(v) ? w.float(v, bytes) : fail(type, v))

/** `Outer(inner)` → inner, or null when `type` is not of that form. */
function unwrap(type: string, outer: string): string | null {
  return type.startsWith(`${outer}(`) && type.endsWith(')') ? type.slice(outer.length + 1, -1) : null
}

/** Splits `A, B` at its top-level comma (a Map's key and value types). */
function splitPair(inner: string): [string, string] | null {
  let depth = 0
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]
    if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === ',' && depth === 0) return [inner.slice(0, i).trim(), inner.slice(i + 1).trim()]
  }
  return null
}

const SCALARS: Record<string, Encode> = {
  String: string,
  UUID: uuid,
  Date: date,
  UInt8: integer('UInt8', 1, false),
  UInt16: integer('UInt16', 2, false),
  UInt32: integer('UInt32', 4, false),
  UInt64: integer64('UInt64', false),
  Int8: integer('Int8', 1, true),
  Int16: integer('Int16', 2, true),
  Int32: integer('Int32', 4, true),
  Int64: integer64('Int64', true),
  Float32: float('Float32', 4),
  Float64: float('Float64', 8),
}

/** The encoder for a column of this ClickHouse type, or null when this writer has none (the insert then goes as JSON). */
export function encoderFor(type: string): Encode | null {
  const scalar = SCALARS[type]
  if (scalar) return scalar
  const lc = unwrap(type, 'LowCardinality')
  if (lc !== null) return encoderFor(lc)
  const dt64 = /^DateTime64\((\d)(, '[^']*')?\)$/.exec(type)
  if (dt64) return dateTime64(type, Number(dt64[1]))
  if (/^DateTime(\('[^']*'\))?$/.test(type)) return dateTime(type)
  const nullable = unwrap(type, 'Nullable')
  if (nullable !== null) {
    const inner = encoderFor(nullable)
    return inner && ((w, v) => (v === null ? w.uint(1, 1) : (w.uint(0, 1), inner(w, v))))
  }
  const array = unwrap(type, 'Array')
  if (array !== null) {
    const inner = encoderFor(array)
    return (
      inner &&
      ((w, v) => {
        if (!Array.isArray(v)) return fail(type, v)
        w.uvarint(v.length)
        for (const x of v) inner(w, x)
      })
    )
  }
  const map = unwrap(type, 'Map')
  const pair = map === null ? null : splitPair(map)
  if (pair && encoderFor(pair[0]) === string) return mapOfString(type, encoderFor(pair[1]))
  return null
}

/** A Map with String keys from a plain object, its pairs in the object's order (as JSON's). */
function mapOfString(type: string, value: Encode | null): Encode | null {
  if (!value) return null
  return (w, v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(type, v)
    const o = v as Record<string, unknown>
    let n = 0
    for (const _ in o) n++
    w.uvarint(n)
    for (const k in o) {
      w.string(k)
      value(w, o[k])
    }
  }
}

/** RowBinaryWithNamesAndTypes' header: the column count, the names, the types. */
function writeHeader(w: RowBinaryWriter, columns: readonly string[], types: readonly string[]): void {
  w.uvarint(columns.length)
  for (const c of columns) w.string(c)
  for (const t of types) w.string(t)
}

/**
 * The whole RowBinaryWithNamesAndTypes body: the header, then each row's values in
 * `columns` order. Throws NotEncodable when a value has no binary form here that
 * means what its JSON would.
 */
export function encodeRows(w: RowBinaryWriter, columns: readonly string[], types: readonly string[], encoders: readonly Encode[], rows: ReadonlyArray<Record<string, unknown>>): Buffer {
  w.pos = 0
  writeHeader(w, columns, types)
  const writeRow = rowWriter(columns, types, encoders)
  for (const row of rows) writeRow(w, row)
  return w.take()
}

/** How rows of some columns of a table are written: the body's header and the row writer (Store.rowEncoding). */
export interface RowEncoding {
  readonly columns: readonly string[]
  /** Each column's type as the table has it (what the header names). */
  readonly types: readonly string[]
  readonly header: Buffer
  readonly writeRow: (w: RowBinaryWriter, row: Record<string, unknown>) => void
}

export function rowEncoding(columns: readonly string[], types: readonly string[], encoders: readonly Encode[]): RowEncoding {
  const w = new RowBinaryWriter(1024)
  writeHeader(w, columns, types)
  return { columns, types, header: Buffer.from(w.take()), writeRow: rowWriter(columns, types, encoders) }
}

/**
 * Rows encoded one at a time as they are made, for one insert (Store.insertEncoded).
 * A batch whose row objects all lived until its insert kept tens of megabytes
 * alive across the insert's wait, and the collector copied them from the young
 * generation to the old one every batch; here each row object dies as soon as
 * it is written. A row's last byte can be set afterwards, for a flag column
 * placed last that is only known later (spans_v1's first_delivery).
 */
export class EncodedRows {
  private readonly w: RowBinaryWriter
  private ends: number[] = []

  constructor(readonly encoding: RowEncoding, initialBytes?: number) {
    this.w = new RowBinaryWriter(initialBytes)
  }

  get count(): number {
    return this.ends.length
  }

  /** Appends a row; a value with no binary form throws NotEncodable and leaves nothing of the row. */
  push(row: Record<string, unknown>): void {
    this.pushWritten((w) => this.encoding.writeRow(w, row))
  }

  /**
   * Appends a row written by `write` itself, every column in the encoding's order
   * (a writer that knows the bytes already: assembler/src/span-rows.ts). A throw
   * leaves nothing of the row.
   */
  pushWritten(write: (w: RowBinaryWriter) => void): void {
    const start = this.w.pos
    try {
      write(this.w)
    } catch (err) {
      this.w.pos = start
      throw err
    }
    this.ends.push(this.w.pos)
  }

  /** Sets the last byte of row `i` (its last column, a UInt8). */
  setLastByte(i: number, value: number): void {
    this.w.buf[this.ends[i]! - 1] = value
  }

  /** Keeps only the rows at these indices (ascending), in their order. */
  keep(indices: readonly number[]): void {
    const { buf } = this.w
    const ends: number[] = []
    let pos = 0
    for (const i of indices) {
      const start = i === 0 ? 0 : this.ends[i - 1]!
      const end = this.ends[i]!
      if (start !== pos) buf.copy(buf, pos, start, end)
      pos += end - start
      ends.push(pos)
    }
    this.w.pos = pos
    this.ends = ends
  }

  /** The rows' bytes, without the header (a view: valid until more rows are pushed). */
  body(): Buffer {
    return this.w.take()
  }
}

type WriteRow = RowEncoding['writeRow']
/** A column or table name that may be written into generated code or SQL text as it is. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const writers = new Map<string, WriteRow>()

/**
 * One function per column list that writes a row's values in order, generated so
 * that each property read and each encoder call is a site of its own: rows of one
 * shape make every site monomorphic and the encoders inlinable (a loop over the
 * columns reads and calls through one megamorphic site; measured on spans_v1 rows,
 * ~2.1 µs a row instead of ~2.6).
 */
function rowWriter(columns: readonly string[], types: readonly string[], encoders: readonly Encode[]): WriteRow {
  const key = `${columns.join(',')}|${types.join(';')}`
  let write = writers.get(key)
  if (!write) {
    for (const c of columns) if (!IDENTIFIER.test(c)) throw new Error(`not a column name: ${JSON.stringify(c)}`)
    const body = columns.map((c, i) => `e[${i}](w, r.${c})`).join('\n')
    write = new Function('e', `return function writeRow(w, r) {\n${body}\n}`)(encoders) as WriteRow
    if (writers.size >= 256) writers.clear()
    writers.set(key, write)
  }
  return write
}
