import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../../log.js'
import type { Bus, ConsumedRecord, DiskUsage, ProducedRecordMeta, SubscribeOptions, Subscription, TopicSpec } from '../types.js'
import { partitionForKey } from './framing.js'
import { GroupOffsets } from './group-offsets.js'
import { PartitionLog, type Cursor } from './partition-log.js'

export interface EmbeddedBusOptions {
  /** Root of the log: one directory per topic, one per partition, segment files inside. */
  dir: string
  /** Retention of topics that do not set their own. */
  retentionHours?: number
  segmentBytes?: number
  /**
   * Disk budget of the whole log (SVC_EMBEDDED_MAX_BYTES). Past 80% of it, segments
   * every reader has consumed are deleted oldest first, before their retention; what
   * is left is unconsumed, and at the budget ingest refuses new records (diskUsage).
   */
  maxBytes?: number
  log?: Logger
}

interface Topic {
  spec: Required<Pick<TopicSpec, 'name' | 'partitions'>> & { retentionMs: number }
  partitions: PartitionLog[]
  roundRobin: number
}

const GROUPS_DIR = '__consumer_offsets'
const RETENTION_CHECK_MS = 10 * 60_000
/** How often the disk budget is checked, and the share of it above which consumed segments are deleted. */
const BUDGET_CHECK_MS = 1000
const RECLAIM_ABOVE = 0.8

/** A subscription's partition: `held` is the oldest offset it may still need (committed, or where it started). */
interface LivePart {
  topic: string
  partition: number
  held: bigint
}

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
  const liveParts = new Set<LivePart>()
  let closed = false

  async function openTopic(spec: Topic['spec']): Promise<Topic> {
    const partitions: PartitionLog[] = []
    for (let p = 0; p < spec.partitions; p++) {
      const { log, truncatedBytes } = await PartitionLog.open(join(opts.dir, spec.name, String(p)), segmentBytes, { topic: spec.name, partition: p })
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

  const diskUsage = (): DiskUsage => {
    let bytes = 0
    for (const t of topics.values()) for (const p of t.partitions) bytes += p.bytes
    return { bytes, maxBytes: opts.maxBytes ?? Infinity }
  }

  /**
   * The oldest offset of a partition some reader may still need: every group's committed
   * offset and every live subscription's (a new group's start before its first commit).
   * A partition nobody reads needs nothing. Topics kept forever are never reclaimed.
   */
  const neededFrom = (topic: string, partition: number, end: bigint): bigint => {
    let min = end
    for (const r of groups.readers(topic, partition)) if (r.offset < min) min = r.offset
    for (const p of liveParts) if (p.topic === topic && p.partition === partition && p.held < min) min = p.held
    return min
  }
  let reclaiming: Promise<void> | null = null
  const reclaim = async () => {
    const max = opts.maxBytes
    if (max === undefined) return
    let bytes = diskUsage().bytes
    while (bytes > max * RECLAIM_ABOVE) {
      let oldest: { log: PartitionLog; lastAppendMs: number } | null = null
      for (const t of topics.values()) {
        if (t.spec.retentionMs < 0) continue
        for (const [partition, log] of t.partitions.entries()) {
          const seg = log.oldestConsumed(neededFrom(t.spec.name, partition, log.endOffset))
          if (seg && (!oldest || seg.lastAppendMs < oldest.lastAppendMs)) oldest = { log, lastAppendMs: seg.lastAppendMs }
        }
      }
      if (!oldest) break
      bytes -= await oldest.log.dropOldest()
    }
    if (bytes >= max) warnFull(bytes, max)
  }
  let warnedAtMs = 0
  const warnFull = (bytes: number, max: number) => {
    if (Date.now() - warnedAtMs < 60_000) return
    warnedAtMs = Date.now()
    // Name who holds the oldest unconsumed records: a consumer that is behind, or a group that no longer runs.
    let h: { topic: string; partition: number; group: string; behind: bigint } | null = null
    for (const t of topics.values())
      for (const [partition, log] of t.partitions.entries())
        for (const r of groups.readers(t.spec.name, partition)) {
          const behind = log.endOffset - r.offset
          if (behind > 0n && (!h || behind > h.behind)) h = { topic: t.spec.name, partition, group: r.group, behind }
        }
    opts.log?.warn({ bytes, max_bytes: max, ...(h ? { topic: h.topic, partition: h.partition, group: h.group, records_behind: Number(h.behind) } : {}) }, 'embedded log at its disk budget (SVC_EMBEDDED_MAX_BYTES): ingest answers 503 until consumers catch up')
  }
  const budgetTimer =
    opts.maxBytes === undefined
      ? undefined
      : setInterval(() => {
          reclaiming ??= reclaim()
            .catch((err) => opts.log?.warn({ err }, 'reclaiming consumed segments failed'))
            .finally(() => (reclaiming = null))
        }, BUDGET_CHECK_MS)
  budgetTimer?.unref()
  await reclaim()

  async function subscribe(o: SubscribeOptions): Promise<Subscription> {
    const limit = o.maxBatchRecords ?? 1000
    const maxRecords = typeof limit === 'number' ? () => limit : limit
    const parts: Array<LivePart & { log: PartitionLog; cursor: Cursor }> = []
    for (const name of o.topics) {
      const t = topic(name)
      for (const [partition, log] of t.partitions.entries()) {
        const committed = o.ephemeral ? undefined : groups.get(o.group, name, partition)
        const start = committed ?? (o.ephemeral || o.fromBeginning ? log.startOffset : log.endOffset)
        const cursor = await log.seek(start)
        parts.push({ topic: name, partition, log, cursor, held: cursor.offset })
      }
    }
    for (const p of parts) liveParts.add(p)
    const ctx = { closing: false }
    let wake!: () => void
    const closeSignal = new Promise<void>((r) => (wake = r))

    const deliver = async (records: ConsumedRecord[], backlog: () => number) => {
      const batchCtx = {
        get closing() {
          return ctx.closing
        },
        get backlog() {
          return backlog()
        },
      }
      for (let attempt = 0; !ctx.closing; attempt++) {
        try {
          await o.onBatch(records, batchCtx)
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
        const records: ConsumedRecord[] = await p.log.read(p.cursor, maxRecords(p.topic, p.partition))
        if (records.length === 0) {
          await Promise.race([advanced, closeSignal])
          continue
        }
        // Counted when asked (after the handler): what arrived while the batch waited in a
        // lane or was handled is behind it too, and is what the next batch's size must meet.
        if (!(await deliver(records, () => Number(p.log.endOffset - p.cursor.offset)))) {
          Object.assign(p.cursor, before)
          break
        }
        const next = p.cursor.offset
        if (o.ephemeral) p.held = next
        // A lost commit only means redelivery after a restart (at-least-once), so it must not stop the consumer.
        else
          await groups.commit(o.group, p.topic, p.partition, next).then(
            () => (p.held = next),
            (err) => opts.log?.warn({ err, group: o.group }, 'offset commit failed'),
          )
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
        for (const p of parts) liveParts.delete(p)
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
          const offsets = await t.partitions[p]!.append(idx.map((i) => records[i]!))
          idx.forEach((i, j) => (metas[i] = { topic: name, partition: p, offset: offsets[j]!.toString() }))
        }),
      )
      return metas
    },
    subscribe,
    diskUsage,
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
      clearInterval(budgetTimer)
      await reclaiming
      await Promise.all([...subscriptions].map((s) => s.close()))
      for (const t of topics.values()) for (const p of t.partitions) await p.close()
    },
  }
}
