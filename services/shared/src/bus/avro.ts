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
const LongType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => {
    const v = buf.readBigInt64LE()
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
  },
  toBuffer: (n: number | bigint) => {
    const buf = Buffer.alloc(8)
    buf.writeBigInt64LE(BigInt(n))
    return buf
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

export function loadAvroType<T>(file: string): AvroType<T> {
  const schema = JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8')) as RecordSchema
  const type = typeOf(schema)
  const earlier = earlierWriters(schema, type)
  return {
    name: file,
    encode: (value: T) => type.toBuffer(value),
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
