/**
 * The consumer runner on the real embedded log: poison (undecodable bytes, and a
 * record the handler rejects) ends on `<topic>.dlq`, kept whole and counted, the
 * good records around it are handled, and the batch's offsets are committed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backgroundLane } from '../background-lane.js'
import { createLogger } from '../log.js'
import { processRegistry } from '../metrics.js'
import { eventually } from '../test-support/eventually.js'
import { localLagMs } from './consumer-lag.js'
import { createEmbeddedBus } from './embedded/index.js'
import { alignmentDocumentV1, deadLetterV1, type AlignmentDocumentRecord, type DeadLetterRecord } from './records.js'
import { consumerBatchHandler, runConsumer, type DeadLetter, type Delivered } from './run-consumer.js'
import type { Bus, ConsumedRecord } from './types.js'

const log = createLogger({ level: 'silent' })
const WS = '0d9c3f0e-8a55-4c1e-9a47-0e4f7d2b9a11'
const TOPIC = 'runner.docs.v1'
let dir: string
let bus: Bus

const doc = (id: string): AlignmentDocumentRecord => ({ org_id: 'o', workspace_id: WS, doc_id: id, filename: `${id}.txt`, content_type: 'text/plain', text: id, uploaded_at_ms: 1 })

async function readAll(topic: string): Promise<ConsumedRecord[]> {
  const out: ConsumedRecord[] = []
  const total = [...(await bus.endOffsets(topic)).values()].reduce((a, b) => a + Number(b), 0)
  if (total === 0) return out
  const sub = await bus.subscribe({ group: `read-${Math.random()}`, topics: [topic], ephemeral: true, onBatch: async (rs) => void out.push(...rs) })
  while (out.length < total) await new Promise((r) => setTimeout(r, 5))
  await sub.close()
  return out
}

const metric = async (name: string) => (await processRegistry.getSingleMetricAsString(name)).split('\n')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'run-consumer-'))
  bus = await createEmbeddedBus({ dir })
  await bus.ensureTopics([TOPIC, `${TOPIC}.dlq`, 'runner.other.v1', 'runner.other.v1.dlq'].map((name) => ({ name, partitions: 1 })))
})
afterAll(async () => {
  await bus?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('runConsumer', () => {
  it('dead-letters undecodable and rejected records whole, handles the rest, counts them and commits the batch', async () => {
    const key = `${WS}:d`
    await bus.produce(TOPIC, [
      { key, value: alignmentDocumentV1.encode(doc('a')) },
      { key, value: Buffer.from('not avro at all') },
      { key, value: alignmentDocumentV1.encode(doc('poison')) },
      { key, value: alignmentDocumentV1.encode(doc('b')) },
    ])
    const handled: string[] = []
    const sub = await runConsumer(bus, {
      group: 'runner-test',
      topics: { [TOPIC]: alignmentDocumentV1 },
      log,
      async handle(batch: Array<Delivered<AlignmentDocumentRecord>>) {
        const bad = batch.filter((d) => d.value.doc_id === 'poison')
        for (const d of batch) if (!bad.includes(d)) handled.push(d.value.doc_id)
        return bad.map((d) => ({ record: d.record, reason: 'a poison document (test)', workspaceId: d.value.workspace_id, orgId: d.value.org_id }))
      },
    })
    await eventually(async () => (await bus.committedOffsets('runner-test', TOPIC)).get(0) === '4', 10_000, 5)
    await sub.close()
    expect(handled).toEqual(['a', 'b'])

    const dead = (await readAll(`${TOPIC}.dlq`)).map((r) => ({ key: r.key?.toString(), d: deadLetterV1.decode(r.value) as Required<DeadLetterRecord> }))
    expect(dead).toHaveLength(2)
    expect(dead[0]!.key).toBe(key)
    expect(dead[0]!.d).toMatchObject({ workspace_id: WS, source: 'runner-test', original_topic: TOPIC, original_partition: 0, original_offset: 1 })
    expect(dead[0]!.d.reason).toMatch(/^undecodable alignment-document\.v1\.avsc/)
    expect(dead[0]!.d.original_value.toString()).toBe('not avro at all')
    expect(dead[1]!.d).toMatchObject({ workspace_id: WS, org_id: 'o', reason: 'a poison document (test)', original_offset: 2 })
    expect(alignmentDocumentV1.decode(dead[1]!.d.original_value).doc_id).toBe('poison')

    const deadCounts = await metric('svc_consumer_dead_letters_total')
    expect(deadCounts).toContain(`svc_consumer_dead_letters_total{topic="${TOPIC}",reason="undecodable"} 1`)
    expect(deadCounts).toContain(`svc_consumer_dead_letters_total{topic="${TOPIC}",reason="invalid"} 1`)
    expect(await metric('svc_consumer_records_total')).toContain(`svc_consumer_records_total{group="runner-test",topic="${TOPIC}"} 4`)
    expect((await metric('svc_consumer_batches_total')).some((l) => l.startsWith('svc_consumer_batches_total{group="runner-test"}'))).toBe(true)
    expect((await metric('svc_consumer_handler_duration_seconds')).some((l) => l.startsWith('svc_consumer_handler_duration_seconds_count{group="runner-test"}'))).toBe(true)
  })

  it('delivers the whole batch again after a transient failure, dead-lettering its poison once', async () => {
    await bus.produce('runner.other.v1', [
      { key: null, value: Buffer.from([1, 2, 3]) },
      { key: `${WS}:x`, value: alignmentDocumentV1.encode(doc('c')) },
    ])
    let calls = 0
    const sub = await runConsumer(bus, {
      group: 'runner-retry',
      topics: { 'runner.other.v1': alignmentDocumentV1 },
      log,
      async handle() {
        if (++calls === 1) throw new Error('store unreachable (test)')
      },
    })
    await eventually(async () => (await bus.committedOffsets('runner-retry', 'runner.other.v1')).get(0) === '2', 10_000, 5)
    await sub.close()
    expect(calls).toBe(2)
    const dead = (await readAll('runner.other.v1.dlq')).map((r) => deadLetterV1.decode(r.value))
    expect(dead).toHaveLength(1)
    expect(dead[0]!.workspace_id).toBe('')
    expect(await metric('svc_consumer_batch_failures_total')).toContain('svc_consumer_batch_failures_total{group="runner-retry"} 1')
  })

  it('hands dead letters to the consumer that lands its own, and encodes them as the consumer says', async () => {
    const landed: DeadLetter[] = []
    const handler = consumerBatchHandler(bus, {
      group: 'runner-own',
      topics: { [TOPIC]: alignmentDocumentV1 },
      log,
      handle: async (batch) => batch.map((d) => ({ record: d.record, reason: 'kept failing', cause: 'failed' as const, attempts: 3 })),
      landDeadLetters: async (letters) => void landed.push(...letters),
    })
    const rec = (offset: number, value: Buffer): ConsumedRecord => ({ topic: TOPIC, partition: 0, offset: String(offset), key: Buffer.from(`${WS}:t`), value, timestamp: 5 })
    await handler([rec(10, Buffer.from('x')), rec(11, alignmentDocumentV1.encode(doc('d')))])
    expect(landed.map((d) => [d.record.offset, d.cause, d.attempts, d.workspaceId])).toEqual([
      ['10', 'undecodable', 0, WS],
      ['11', 'failed', 3, WS],
    ])
  })

  it('sizes each batch by the backlog: small while caught up, doubling while behind, back once drained', async () => {
    const topic = 'runner.sizes.v1'
    await bus.ensureTopics([{ name: topic, partitions: 1 }])
    await bus.produce(topic, Array.from({ length: 3000 }, (_, i) => ({ key: `${WS}:s`, value: alignmentDocumentV1.encode(doc(`s${i}`)) })))
    const sizes: number[] = []
    const sub = await runConsumer(bus, {
      group: 'runner-sizes',
      topics: { [topic]: alignmentDocumentV1 },
      maxBatchRecords: 800,
      minBatchRecords: 100,
      log,
      handle: async (batch) => void sizes.push(batch.length),
    })
    await eventually(async () => (await bus.committedOffsets('runner-sizes', topic)).get(0) === '3000', 10_000, 5)
    expect(sizes.slice(0, 5)).toEqual([100, 200, 400, 800, 800])
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(3000)
    // Caught up, a trickle comes in small batches again.
    for (let i = 0; i < 3; i++) {
      await bus.produce(topic, [{ key: `${WS}:s`, value: alignmentDocumentV1.encode(doc(`t${i}`)) }])
      await eventually(async () => (await bus.committedOffsets('runner-sizes', topic)).get(0) === String(3001 + i), 10_000, 5)
    }
    expect(sizes.slice(-3)).toEqual([1, 1, 1])
    await sub.close()
  })

  it('divides the batch bounds of a topic whose records hold several items by how many they hold', async () => {
    const [several, one] = ['runner.several.v1', 'runner.one.v1']
    await bus.ensureTopics([several, one].map((name) => ({ name, partitions: 1 })))
    for (const topic of [several, one]) await bus.produce(topic, Array.from({ length: 3000 }, (_, i) => ({ key: `${WS}:s`, value: alignmentDocumentV1.encode(doc(`s${i}`)) })))
    const sizes = new Map<string, number[]>([[several, []], [one, []]])
    const sub = await runConsumer(bus, {
      group: 'runner-items',
      topics: { [several]: alignmentDocumentV1, [one]: alignmentDocumentV1 },
      maxBatchRecords: 800,
      minBatchRecords: 100,
      itemsPerRecord: { [several]: 4 },
      log,
      handle: async (batch) => void sizes.get(batch[0]!.record.topic)!.push(batch.length),
    })
    for (const topic of [several, one]) await eventually(async () => (await bus.committedOffsets('runner-items', topic)).get(0) === '3000', 10_000, 5)
    expect(sizes.get(several)!.slice(0, 5)).toEqual([25, 50, 100, 200, 200])
    expect(sizes.get(one)!.slice(0, 5)).toEqual([100, 200, 400, 800, 800])
    await sub.close()
  })

  it('knows its lag in time: the age of the oldest record in hand while the handler runs, none once caught up', async () => {
    const topic = 'runner.lag.v1'
    await bus.ensureTopics([{ name: topic, partitions: 1 }])
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let inHandler!: () => void
    const entered = new Promise<void>((r) => (inHandler = r))
    const sub = await runConsumer(bus, {
      group: 'runner-lag',
      topics: { [topic]: alignmentDocumentV1 },
      log,
      async handle() {
        inHandler()
        await held
      },
    })
    const [meta] = await bus.produce(topic, [{ key: `${WS}:l`, value: alignmentDocumentV1.encode(doc('l')) }])
    await entered
    const appendedAt = Date.now()
    await new Promise((r) => setTimeout(r, 20))
    // At least as old as the time since the record was appended (stamped before the produce resolved).
    // The elapsed time is read first: read after the lag, it can be a millisecond later than the lag's own clock.
    const elapsed = Date.now() - appendedAt
    const lag = localLagMs('runner-lag', topic)
    release()
    expect(lag).toBeGreaterThanOrEqual(elapsed)
    await eventually(async () => (await bus.committedOffsets('runner-lag', topic)).get(0) === String(Number(meta!.offset) + 1), 10_000, 5)
    expect(localLagMs('runner-lag', topic)).toBe(0)
    await sub.close()
    expect(localLagMs('runner-lag', topic)).toBeNull()
  })

  it('holds a background consumer\'s batches in its lane while the hot path is busy', async () => {
    const topic = 'runner.lane.v1'
    await bus.ensureTopics([{ name: topic, partitions: 1 }])
    let busy = true
    const handled: string[] = []
    const sub = await runConsumer(bus, {
      group: 'runner-lane',
      topics: { [topic]: alignmentDocumentV1 },
      background: backgroundLane(() => busy, { maxWaitMs: 60_000, pollMs: 5 }),
      log,
      handle: async (batch) => void handled.push(...batch.map((d) => d.value.doc_id)),
    })
    await bus.produce(topic, [{ key: `${WS}:b`, value: alignmentDocumentV1.encode(doc('bg')) }])
    await new Promise((r) => setTimeout(r, 100))
    expect(handled).toEqual([])
    busy = false
    await eventually(async () => (await bus.committedOffsets('runner-lane', topic)).get(0) === '1', 10_000, 5)
    expect(handled).toEqual(['bg'])
    await sub.close()
  })

  it("lets the thread's other work run while a background consumer decodes a big batch, not while the hot path does", async () => {
    const records: ConsumedRecord[] = Array.from({ length: 3000 }, (_, i) => ({
      topic: TOPIC, partition: 0, offset: String(i), key: Buffer.from(`${WS}:y`), value: alignmentDocumentV1.encode(doc(`y${i}`)), timestamp: 1,
    }))
    const ranBeforeHandling = async (background?: ReturnType<typeof backgroundLane>) => {
      let ran = false
      let seen: boolean | undefined
      const handle = consumerBatchHandler<AlignmentDocumentRecord>(bus, {
        group: 'runner-yield',
        topics: { [TOPIC]: alignmentDocumentV1 },
        background,
        log,
        handle: async (batch) => {
          seen = ran
          expect(batch).toHaveLength(records.length)
        },
      })
      setImmediate(() => (ran = true))
      await handle(records)
      return seen
    }
    expect(await ranBeforeHandling(backgroundLane(() => false))).toBe(true)
    expect(await ranBeforeHandling()).toBe(false)
  })

  it('decodes as the handler reads when asked: one record at a time, poison dead-lettered, what it leaves unread decoded after it', async () => {
    const landed: DeadLetter[] = []
    const rec = (offset: number, value: Buffer): ConsumedRecord => ({ topic: TOPIC, partition: 0, offset: String(offset), key: Buffer.from(`${WS}:t`), value, timestamp: 5 })
    const records = [rec(0, alignmentDocumentV1.encode(doc('a'))), rec(1, Buffer.from('x')), rec(2, alignmentDocumentV1.encode(doc('b'))), rec(3, Buffer.from('y')), rec(4, alignmentDocumentV1.encode(doc('c')))]
    let decodes = 0
    const counted = { ...alignmentDocumentV1, decode: (buf: Buffer) => (decodes++, alignmentDocumentV1.decode(buf)) }
    const seen: string[] = []
    const handler = consumerBatchHandler(bus, {
      group: 'runner-as-read',
      topics: { [TOPIC]: counted },
      log,
      decodeAsRead: true,
      handle: async (batch) => {
        for (const d of batch) {
          seen.push(`${d.value.doc_id} after ${decodes} decodes`)
          if (d.value.doc_id === 'b') break
        }
        for (const d of batch) seen.push(`again ${d.value.doc_id}`) // read once: what the first pass read is not read again
      },
      landDeadLetters: async (letters) => void landed.push(...letters),
    })
    await handler(records)
    expect(seen).toEqual(['a after 1 decodes', 'b after 3 decodes', 'again c'])
    expect(decodes).toBe(5)
    expect(landed.map((d) => [d.record.offset, d.cause])).toEqual([['1', 'undecodable'], ['3', 'undecodable']])

    // A handler that stops early: the records it left are decoded after it, and their poison dead-lettered.
    landed.length = 0
    decodes = 0
    const early = consumerBatchHandler(bus, { group: 'runner-as-read', topics: { [TOPIC]: counted }, log, decodeAsRead: true, handle: async () => {}, landDeadLetters: async (letters) => void landed.push(...letters) })
    await early(records)
    expect(decodes).toBe(5)
    expect(landed.map((d) => d.record.offset)).toEqual(['1', '3'])
  })
})
