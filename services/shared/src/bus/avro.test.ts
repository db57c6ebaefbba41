import { readFileSync } from 'node:fs'
import avro from 'avsc'
import { describe, expect, it } from 'vitest'
import { SCHEMA_DIR } from './avro.js'
import { deadLetterV1, spanV1, type SpanRecord } from './records.js'

const SPAN: SpanRecord = {
  org_id: 'o', workspace_id: 'w', project_id: 'p', trace_id: 't', span_id: 's', parent_span_id: '', name: 'n', kind: 'INTERNAL',
  start_time_unix_nano: 1_764_340_000_123_456_789n, end_time_unix_nano: 1_764_340_000_223_456_789n, status_code: 'OK', status_message: '',
  service_name: '', scope_name: '', resource_attributes: {}, attributes: { a: 'b' }, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: 0,
}

describe('loadAvroType', () => {
  it('reads a record written before the trailing fields with defaults were added', () => {
    // dead-letter.v1.avsc as it was before original_* were added.
    const before = avro.Type.forSchema({
      type: 'record',
      name: 'DeadLetter',
      namespace: 'svc.deadletters',
      fields: ['org_id', 'workspace_id', 'source', 'reason', 'payload'].map((name) => ({ name, type: 'string' })).concat([{ name: 'received_at_ms', type: 'long' }]),
    })
    const old = before.toBuffer({ org_id: 'o', workspace_id: 'w', source: 'ingest.otlp', reason: 'bad', payload: '{}', received_at_ms: 7 })
    expect(deadLetterV1.decode(old)).toMatchObject({ workspace_id: 'w', reason: 'bad', received_at_ms: 7, original_topic: '', original_partition: -1, original_offset: -1 })
  })

  it('still refuses bytes no version of the schema wrote', () => {
    expect(() => deadLetterV1.decode(Buffer.from([0xff, 0xff, 0xff]))).toThrow()
  })

  it('encodes the same bytes as avsc, each record keeping its own bytes while later ones are written', () => {
    // Records share a slab: enough of them to fill several, some larger than one.
    // Odd ones carry an offset past 2^53 (bigint), which avsc's own long type refuses.
    const letters = Array.from({ length: 3000 }, (_, i) => ({
      org_id: `o${i}`, workspace_id: 'w', source: 'ingest.otlp', reason: 'bad', payload: 'x'.repeat(i % 500 === 7 ? 100_000 + i : i % 97),
      received_at_ms: 1_700_000_000_000 + i, original_topic: 't', original_partition: i % 3, original_value: Buffer.from([i % 256]), original_offset: i % 2 ? 2n ** 62n + BigInt(i) : i,
    }))
    const encoded = letters.map((l) => deadLetterV1.encode(l))
    const reference = avro.Type.forSchema(JSON.parse(readFileSync(SCHEMA_DIR + 'dead-letter.v1.avsc', 'utf8')), { registry: {} })
    encoded.forEach((buf, i) => {
      expect(deadLetterV1.decode(buf)).toEqual(letters[i])
      if (i % 2 === 0) expect(buf.equals(reference.toBuffer(letters[i]))).toBe(true)
    })
  })

  it('writes and reads longs as with a fresh 8-byte buffer per long, numbers while they are safe integers', () => {
    // The long type as it was before one buffer served every long written.
    const eightBytes = avro.types.LongType.__with({
      fromBuffer: (buf: Buffer) => {
        const v = buf.readBigInt64LE()
        return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
      },
      toBuffer: (n: number | bigint) => {
        const buf = Buffer.alloc(8)
        buf.writeBigInt64LE(BigInt(n))
        return buf
      },
      fromJSON: (v: unknown) => v,
      toJSON: (v: unknown) => v,
      isValid: (n: unknown) => typeof n === 'bigint' || Number.isInteger(n),
      compare: () => 0,
    })
    const schema = JSON.parse(readFileSync(SCHEMA_DIR + 'dead-letter.v1.avsc', 'utf8'))
    const reference = avro.Type.forSchema(schema, { registry: { long: eightBytes } })
    const edges = [0, 1, -1, 63, -64, 64, -65, 2 ** 48 - 1, 2 ** 48, -(2 ** 48), -(2 ** 48) - 1, 2 ** 49, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1.7e12]
    const longs = [...edges, ...edges.map((n) => -n), 2n ** 53n, -(2n ** 53n) - 1n, 1_764_340_000_123_456_789n, 2n ** 63n - 1n, -(2n ** 63n)]
    for (const n of longs) {
      const letter = { org_id: 'o', workspace_id: 'w', source: 's', reason: 'r', payload: '', received_at_ms: 7, original_offset: n }
      const buf = deadLetterV1.encode(letter)
      expect(buf.equals(reference.toBuffer(letter)), String(n)).toBe(true)
      expect(deadLetterV1.decode(buf).original_offset).toBe(typeof n === 'number' ? n + 0 : n)
    }
    expect(() => deadLetterV1.encode({ org_id: 'o', workspace_id: 'w', source: 's', reason: 'r', payload: '', received_at_ms: 7, original_offset: 2n ** 63n })).toThrow(RangeError)
    expect(() => deadLetterV1.encode({ org_id: 'o', workspace_id: 'w', source: 's', reason: 'r', payload: '', received_at_ms: 7, original_offset: 1.5 })).toThrow()

    // Every magnitude, both signs, as number and as bigint, against avsc's own varint (numbers) and the 8-byte reference.
    let seed = 7
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
    for (let i = 0; i < 5000; i++) {
      const bits = 1 + Math.floor(rand() * 63)
      const magnitude = BigInt(Math.floor(rand() * 2 ** 30)) * 2n ** BigInt(Math.max(0, bits - 30)) + BigInt(Math.floor(rand() * 2 ** Math.min(bits, 30)))
      const v = BigInt.asIntN(64, rand() < 0.5 ? -magnitude : magnitude)
      const n = v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
      for (const given of typeof n === 'number' ? [n, v] : [v]) {
        const letter = { org_id: 'o', workspace_id: 'w', source: 's', reason: 'r', payload: '', received_at_ms: 7, original_offset: given }
        const buf = deadLetterV1.encode(letter)
        expect(buf.equals(reference.toBuffer(letter)), String(v)).toBe(true)
        expect(deadLetterV1.decode(buf).original_offset).toBe(n)
        // A span ends with a long: cut inside its varint, the decode refuses the record.
        const span = spanV1.encode({ ...SPAN, received_at_ms: given as number })
        expect(spanV1.decode(span).received_at_ms).toBe(n)
        if (span[span.length - 2]! & 0x80) expect(() => spanV1.decode(span.subarray(0, span.length - 1))).toThrow()
      }
    }
  })
})
