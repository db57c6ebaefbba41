import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { createBatchWriter } from './batch-writer.js'
import { createStore } from './index.js'
import { EncodedRows, type RowEncoding } from './row-binary.js'
import type { Store } from './types.js'

const log = createLogger({ level: 'silent' })
let dir: string
let real: Store
/** The real store, counting inserts, with a switch to make the next insert fail. */
let store: Store
let inserts: number[] = []
let failNext = false
let encoding: RowEncoding

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-batch-'))
  real = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await real.command('CREATE TABLE bw (n UInt32, tag String) ENGINE = MergeTree ORDER BY n')
  store = {
    kind: real.kind,
    query: (...a) => real.query(...a),
    command: (...a) => real.command(...a),
    close: () => real.close(),
    insert: (...a) => real.insert(...a),
    rowEncoding: (...a) => real.rowEncoding(...a),
    async insertEncoded(table, parts, opts) {
      if (failNext) {
        failNext = false
        throw new Error('injected insert failure')
      }
      inserts.push(parts.reduce((n, p) => n + p.count, 0))
      await real.insertEncoded(table, parts, opts)
    },
  }
  encoding = (await real.rowEncoding('bw', ['n', 'tag']))!
})

afterAll(async () => {
  await real?.close()
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(async () => {
  await real.command('TRUNCATE TABLE bw')
  inserts = []
  failNext = false
})

/** Rows n = from, from + 1, ... encoded; `firstOf` tells which `from` an encoded part began at. */
const firstOf = new WeakMap<EncodedRows, number>()
const rows = (from: number, n: number, tag = 't') => {
  const encoded = new EncodedRows(encoding)
  for (let i = 0; i < n; i++) encoded.push({ n: from + i, tag })
  firstOf.set(encoded, from)
  return encoded
}
const count = async () => Number((await real.query<{ c: number }>('SELECT count() AS c FROM bw'))[0]?.c)

describe('createBatchWriter', () => {
  it('resolves add() only once its rows are stored', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 1000, flushIntervalMs: 30, log })
    await w.add(rows(0, 3))
    expect(await count()).toBe(3)
    await w.close()
  })

  it('coalesces concurrent adds within the interval into one insert', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 1000, flushIntervalMs: 50, log })
    await Promise.all([w.add(rows(0, 10)), w.add(rows(10, 10)), w.add(rows(20, 10))])
    expect(inserts).toEqual([30])
    expect(await count()).toBe(30)
    await w.close()
  })

  it('inserts a full batch at once without waiting for the interval', async () => {
    // Waiting for the 60 s interval would run into the test's timeout.
    const w = createBatchWriter({ store, table: 'bw', maxRows: 100, flushIntervalMs: 60_000, log })
    await w.add(rows(0, 100))
    expect(inserts).toEqual([100])
    await w.close()
  })

  it('starts a new batch instead of growing one past maxRows', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 100, flushIntervalMs: 20, log })
    await Promise.all([w.add(rows(0, 60)), w.add(rows(60, 60)), w.add(rows(120, 30))])
    expect(inserts).toEqual([60, 90])
    expect(await count()).toBe(150)
    await w.close()
  })

  /** A store whose inserts take 30 ms each, recording how many ran at once and which batch began each. */
  const slowStore = () => {
    const seen = { inFlight: 0, max: 0, begun: [] as number[] }
    const slow: Store = {
      ...store,
      async insertEncoded(table, parts, opts) {
        seen.inFlight++
        seen.max = Math.max(seen.max, seen.inFlight)
        seen.begun.push(firstOf.get(parts[0]!)!)
        await new Promise((res) => setTimeout(res, 30))
        await store.insertEncoded(table, parts, opts)
        seen.inFlight--
      },
    }
    return { slow, seen }
  }

  it('keeps two inserts in flight by default, begun in the order their batches formed', async () => {
    const { slow, seen } = slowStore()
    const w = createBatchWriter({ store: slow, table: 'bw', maxRows: 10, flushIntervalMs: 5, log })
    await Promise.all([0, 10, 20, 30, 40].map((from) => w.add(rows(from, 10))))
    expect(seen.max).toBe(2)
    expect(seen.begun).toEqual([0, 10, 20, 30, 40])
    expect(await count()).toBe(50)
    await w.close()
  })

  it('keeps one insert in flight with maxInFlight 1; adds meanwhile form the next batch', async () => {
    const { slow, seen } = slowStore()
    const w = createBatchWriter({ store: slow, table: 'bw', maxRows: 10, flushIntervalMs: 5, log, maxInFlight: 1 })
    await Promise.all([0, 10, 20].map((from) => w.add(rows(from, 10))))
    expect(seen.max).toBe(1)
    expect(seen.begun).toEqual([0, 10, 20])
    expect(await count()).toBe(30)
    await w.close()
  })

  it('flush() waits for every insert in flight, also one that finishes after a later one', async () => {
    let releaseFirst!: () => void
    const firstHeld = new Promise<void>((res) => (releaseFirst = res))
    const held: Store = {
      ...store,
      async insertEncoded(table, parts, opts) {
        if (firstOf.get(parts[0]!) === 0) await firstHeld
        await store.insertEncoded(table, parts, opts)
      },
    }
    const w = createBatchWriter({ store: held, table: 'bw', maxRows: 10, flushIntervalMs: 60_000, log })
    const adds = [w.add(rows(0, 10)), w.add(rows(10, 10))]
    let flushed = false
    const flushing = w.flush().then(() => (flushed = true))
    await adds[1]
    await new Promise((res) => setTimeout(res, 50))
    expect(flushed).toBe(false)
    releaseFirst()
    await flushing
    await adds[0]
    expect(await count()).toBe(20)
    await w.close()
  })

  it('rejects every add waiting on a failed insert and carries on with the next batch', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 1000, flushIntervalMs: 20, log })
    failNext = true
    const results = await Promise.allSettled([w.add(rows(0, 5)), w.add(rows(5, 5))])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(await count()).toBe(0)
    await w.add(rows(0, 10))
    expect(await count()).toBe(10)
    await w.close()
  })

  it('flush() stores what is pending at once; close() rejects later adds', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 1000, flushIntervalMs: 60_000, log })
    const pending = w.add(rows(0, 7))
    await w.flush()
    await pending
    expect(await count()).toBe(7)
    const late = w.add(rows(7, 1))
    await w.close()
    await late
    expect(await count()).toBe(8)
    await expect(w.add(rows(8, 1))).rejects.toThrow(/closed/)
  })

  it('resolves an empty add at once', async () => {
    const w = createBatchWriter({ store, table: 'bw', maxRows: 10, flushIntervalMs: 60_000, log })
    await w.add(rows(0, 0))
    expect(inserts).toEqual([])
    await w.close()
  })
})
