import { spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { Bus, ConsumedRecord } from '../types.js'
import { createEmbeddedBus } from './index.js'

const open: Bus[] = []
const newDir = () => mkdtempSync(join(tmpdir(), 'embedded-bus-'))
async function bus(dir: string, segmentBytes?: number) {
  const b = await createEmbeddedBus({ dir, segmentBytes })
  open.push(b)
  return b
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()))
})

const rec = (key: string | null, value: string) => ({ key, value: Buffer.from(value) })

/** Subscribes and collects until `n` records arrived. */
async function collect(b: Bus, group: string, topics: string[], n: number, extra: { fromBeginning?: boolean; ephemeral?: boolean } = {}) {
  const got: ConsumedRecord[] = []
  let done!: () => void
  const all = new Promise<void>((r) => (done = r))
  const sub = await b.subscribe({ group, topics, ...extra, onBatch: async (rs) => {
    got.push(...rs)
    if (got.length >= n) done()
  } })
  await sub.ready
  return { got, all, sub }
}

describe('embedded bus', () => {
  it('assigns increasing offsets per partition and keeps a key on one partition, in order', async () => {
    const b = await bus(newDir())
    await b.ensureTopics([{ name: 't', partitions: 3 }])
    const metas = await b.produce('t', Array.from({ length: 30 }, (_, i) => rec(`k${i % 4}`, `v${i}`)))
    const byKey = new Map<string, Set<number>>()
    metas.forEach((m, i) => {
      const k = `k${i % 4}`
      byKey.set(k, (byKey.get(k) ?? new Set()).add(m.partition))
    })
    for (const parts of byKey.values()) expect(parts.size).toBe(1)
    const { got, all, sub } = await collect(b, 'g', ['t'], 30, { fromBeginning: true })
    await all
    await sub.close()
    for (let k = 0; k < 4; k++) {
      const values = got.filter((r) => r.key?.toString() === `k${k}`).map((r) => Number(r.value.toString().slice(1)))
      expect(values).toEqual([...values].sort((x, y) => x - y))
    }
    const ends = await b.endOffsets('t')
    expect([...ends.values()].reduce((s, v) => s + Number(v), 0)).toBe(30)
  })

  it('starts a new group at the end unless fromBeginning, and resumes a group at its committed offset across restarts', async () => {
    const dir = newDir()
    const b1 = await bus(dir)
    await b1.ensureTopics([{ name: 't', partitions: 1 }])
    await b1.produce('t', [rec(null, 'old')])
    const latest = await collect(b1, 'late', ['t'], 1)
    const first = await collect(b1, 'g', ['t'], 2, { fromBeginning: true })
    await b1.produce('t', [rec(null, 'new')])
    await Promise.all([latest.all, first.all])
    expect(latest.got.map((r) => r.value.toString())).toEqual(['new'])
    expect(first.got.map((r) => r.value.toString())).toEqual(['old', 'new'])
    await first.sub.close()
    expect(await b1.committedOffsets('g', 't')).toEqual(new Map([[0, '2']]))
    await b1.produce('t', [rec(null, 'after-close')])
    await b1.close()

    const b2 = await bus(dir)
    const again = await collect(b2, 'g', ['t'], 1, { fromBeginning: true })
    await again.all
    await new Promise((r) => setTimeout(r, 50))
    expect(again.got.map((r) => r.value.toString())).toEqual(['after-close'])
  })

  it('redelivers a batch whose handler failed and commits only after success', async () => {
    const b = await bus(newDir())
    await b.ensureTopics([{ name: 't', partitions: 1 }])
    await b.produce('t', [rec(null, 'a'), rec(null, 'b')])
    const seen: string[][] = []
    let done!: () => void
    const ok = new Promise<void>((r) => (done = r))
    const sub = await b.subscribe({ group: 'g', topics: ['t'], fromBeginning: true, onBatch: async (rs) => {
      seen.push(rs.map((r) => r.value.toString()))
      if (seen.length === 1) {
        expect(await b.committedOffsets('g', 't')).toEqual(new Map())
        throw new Error('sink down')
      }
      done()
    } })
    await ok
    await sub.close()
    expect(seen).toEqual([['a', 'b'], ['a', 'b']])
    expect(await b.committedOffsets('g', 't')).toEqual(new Map([[0, '2']]))
  })

  it('counts a batch\'s backlog when asked: records produced while it is handled are behind it', async () => {
    const b = await bus(newDir())
    await b.ensureTopics([{ name: 't', partitions: 1 }])
    await b.produce('t', [rec(null, 'a'), rec(null, 'b'), rec(null, 'c')])
    const backlogs: Array<[number | undefined, number | undefined]> = []
    let done!: () => void
    const ok = new Promise<void>((r) => (done = r))
    const sub = await b.subscribe({ group: 'g', topics: ['t'], fromBeginning: true, maxBatchRecords: 2, onBatch: async (rs, ctx) => {
      const before = ctx.backlog
      if (backlogs.length === 0) await b.produce('t', [rec(null, 'd'), rec(null, 'e'), rec(null, 'f')])
      backlogs.push([before, ctx.backlog])
      if (rs.at(-1)!.value.toString() === 'f') done()
    } })
    await ok
    await sub.close()
    expect(backlogs).toEqual([[1, 4], [2, 2], [0, 0]])
  })

  it('gives ephemeral subscriptions the whole log and never commits for them', async () => {
    const b = await bus(newDir())
    await b.ensureTopics([{ name: 'control', partitions: 1, retentionMs: -1 }])
    await b.produce('control', [rec(null, '1'), rec(null, '2')])
    const eph = await collect(b, 'fold', ['control'], 2, { ephemeral: true })
    await eph.all
    await eph.sub.close()
    expect(eph.got.map((r) => r.value.toString())).toEqual(['1', '2'])
    expect(await b.committedOffsets('fold', 'control')).toEqual(new Map())
  })

  it('rolls segments and reads across them, also when records are larger than a read chunk', async () => {
    const dir = newDir()
    const b = await bus(dir, 4096)
    await b.ensureTopics([{ name: 't', partitions: 1 }])
    const big = 'x'.repeat(5 << 20)
    for (let i = 0; i < 50; i++) await b.produce('t', [rec(null, `r${i}-${'y'.repeat(300)}`)])
    await b.produce('t', [rec(null, big)])
    const segments = readdirSync(join(dir, 't', '0')).filter((f) => f.endsWith('.log'))
    expect(segments.length).toBeGreaterThan(3)
    const c = await collect(b, 'g', ['t'], 51, { fromBeginning: true })
    await c.all
    expect(c.got.map((r) => Number(r.offset))).toEqual(Array.from({ length: 51 }, (_, i) => i))
    expect(c.got[50]!.value.length).toBe(big.length)
  })

  it('cuts a torn tail at open and keeps every complete record', async () => {
    const dir = newDir()
    const b1 = await bus(dir)
    await b1.ensureTopics([{ name: 't', partitions: 1 }])
    await b1.produce('t', [rec('k', 'one'), rec('k', 'two')])
    await b1.close()
    const seg = join(dir, 't', '0', readdirSync(join(dir, 't', '0')).find((f) => f.endsWith('.log'))!)
    const size = statSync(seg).size
    appendFileSync(seg, Buffer.from([0, 0, 0, 40, 1, 2, 3]))

    const b2 = await bus(dir)
    expect(statSync(seg).size).toBe(size)
    expect(await b2.endOffsets('t')).toEqual(new Map([[0, '2']]))
    const [m] = await b2.produce('t', [rec('k', 'three')])
    expect(m!.offset).toBe('2')
    const c = await collect(b2, 'g', ['t'], 3, { fromBeginning: true })
    await c.all
    expect(c.got.map((r) => r.value.toString())).toEqual(['one', 'two', 'three'])
  })

  it('rejects produce to an unknown topic', async () => {
    const b = await bus(newDir())
    await expect(b.produce('nope', [rec(null, 'x')])).rejects.toThrow(/unknown topic/)
  })

  it('keeps every acknowledged record when the producing process is killed with SIGKILL', async () => {
    const dir = newDir()
    const child = spawn(process.execPath, ['--import', 'tsx', join(dirname(fileURLToPath(import.meta.url)), 'test-support', 'producer-child.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (out.split('\n').length > 3000) {
          clearInterval(t)
          child.kill('SIGKILL')
          resolve()
        }
      }, 20)
      child.on('exit', (code) => code !== null && code !== 0 && reject(new Error(`producer exited ${code}`)))
    })
    await new Promise((r) => child.on('close', r))
    const acked = out.split('\n').filter((l) => /^\d+:\d+:value-\d+$/.test(l)).map((l) => l.split(':'))
    expect(acked.length).toBeGreaterThan(3000)

    const b = await bus(dir)
    const ends = await b.endOffsets('crash')
    const total = [...ends.values()].reduce((s, v) => s + Number(v), 0)
    const c = await collect(b, 'verify', ['crash'], total, { fromBeginning: true })
    await c.all
    const stored = new Map(c.got.map((r) => [`${r.partition}:${r.offset}`, r.value.toString()]))
    for (const [p, o, v] of acked) expect(stored.get(`${p}:${o}`)).toBe(v)
    for (const [p, end] of ends) {
      const offsets = c.got.filter((r) => r.partition === p).map((r) => Number(r.offset))
      expect(offsets).toEqual(Array.from({ length: Number(end) }, (_, i) => i))
    }
  }, 60_000)
})
