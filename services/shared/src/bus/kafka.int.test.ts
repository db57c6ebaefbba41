import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createLogger } from '../log.js'
import { eventually } from '../test-support/eventually.js'
import { createKafkaBus } from './kafka.js'
import type { Bus, ConsumedRecord, OutgoingRecord, Subscription } from './types.js'

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'warn', name: 'kafka-bus-test' })

const rec = (key: string | null, value: string): OutgoingRecord => ({ key, value: Buffer.from(value) })
const text = (r: ConsumedRecord) => r.value.toString()

describe('kafka bus', () => {
  let bus: Bus
  const subs: Subscription[] = []
  let n = 0
  // Unique names per test: the broker is shared by the whole run.
  const prefix = `${inject('kafkaTopicRoot')}kbt.${Date.now().toString(36)}.${randomUUID().slice(0, 6)}.`
  const unique = (name: string) => `${prefix}${name}.${++n}`

  async function topic(partitions = 1): Promise<string> {
    const name = unique('topic')
    await bus.ensureTopics([{ name, partitions }])
    return name
  }

  async function collect(opts: { group: string; topics: string[]; fromBeginning?: boolean; ephemeral?: boolean; maxBatchRecords?: number }) {
    const got: ConsumedRecord[] = []
    const sub = await bus.subscribe({
      ...opts,
      onBatch: async (records) => {
        got.push(...records)
      },
    })
    subs.push(sub)
    await sub.ready
    return { got, sub }
  }

  beforeAll(async () => {
    bus = await createKafkaBus({ brokers: inject('kafkaBrokers').split(','), clientId: 'kafka-bus-test', log })
  })

  afterAll(async () => {
    await Promise.allSettled(subs.map((s) => s.close()))
    await bus?.close()
  })

  it('is kind kafka', () => {
    expect(bus.kind).toBe('kafka')
  })

  it('ensureTopics creates missing topics and is idempotent', async () => {
    const a = unique('a')
    const b = unique('b')
    await bus.ensureTopics([{ name: a, partitions: 3 }])
    await bus.ensureTopics([
      { name: a, partitions: 3 },
      { name: b, partitions: 1, retentionMs: -1 },
    ])
    // Concurrent creators (several processes starting at once) must not fail either.
    const c = unique('c')
    await Promise.all([bus.ensureTopics([{ name: c, partitions: 2 }]), bus.ensureTopics([{ name: c, partitions: 2 }])])
    expect([...(await bus.endOffsets(a)).keys()].sort()).toEqual([0, 1, 2])
    expect([...(await bus.endOffsets(b)).keys()]).toEqual([0])
    expect([...(await bus.endOffsets(c)).keys()].sort()).toEqual([0, 1])
  })

  it('produce resolves with increasing per-partition offsets and same-key records share a partition', async () => {
    const t = await topic(3)
    const first = await bus.produce(t, [rec('k1', 'a'), rec('k2', 'b'), rec('k1', 'c'), rec(null, 'd'), rec('k1', 'e')])
    expect(first).toHaveLength(5)
    for (const m of first) expect(m.topic).toBe(t)
    const k1 = [first[0]!, first[2]!, first[4]!]
    expect(new Set(k1.map((m) => m.partition)).size).toBe(1)
    // Nothing else writes to the topic: each partition's records get consecutive offsets in send order.
    const perPartition = new Map<number, bigint[]>()
    for (const m of first) perPartition.set(m.partition, [...(perPartition.get(m.partition) ?? []), BigInt(m.offset)])
    for (const offsets of perPartition.values()) expect(offsets).toEqual(offsets.map((_, i) => offsets[0]! + BigInt(i)))

    const second = await bus.produce(t, [rec('k1', 'f')])
    expect(second[0]!.partition).toBe(k1[0]!.partition)
    expect(BigInt(second[0]!.offset)).toBe(BigInt(k1[2]!.offset) + 1n)

    // The high watermark is one past the last offset of each partition.
    const end = await bus.endOffsets(t)
    const lastPerPartition = new Map<number, bigint>()
    for (const m of [...first, ...second]) {
      const o = BigInt(m.offset)
      if ((lastPerPartition.get(m.partition) ?? -1n) < o) lastPerPartition.set(m.partition, o)
    }
    for (const [p, o] of lastPerPartition) expect(end.get(p)).toBe((o + 1n).toString())
    expect(await bus.produce(t, [])).toEqual([])
  })

  it('concurrent produce calls to several topics, sent together, each get the offsets their records were stored at', async () => {
    const [a, b] = [await topic(3), await topic(2)]
    // Forty calls at once: all but the first wait for the request in flight and go out together.
    const calls = Array.from({ length: 40 }, (_, c) => ({
      topic: c % 2 ? a : b,
      records: Array.from({ length: 1 + (c % 5) }, (_, i) => rec(c % 3 ? `k${(c + i) % 7}` : null, `${c}:${i}`)),
    }))
    const produced = await Promise.all(calls.map((c) => bus.produce(c.topic, c.records)))
    const where = new Map<string, string>()
    produced.forEach((metas, c) => metas.forEach((m, i) => where.set(`${calls[c]!.topic}/${calls[c]!.records[i]!.value.toString()}`, `${m.partition}@${m.offset}`)))
    expect(where.size).toBe(calls.reduce((n, c) => n + c.records.length, 0))
    const { got } = await collect({ group: unique('g'), topics: [a, b], ephemeral: true })
    await eventually(() => got.length >= where.size, 20_000)
    expect(new Map(got.map((r) => [`${r.topic}/${text(r)}`, `${r.partition}@${r.offset}`]))).toEqual(where)
  })

  it('tells each batch what is left behind it, and asks the limit per partition before each batch', async () => {
    const t = await topic(1)
    await bus.produce(t, Array.from({ length: 30 }, (_, i) => rec('k', String(i))))
    const batches: Array<{ n: number; last: number; backlog: number | undefined }> = []
    const asked: Array<[string, number]> = []
    const sub = await bus.subscribe({
      group: unique('g'),
      topics: [t],
      fromBeginning: true,
      maxBatchRecords: (topicName, partition) => {
        asked.push([topicName, partition])
        return 7
      },
      onBatch: async (records, ctx) => void batches.push({ n: records.length, last: Number(records[records.length - 1]!.offset), backlog: ctx.backlog }),
    })
    subs.push(sub)
    await eventually(() => batches.reduce((a, b) => a + b.n, 0) >= 30, 20_000)
    for (const b of batches) {
      expect(b.n).toBeLessThanOrEqual(7)
      // Whatever the fetches looked like, what is left after a batch is the rest of the 30.
      expect(b.backlog).toBe(29 - b.last)
    }
    expect(batches[batches.length - 1]!.backlog).toBe(0)
    expect(asked.length).toBeGreaterThanOrEqual(batches.length)
    expect(asked.every(([name, p]) => name === t && p === 0)).toBe(true)
  })

  it('a group receives every record, in order per key, with the produced offsets', async () => {
    const t = await topic(3)
    const { got } = await collect({ group: unique('g'), topics: [t], maxBatchRecords: 7 })
    const records: OutgoingRecord[] = []
    for (let i = 0; i < 60; i++) records.push(rec(`key-${i % 5}`, `${i % 5}:${i}`))
    const meta = await bus.produce(t, records)
    await eventually(() => got.length >= 60, 20_000)
    expect(got).toHaveLength(60)

    const byKey = new Map<string, number[]>()
    for (const r of got) {
      const [k, i] = text(r).split(':')
      expect(r.key?.toString()).toBe(`key-${k}`)
      byKey.set(k!, [...(byKey.get(k!) ?? []), Number(i)])
    }
    for (const seq of byKey.values()) expect(seq).toEqual([...seq].sort((a, b) => a - b))

    const produced = new Map(meta.map((m, i) => [`${m.partition}@${m.offset}`, text({ value: records[i]!.value } as ConsumedRecord)]))
    for (const r of got) {
      expect(produced.get(`${r.partition}@${r.offset}`)).toBe(text(r))
      expect(r.topic).toBe(t)
      expect(Math.abs(r.timestamp - Date.now())).toBeLessThan(60_000)
    }
  })

  it('commits after onBatch, so the same group resumes after what it handled', async () => {
    const t = await topic(2)
    const group = unique('g')
    const first = await collect({ group, topics: [t], fromBeginning: true })
    await bus.produce(t, [rec('a', '1'), rec('b', '2'), rec('a', '3')])
    await eventually(() => first.got.length >= 3, 20_000)
    await first.sub.close()

    const end = await bus.endOffsets(t)
    const committed = await bus.committedOffsets(group, t)
    for (const [p, high] of end) if (high !== '0') expect(committed.get(p)).toBe(high)

    await bus.produce(t, [rec('a', '4')])
    const second = await collect({ group, topics: [t], fromBeginning: true })
    await eventually(() => second.got.length >= 1, 20_000)
    // Give stray redeliveries a moment to show up before asserting there are none.
    await new Promise((r) => setTimeout(r, 500))
    expect(second.got.map(text)).toEqual(['4'])
  })

  it('a rejecting onBatch gets the same records again and nothing is committed meanwhile', async () => {
    const t = await topic(1)
    const group = unique('g')
    const calls: string[][] = []
    let failures = 2
    const sub = await bus.subscribe({
      group,
      topics: [t],
      fromBeginning: true,
      onBatch: async (records) => {
        calls.push(records.map(text))
        if (failures > 0) {
          failures--
          throw new Error('downstream unavailable')
        }
      },
    })
    subs.push(sub)
    await sub.ready
    await bus.produce(t, [rec('k', 'x'), rec('k', 'y')])
    await eventually(() => calls.length >= 3, 20_000)
    // The same records were delivered on every attempt (batching may split them, but never skips).
    expect(calls[0]).toEqual(calls[1])
    expect(calls[1]).toEqual(calls[2])
    await eventually(() => calls.flat().filter((v) => v === 'y').length >= 1 && failures === 0, 20_000)
    await eventually(async () => (await bus.committedOffsets(group, t)).get(0) === '2', 20_000)
  })

  it('an ephemeral subscription reads from the beginning and never commits', async () => {
    const t = await topic(1)
    await bus.produce(t, [rec(null, 'old-1'), rec(null, 'old-2')])
    const group = unique('g')
    const { got, sub } = await collect({ group, topics: [t], ephemeral: true })
    await bus.produce(t, [rec(null, 'new-1')])
    await eventually(() => got.length >= 3, 20_000)
    expect(got.map(text)).toEqual(['old-1', 'old-2', 'new-1'])
    await sub.close()
    expect((await bus.committedOffsets(group, t)).size).toBe(0)
  })

  it('a new group without fromBeginning starts at the end', async () => {
    const t = await topic(1)
    await bus.produce(t, [rec(null, 'before')])
    const { got } = await collect({ group: unique('g'), topics: [t] })
    await bus.produce(t, [rec(null, 'after')])
    await eventually(() => got.length >= 1, 20_000)
    await new Promise((r) => setTimeout(r, 300))
    expect(got.map(text)).toEqual(['after'])
  })

  it('endOffsets and committedOffsets of unknown groups', async () => {
    const t = await topic(2)
    expect(await bus.endOffsets(t)).toEqual(
      new Map([
        [0, '0'],
        [1, '0'],
      ]),
    )
    expect((await bus.committedOffsets(unique('nobody'), t)).size).toBe(0)
  })

  it('close of a subscription is idempotent and sets ctx.closing', async () => {
    const t = await topic(1)
    let seenClosing: boolean | undefined
    let release!: () => void
    const started = new Promise<void>((r) => (release = r))
    const sub = await bus.subscribe({
      group: unique('g'),
      topics: [t],
      fromBeginning: true,
      onBatch: async (_records, ctx) => {
        release()
        while (!ctx.closing) await new Promise((r) => setTimeout(r, 20))
        seenClosing = ctx.closing
      },
    })
    await sub.ready
    await bus.produce(t, [rec(null, 'x')])
    await started
    await Promise.all([sub.close(), sub.close()])
    await sub.close()
    expect(seenClosing).toBe(true)
  })
})
