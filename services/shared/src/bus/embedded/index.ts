import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../../log.js'
import type { Bus, ConsumedRecord, ProducedRecordMeta, SubscribeOptions, Subscription, TopicSpec } from '../types.js'
import { partitionForKey } from './framing.js'
import { GroupOffsets } from './group-offsets.js'
import { PartitionLog, type Cursor } from './partition-log.js'

export interface EmbeddedBusOptions {
  /** Root of the log: one directory per topic, one per partition, segment files inside. */
  dir: string
  /** Retention of topics that do not set their own. */
  retentionHours?: number
  segmentBytes?: number
  log?: Logger
}

interface Topic {
  spec: Required<Pick<TopicSpec, 'name' | 'partitions'>> & { retentionMs: number }
  partitions: PartitionLog[]
  roundRobin: number
}

const GROUPS_DIR = '__consumer_offsets'
const RETENTION_CHECK_MS = 10 * 60_000

/**
 * The one-machine bus: Kafka's model (topics, partitions, offsets, consumer groups,
 * at-least-once delivery) on local files. A produce resolves only after fdatasync;
 * group offsets survive restarts; a torn tail from a crash is cut off at open.
 *
 * Scope: one process owns the directory. A group has one member, which reads every
 * partition (there is nobody to balance with).
 */
export async function createEmbeddedBus(opts: EmbeddedBusOptions): Promise<Bus> {
  await mkdir(opts.dir, { recursive: true })
  const segmentBytes = opts.segmentBytes ?? 64 << 20
  const defaultRetentionMs = (opts.retentionHours ?? 24) * 3600_000
  const topics = new Map<string, Topic>()
  const groups = await GroupOffsets.open(join(opts.dir, GROUPS_DIR))
  const subscriptions = new Set<Subscription>()
  let closed = false

  async function openTopic(spec: Topic['spec']): Promise<Topic> {
    const partitions: PartitionLog[] = []
    for (let p = 0; p < spec.partitions; p++) {
      const { log, truncatedBytes } = await PartitionLog.open(join(opts.dir, spec.name, String(p)), segmentBytes)
      if (truncatedBytes > 0) opts.log?.warn({ topic: spec.name, partition: p, truncatedBytes }, 'cut a torn tail left by a crash (unacknowledged writes)')
      partitions.push(log)
    }
    const topic = { spec, partitions, roundRobin: 0 }
    topics.set(spec.name, topic)
    return topic
  }

  // Topics created by an earlier run open eagerly, so offsets and subscriptions work before ensureTopics.
  for (const name of await readdir(opts.dir)) {
    if (name === GROUPS_DIR) continue
    const meta = await readFile(join(opts.dir, name, 'topic.json'), 'utf8').catch(() => null)
    if (meta) await openTopic(JSON.parse(meta) as Topic['spec'])
  }

  const topic = (name: string): Topic => {
    const t = topics.get(name)
    if (!t) throw new Error(`unknown topic ${name} (create it with ensureTopics)`)
    return t
  }

  const retentionTimer = setInterval(() => {
    for (const t of topics.values())
      for (const p of t.partitions)
        p.enforceRetention(t.spec.retentionMs).catch((err) => opts.log?.warn({ err, topic: t.spec.name }, 'retention failed'))
  }, RETENTION_CHECK_MS)
  retentionTimer.unref()

  async function subscribe(o: SubscribeOptions): Promise<Subscription> {
    const maxRecords = o.maxBatchRecords ?? 1000
    const parts: Array<{ topic: string; partition: number; log: PartitionLog; cursor: Cursor }> = []
    for (const name of o.topics) {
      const t = topic(name)
      for (const [partition, log] of t.partitions.entries()) {
        const committed = o.ephemeral ? undefined : groups.get(o.group, name, partition)
        const start = committed ?? (o.ephemeral || o.fromBeginning ? log.startOffset : log.endOffset)
        parts.push({ topic: name, partition, log, cursor: await log.seek(start) })
      }
    }
    const ctx = { closing: false }
    let wake!: () => void
    const closeSignal = new Promise<void>((r) => (wake = r))

    const deliver = async (records: ConsumedRecord[]) => {
      for (let attempt = 0; !ctx.closing; attempt++) {
        try {
          await o.onBatch(records, ctx)
          return true
        } catch (err) {
          const delay = Math.min(5000, 200 * 2 ** Math.min(attempt, 5))
          opts.log?.warn({ err, group: o.group, topic: records[0]?.topic, records: records.length, retryInMs: delay }, 'batch handler failed; redelivering')
          await Promise.race([new Promise((r) => setTimeout(r, delay)), closeSignal])
        }
      }
      return false
    }

    // One loop per partition, as Kafka consumers run partitions concurrently: a slow
    // handler on one partition (an insert in flight) lets the others decode meanwhile,
    // while each partition's records stay strictly in order.
    const consume = async (p: (typeof parts)[number]) => {
      while (!ctx.closing) {
        const advanced = p.log.nextAdvance()
        const before = { ...p.cursor }
        const framed = await p.log.read(p.cursor, maxRecords)
        if (framed.length === 0) {
          await Promise.race([advanced, closeSignal])
          continue
        }
        const records = framed.map((r) => ({ topic: p.topic, partition: p.partition, offset: r.offset.toString(), key: r.key, value: r.value, timestamp: r.timestamp }))
        if (!(await deliver(records))) {
          Object.assign(p.cursor, before)
          break
        }
        // A lost commit only means redelivery after a restart (at-least-once), so it must not stop the consumer.
        if (!o.ephemeral) await groups.commit(o.group, p.topic, p.partition, p.cursor.offset).catch((err) => opts.log?.warn({ err, group: o.group }, 'offset commit failed'))
      }
    }
    const loop = Promise.all(parts.map(consume)).catch((err) => opts.log?.error({ err, group: o.group }, 'embedded consumer stopped'))

    const sub: Subscription = {
      ready: Promise.resolve(),
      async close() {
        if (ctx.closing) return
        ctx.closing = true
        wake()
        await loop
        subscriptions.delete(sub)
      },
    }
    subscriptions.add(sub)
    return sub
  }

  return {
    kind: 'embedded',
    async ensureTopics(specs) {
      for (const s of specs) {
        if (topics.has(s.name)) continue
        const spec = { name: s.name, partitions: s.partitions, retentionMs: s.retentionMs ?? defaultRetentionMs }
        await mkdir(join(opts.dir, s.name), { recursive: true })
        await writeFile(join(opts.dir, s.name, 'topic.json'), JSON.stringify(spec))
        await openTopic(spec)
      }
    },
    async produce(name, records): Promise<ProducedRecordMeta[]> {
      if (closed) throw new Error('bus is closed')
      const t = topic(name)
      const n = t.partitions.length
      const byPartition = new Map<number, number[]>()
      records.forEach((r, i) => {
        const p = r.key === null ? t.roundRobin++ % n : partitionForKey(r.key, n)
        let list = byPartition.get(p)
        if (!list) byPartition.set(p, (list = []))
        list.push(i)
      })
      const metas: ProducedRecordMeta[] = new Array(records.length)
      await Promise.all(
        [...byPartition].map(async ([p, idx]) => {
          const offsets = await t.partitions[p]!.append(idx.map((i) => ({ key: records[i]!.key === null ? null : Buffer.from(records[i]!.key!), value: records[i]!.value })))
          idx.forEach((i, j) => (metas[i] = { topic: name, partition: p, offset: offsets[j]!.toString() }))
        }),
      )
      return metas
    },
    subscribe,
    async endOffsets(name) {
      return new Map(topic(name).partitions.map((p, i) => [i, p.endOffset.toString()]))
    },
    async committedOffsets(group, name) {
      const out = new Map<number, string>()
      topic(name).partitions.forEach((_, i) => {
        const v = groups.get(group, name, i)
        if (v !== undefined) out.set(i, v.toString())
      })
      return out
    },
    async close() {
      if (closed) return
      closed = true
      clearInterval(retentionTimer)
      await Promise.all([...subscriptions].map((s) => s.close()))
      for (const t of topics.values()) for (const p of t.partitions) await p.close()
    },
  }
}
