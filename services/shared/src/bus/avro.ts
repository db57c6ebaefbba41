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
// avsc packs the 8 bytes toBuffer returns into the record at once, so one
// buffer serves every long written (a new one per long was garbage per span).
const longBytes = Buffer.alloc(8)
const LongType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => {
    const v = buf.readBigInt64LE()
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
  },
  toBuffer: (n: number | bigint) => {
    longBytes.writeBigInt64LE(BigInt(n))
    return longBytes
  },
  fromJSON: (v: unknown) => (typeof v === 'string' ? BigInt(v) : (v as number)),
  toJSON: (n: number | bigint) => (typeof n === 'bigint' ? n.toString() : n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isInteger(n)),
  compare: (a: number | bigint, b: number | bigint) => (a === b ? 0 : a < b ? -1 : 1),
})

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
