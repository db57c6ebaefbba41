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

export function loadAvroType<T>(file: string): AvroType<T> {
  const schema = JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8'))
  const type = avro.Type.forSchema(schema, { registry: { long: LongType } })
  return {
    name: file,
    encode: (value: T) => type.toBuffer(value),
    decode: (buf: Buffer) => type.fromBuffer(buf) as T,
  }
}
