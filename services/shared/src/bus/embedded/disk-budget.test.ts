/**
 * The embedded log's disk budget on real files: past 80% of it, segments every
 * reader has consumed go first (oldest first), never a record some group has not
 * committed, never a topic kept forever; what remains is reported against the
 * budget, which is what ingest refuses new records on.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Bus, ConsumedRecord } from '../types.js'
import { createEmbeddedBus } from './index.js'

const open: Bus[] = []
const dirs: string[] = []
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'embedded-budget-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
async function bus(dir: string, maxBytes?: number) {
  const b = await createEmbeddedBus({ dir, segmentBytes: 2048, maxBytes })
  open.push(b)
  return b
}
const segments = (dir: string, topic: string) => readdirSync(join(dir, topic, '0')).filter((f) => f.endsWith('.log')).sort()

/** One produce per record: each flush may start a segment, so 500-byte records make segments of ~5. */
async function produceEach(b: Bus, topic: string, from: number, n: number) {
  for (let i = from; i < from + n; i++) await b.produce(topic, [{ key: null, value: Buffer.from(`${i}:`.padEnd(500, 'x')) }])
}

/** Reads with `group` until `n` records arrived, then closes (the group's offsets committed). */
async function consume(b: Bus, group: string, topic: string, n: number, opts: { ephemeral?: boolean } = {}): Promise<ConsumedRecord[]> {
  const got: ConsumedRecord[] = []
  let done!: () => void
  const all = new Promise<void>((r) => (done = r))
  const sub = await b.subscribe({ group, topics: [topic], fromBeginning: true, ...opts, onBatch: async (rs) => {
    got.push(...rs)
    if (got.length >= n) done()
  } })
  await all
  await sub.close()
  return got
}

describe('embedded log disk budget', () => {
  it('deletes consumed segments oldest first, keeps every record a group has not committed, and reports the rest against the budget', async () => {
    const dir = newDir()
    const b1 = await bus(dir)
    await b1.ensureTopics([{ name: 'spans.v1', partitions: 1 }, { name: 'unread.v1', partitions: 1 }, { name: 'control.v1', partitions: 1, retentionMs: -1 }])
    await produceEach(b1, 'spans.v1', 0, 20)
    expect((await consume(b1, 'assembler', 'spans.v1', 20)).length).toBe(20)
    await produceEach(b1, 'spans.v1', 20, 20)
    await produceEach(b1, 'unread.v1', 0, 20)
    await produceEach(b1, 'control.v1', 0, 20)
    const before = b1.diskUsage!().bytes
    const spanSegments = segments(dir, 'spans.v1')
    expect(spanSegments.length).toBeGreaterThan(4)
    await b1.close()

    // Reopened with a budget far below what is there: everything that can go goes at once.
    const b2 = await bus(dir, 4096)
    const after = b2.diskUsage!()
    expect(after.maxBytes).toBe(4096)
    expect(after.bytes).toBeLessThan(before)
    expect(after.bytes).toBeGreaterThanOrEqual(after.maxBytes) // the unconsumed rest: ingest refuses
    const kept = segments(dir, 'spans.v1')
    expect(kept.length).toBeLessThan(spanSegments.length)
    // The oldest kept segment starts at or before the group's committed offset (20): nothing unconsumed went.
    expect(BigInt(kept[0]!.slice(0, 20))).toBeGreaterThan(0n)
    expect(BigInt(kept[0]!.slice(0, 20))).toBeLessThanOrEqual(20n)
    const resumed = await consume(b2, 'assembler', 'spans.v1', 20)
    expect(resumed.map((r) => Number(r.offset))).toEqual(Array.from({ length: 20 }, (_, i) => 20 + i))
    expect(resumed.map((r) => r.value.toString().split(':')[0])).toEqual(Array.from({ length: 20 }, (_, i) => String(20 + i)))
    // A topic nobody reads keeps only its active segment; a topic kept forever keeps everything.
    expect(segments(dir, 'unread.v1').length).toBe(1)
    expect((await consume(b2, 'fold', 'control.v1', 20, { ephemeral: true })).length).toBe(20)
  })

  it('deletes nothing while under 80% of the budget', async () => {
    const dir = newDir()
    const b1 = await bus(dir)
    await b1.ensureTopics([{ name: 'spans.v1', partitions: 1 }])
    await produceEach(b1, 'spans.v1', 0, 20)
    await consume(b1, 'assembler', 'spans.v1', 20)
    const n = segments(dir, 'spans.v1').length
    const bytes = b1.diskUsage!().bytes
    await b1.close()
    const b2 = await bus(dir, Math.ceil(bytes / 0.8) + 1)
    expect(segments(dir, 'spans.v1').length).toBe(n)
    expect(b2.diskUsage!().bytes).toBe(bytes)
  })

  it('keeps what a live subscription has read but not yet committed', async () => {
    const dir = newDir()
    const b = await bus(dir, 4096)
    await b.ensureTopics([{ name: 'spans.v1', partitions: 1 }, { name: 'unread.v1', partitions: 1 }])
    // A new group whose first batch is stuck in its handler: nothing of it is committed yet.
    let release!: () => void
    const stuck = new Promise<void>((r) => (release = r))
    const sub = await b.subscribe({ group: 'slow', topics: ['spans.v1'], fromBeginning: true, onBatch: () => stuck })
    await produceEach(b, 'spans.v1', 0, 30)
    await produceEach(b, 'unread.v1', 0, 30)
    const spanSegments = segments(dir, 'spans.v1').length
    expect(spanSegments).toBeGreaterThan(1)
    // The budget check (every second) has run once the unread topic is down to its active segment.
    for (let i = 0; i < 400 && segments(dir, 'unread.v1').length > 1; i++) await new Promise((r) => setTimeout(r, 25))
    expect(segments(dir, 'unread.v1').length).toBe(1)
    expect(segments(dir, 'spans.v1').length).toBe(spanSegments)
    release()
    await sub.close()
  })
})
