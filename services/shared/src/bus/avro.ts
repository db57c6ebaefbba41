import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import avro from 'avsc'

/** schemas/ at the repository root: the versioned contracts of every topic. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../../../schemas/', import.meta.url))

/**
 * Avro longs are 64-bit; nanosecond timestamps (~1.7e18) do not fit a JS number
 * exactly, so longs decode to bigint when they leave the safe-integer range and
 * to number otherwise. Encoding accepts either.
 */
// avsc's custom longs go through an 8-byte Buffer per value (unpackLongBytes
// allocates one for every long read); with three longs per span that was ~15% of
// the bytes the all-in-one's main thread allocated under load. So the varint is
// read and written here directly: numbers while the value fits 52 bits, bigint
// beyond. The hooks below remain for avsc's other paths (JSON, clone, compare).
const avscLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => safe(buf.readBigInt64LE()),
  toBuffer: (n: number | bigint) => {
    const buf = Buffer.alloc(8)
    buf.writeBigInt64LE(BigInt(n))
    return buf
  },
  fromJSON: (v: unknown) => (typeof v === 'string' ? BigInt(v) : (v as number)),
  toJSON: (n: number | bigint) => (typeof n === 'bigint' ? n.toString() : n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: number | bigint, b: number | bigint) => (a === b ? 0 : a < b ? -1 : 1),
}) as unknown as LongCodec

interface Tap { buf: Buffer; pos: number }
interface LongCodec { _read(tap: Tap): number | bigint; _write(tap: Tap, v: unknown): void }

const TWO_28 = 2 ** 28
const TWO_52 = 2 ** 52
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const safe = (v: bigint) => (v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v)

/** Writes the unsigned varint lo + hi * 2^28 (lo < 2^28, hi < 2^36). Past the end of the buffer bytes are dropped and pos still advances, which is how avsc tells an encode it ran out of room. */
function writeVarint(tap: Tap, lo: number, hi: number): void {
  const buf = tap.buf
  let pos = tap.pos
  while (hi > 0 || lo >= 0x80) {
    buf[pos++] = (lo & 0x7f) | 0x80
    lo = (lo >>> 7) | ((hi & 0x7f) << 21)
    hi = Math.floor(hi / 128)
  }
  buf[pos++] = lo
  tap.pos = pos
}

/** Writes an Avro long (a number or a bigint) at tap.pos: the codec's own writer, for hand-written encoders (span-batch-writer.ts). */
export function writeLong(tap: Tap, v: unknown): void {
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < TWO_52) {
    const z = v >= 0 ? v * 2 : -v * 2 - 1 // zigzag, exact below 2^53
    writeVarint(tap, z % TWO_28, Math.floor(z / TWO_28))
  } else if (typeof v === 'bigint' && v >= -(2n ** 63n) && v < 2n ** 63n) {
    const z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n))
    writeVarint(tap, Number(z & 0xfffffffn), Number(z >> 28n))
  } else avscLong._write(tap, v) // refuses what is not a long, as before
}

function readLong(tap: Tap): number | bigint {
  const buf = tap.buf
  let pos = tap.pos
  // The first four bytes' 28 bits in lo, the rest (up to 36 bits) in hi: both exact.
  let lo = 0
  let hi = 0
  let b = 0x80
  for (let shift = 0; shift < 28 && b & 0x80; shift += 7) {
    b = buf[pos++]!
    lo |= (b & 0x7f) << shift
  }
  for (let scale = 1; b & 0x80; scale *= 128) {
    b = buf[pos++]!
    hi += (b & 0x7f) * scale
  }
  tap.pos = pos // past the end when truncated: the record's read then fails
  if (hi < 2 ** 25) {
    const z = hi * TWO_28 + lo // below 2^53: exact
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2
  }
  const z = (BigInt(hi) << 28n) | BigInt(lo)
  return safe(BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n)))
}

// avsc freezes the type __with makes; the varint codec overrides it in a type derived from it.
const LongType = Object.freeze(Object.create(avscLong, { _read: { value: readLong }, _write: { value: writeLong } })) as avro.Type

export type AvroType<T> = { encode(value: T): Buffer; decode(buf: Buffer): T; readonly name: string }

interface RecordSchema {
  type: 'record'
  fields: Array<{ name: string; default?: unknown }>
}
type Resolver = ReturnType<avro.Type['createResolver']>
const typeOf = (schema: RecordSchema) => avro.Type.forSchema(schema as Parameters<typeof avro.Type.forSchema>[0], { registry: { long: LongType } })

/**
 * Within a version a contract only gains fields, at the end, each with a default.
 * A record written before such fields existed is shorter than the current schema
 * expects; it is read through a resolver from the schema as it was then (each
 * shorter prefix whose dropped fields all have defaults), newest first.
 */
function earlierWriters(schema: RecordSchema, type: avro.Type): Resolver[] {
  const resolvers: Resolver[] = []
  for (let n = schema.fields.length - 1; n > 0 && 'default' in schema.fields[n]!; n--) resolvers.push(type.createResolver(typeOf({ ...schema, fields: schema.fields.slice(0, n) })))
  return resolvers
}

/**
 * Encoded records are written one after another into a shared slab and handed out
 * as views of it. avsc's toBuffer writes into a 1 KiB scratch (twice when a record
 * is larger), then copies into a zero-filled buffer with an ArrayBuffer of its own
 * per record: on the ingest path that allocation was ~2% of the main thread plus
 * the collector's work on one backing store per span. A slab lives until the last
 * record viewing it is dropped (every caller copies or sends its records soon).
 */
const SLAB_BYTES = 1 << 16
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slabPos = 0

function encodeInSlab(type: avro.Type, value: unknown): Buffer {
  for (;;) {
    const end = type.encode(value, slab, slabPos)
    if (end >= 0) {
      const out = slab.subarray(slabPos, end)
      slabPos = end
      return out
    }
    // encode answers minus the bytes missing: a fresh slab with room for the record.
    slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, slab.length - slabPos - end))
    slabPos = 0
  }
}

export function loadAvroType<T>(file: string): AvroType<T> {
  const schema = JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8')) as RecordSchema
  const type = typeOf(schema)
  const earlier = earlierWriters(schema, type)
  return {
    name: file,
    encode: (value: T) => encodeInSlab(type, value),
    decode: (buf: Buffer) => {
      try {
        return type.fromBuffer(buf) as T
      } catch (err) {
        for (const resolver of earlier) {
          try {
            return type.fromBuffer(buf, resolver) as T
          } catch {
            // not written with this earlier schema either
          }
        }
        throw err
      }
    },
  }
}
