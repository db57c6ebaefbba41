/**
 * patches/kafkajs@2.2.4.patch rewrites how kafkajs encodes a produce request (one
 * buffer written in one pass instead of an Encoder per record, batch, partition and
 * topic copied into each other; varints written in place; a slice-by-8 CRC-32C).
 * The broker must receive exactly the bytes the library sent before: this pins them
 * to the unpatched library's output for a request that takes every path (null and
 * string keys, string and binary values, headers, explicit timestamps, several
 * partitions and topics), and reads the batches back with kafkajs's own decoder.
 * Consuming, it works a record's offset and timestamp out in doubles where they are
 * far inside 2^53 (Long objects otherwise): checked here against BigInt arithmetic on
 * both sides of that line.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { describe, expect, it, vi } from 'vitest'

const require = createRequire(import.meta.url)
const kafkajsSrc = (path: string) => require(`kafkajs/src/${path}`)
const produceRequest = kafkajsSrc('protocol/requests/produce/v3/request.js')
const framedRequest = kafkajsSrc('protocol/request.js')
const Long = kafkajsSrc('utils/long.js')
const Decoder = kafkajsSrc('protocol/decoder.js')
const decodeRecordBatch = kafkajsSrc('protocol/recordBatch/v0/decoder.js')
const crc32C = kafkajsSrc('protocol/recordBatch/crc32C/index.js')
const { RecordBatch } = kafkajsSrc('protocol/recordBatch/v0/index.js')
const Record = kafkajsSrc('protocol/recordBatch/record/v0/index.js')

interface Message {
  key: string | null
  value: string | Buffer
  timestamp?: number
  headers?: Record<string, string | Array<string | Buffer>>
}

const NOW = 1_764_400_000_123

function messages(n: number, seed: string): Message[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 7 === 0 ? null : `ws-${seed}:trace-${i % 5}`,
    value: i % 3 === 0 ? `value é ${i}` : Buffer.alloc(100 + i * 37, i),
    ...(i % 11 === 0 ? { timestamp: 1_764_400_000_000 + i * 1000 } : {}),
    ...(i % 13 === 0 ? { headers: { a: `h${i}`, b: ['x', Buffer.from('y')] } } : {}),
  }))
}

const topicData = [
  {
    topic: 'spans.raw.v1',
    partitions: [
      { partition: 0, firstSequence: 5, messages: messages(40, 'a') },
      { partition: 3, firstSequence: 0, messages: messages(3, 'b') },
    ],
  },
  { topic: 'engine.jobs', partitions: [{ partition: 1, firstSequence: 9, messages: messages(1, 'c') }] },
]

async function encode(): Promise<Buffer> {
  vi.spyOn(Date, 'now').mockReturnValue(NOW)
  try {
    const request = produceRequest({ acks: -1, timeout: 30_000, transactionalId: null, producerId: Long.fromNumber(4242), producerEpoch: 1, compression: 0, topicData })
    return (await framedRequest({ correlationId: 77, clientId: 'svc', request })).buffer
  } finally {
    vi.restoreAllMocks()
  }
}

describe('the patched kafkajs produce encoding', () => {
  it('sends the bytes the unpatched library sent', async () => {
    const bytes = await encode()
    expect(bytes.length).toBe(23_032)
    // sha256 of the same request encoded by unpatched kafkajs 2.2.4.
    expect(createHash('sha256').update(bytes).digest('hex')).toBe('bfeb98a63a9b18892ab44214f226108860418e3ad5699cb93b90d6199bb11b9e')
  })

  it('writes batches kafkajs reads back, record by record, with their CRC', async () => {
    const d = new Decoder(await encode())
    d.readInt32() // size
    d.readInt16() // api key
    d.readInt16() // api version
    d.readInt32() // correlation id
    d.readString() // client id
    d.readString() // transactional id
    d.readInt16() // acks
    d.readInt32() // timeout
    const topics = d.readInt32()
    for (let t = 0; t < topics; t++) {
      expect(d.readString()).toBe(topicData[t]!.topic)
      const partitions = d.readInt32()
      for (let p = 0; p < partitions; p++) {
        const sent = topicData[t]!.partitions[p]!
        expect(d.readInt32()).toBe(sent.partition)
        const batchBytes = d.readBytes()
        // CRC-32C covers the batch from its attributes (offset 21) to its end.
        expect(batchBytes.readUInt32BE(17)).toBe(crc32C(batchBytes.subarray(21)))
        const batch = await decodeRecordBatch(new Decoder(batchBytes))
        expect(batch.records.map((r: { key: Buffer | null; value: Buffer; offset: string }) => [r.key?.toString() ?? null, r.value.toString('hex'), r.offset])).toEqual(
          sent.messages.map((m, i) => [m.key, Buffer.from(m.value).toString('hex'), String(i)]),
        )
        const withHeaders = batch.records.find((r: { headers: Record<string, unknown> }) => Object.keys(r.headers).length > 0)
        expect(withHeaders.headers.a.toString()).toBe('h0')
        expect(withHeaders.headers.b.map(String)).toEqual(['x', 'y'])
        const stamped = sent.messages.map((m) => m.timestamp).filter((x): x is number => x !== undefined)
        expect(batch.firstTimestamp).toBe(String(stamped.length ? Math.min(...stamped) : NOW))
      }
    }
  })

  it('computes CRC-32C (Castagnoli) at every length the 8-byte loop and its tail meet', () => {
    // Check value of the CRC catalogue for '123456789', then lengths 0-17 against a bitwise reference.
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283)
    const bitwise = (b: Buffer) => {
      let crc = ~0
      for (const byte of b) {
        crc ^= byte
        for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1
      }
      return ~crc >>> 0
    }
    const data = Buffer.from(Array.from({ length: 17 }, (_, i) => (i * 73 + 11) & 0xff))
    for (let n = 0; n <= data.length; n++) expect(crc32C(data.subarray(0, n))).toBe(bitwise(data.subarray(0, n)))
  })

  it('reads offsets and timestamps as Long arithmetic gives them, small deltas and large, below 2^53 and above', async () => {
    // 2^30 to 2^31: the encoder's int32 zigzag overflows a signed 32-bit shift there and must still write the right bytes.
    const deltas = [0, 1, 127, 128, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 30 + 5, 2 ** 31 - 1, -(2 ** 31), 2 ** 35, -1, -300]
    for (const firstOffset of ['0', '123456', '9007199254740000', '123456789012345678'])
      for (const firstTimestamp of [NOW, -1, 2 ** 40]) {
        const records = deltas.map((timestampDelta, i) => Record({ offsetDelta: i, timestampDelta, key: null, value: Buffer.from([i]) }))
        const encoded = await RecordBatch({ firstOffset: Long.fromString(firstOffset), firstTimestamp, maxTimestamp: firstTimestamp, records, lastOffsetDelta: records.length - 1 })
        const batch = await decodeRecordBatch(new Decoder(encoded.buffer))
        expect(batch.records.map((r: { offset: string; timestamp: string }) => [r.offset, r.timestamp])).toEqual(
          deltas.map((d, i) => [String(BigInt(firstOffset) + BigInt(i)), String(BigInt(firstTimestamp) + BigInt(d))]),
        )
      }
  })
})
