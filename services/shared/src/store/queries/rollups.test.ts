/**
 * The hourly roll-ups over embedded ClickHouse after a crash between a spans_v1
 * part and its view parts (views detached while the batch's spans are stored,
 * as trace-totals.test.ts does for traces_v1): reconciling the replayed traces
 * makes usage and latency equal a reference computed over the distinct stored
 * spans, and doing it again changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../log.js'
import { createStore } from '../index.js'
import { migrate } from '../migrate.js'
import type { Store } from '../types.js'
import { batchIds, reconcileRollups } from './rollups.js'
import { rollupFigures, rollupReference } from './rollups.testkit.js'

const log = createLogger({ level: 'silent' })
const WS = '3c5e7a90-1b2d-4f6a-8c0e-2a4b6c8d0e1f'
const HOUR = 3_600_000
const H1 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR
const H2 = H1 + HOUR
let dir: string
let store: Store
const nextBatch = batchIds()

type Kind = 'llm' | 'tool' | 'chain'
const span = (trace: string, n: number, hourMs: number, kind: Kind, batch: string, firstDelivery: 0 | 1, durationMs = 100 * n, error = false) => ({
  org_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: WS,
  project_id: kind === 'tool' ? 'tools' : 'p',
  trace_id: trace.repeat(32),
  span_id: String(n).padStart(16, '0'),
  parent_span_id: n === 1 ? '' : '0000000000000001',
  name: kind,
  kind: 'CLIENT',
  start_time: String(BigInt(hourMs + 60_000 * n) * 1_000_000n),
  end_time: String(BigInt(hourMs + 60_000 * n + durationMs) * 1_000_000n),
  duration_ns: String(durationMs * 1_000_000),
  status_code: error ? 'ERROR' : 'OK',
  model: kind === 'llm' ? 'gpt-4o' : '',
  provider: kind === 'llm' ? 'openai' : '',
  span_type: kind,
  input_tokens: kind === 'llm' ? 10 * n : 0,
  output_tokens: kind === 'llm' ? n : 0,
  cache_read_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: kind === 'llm' ? 0.25 * n : 0,
  cost_source: kind === 'llm' ? 'priced' : '',
  is_llm: kind === 'llm' ? 1 : 0,
  received_at: String(Date.now()),
  expires_at: Math.floor(Date.now() / 1000) + 86400,
  first_delivery: firstDelivery,
  batch_id: batch,
})
type Row = ReturnType<typeof span>

/** A crash between the parts: the spans are stored, the named views' parts are not. */
async function storeWithout(views: string[], rows: Row[]) {
  for (const v of views) await store.command(`DETACH TABLE ${v}`)
  try {
    await store.insert('spans_v1', rows)
  } finally {
    for (const v of views) await store.command(`ATTACH TABLE ${v}`)
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-rollups-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('hourly roll-ups after a crash between the parts of an insert', () => {
  const traces = ['a', 'c', 'd'].map((t) => ({ workspace_id: WS, trace_id: t.repeat(32) }))

  it('are short of the lost parts, then exact once the replayed traces are reconciled, and stay so', async () => {
    // A batch that landed whole.
    const a = nextBatch()
    await store.insert('spans_v1', [span('a', 1, H1, 'chain', a, 1), span('a', 2, H1, 'llm', a, 1), span('a', 3, H1, 'llm', a, 1), span('b', 1, H2, 'tool', a, 1, 40, true)])
    // A batch whose roll-up parts were both lost: new spans of trace a, a repeat of one already counted, and a new trace c.
    const b = nextBatch()
    await storeWithout(['usage_hourly_v1_mv', 'latency_hourly_v1_mv'], [
      span('a', 4, H1, 'llm', b, 1), span('a', 5, H1, 'tool', b, 1, 700, true), span('a', 2, H1, 'llm', b, 0),
      span('c', 1, H2, 'chain', b, 1), span('c', 2, H2, 'llm', b, 1, 1500),
    ])
    // A batch whose usage part landed but whose latency part did not.
    const c = nextBatch()
    await storeWithout(['latency_hourly_v1_mv'], [span('d', 1, H1, 'llm', c, 1, 900), span('d', 2, H1, 'tool', c, 1, 30)])

    const before = await rollupFigures(store, WS)
    const reference = await rollupReference(store, WS)
    expect(before.usage).not.toEqual(reference.usage)
    expect(before.latency).not.toEqual(reference.latency)

    await reconcileRollups(store, traces)
    expect(await rollupFigures(store, WS)).toEqual(await rollupReference(store, WS))

    // The replay itself then stores its copies as repeats (they add nothing), and a
    // second reconciliation (a crash before the replay's commit) adds nothing either.
    const replay = nextBatch()
    await store.insert('spans_v1', [span('a', 4, H1, 'llm', replay, 0), span('a', 5, H1, 'tool', replay, 0, 700, true), span('c', 1, H2, 'chain', replay, 0), span('c', 2, H2, 'llm', replay, 0, 1500), span('d', 1, H1, 'llm', replay, 0, 900)])
    await reconcileRollups(store, traces)
    expect(await rollupFigures(store, WS)).toEqual(await rollupReference(store, WS))
  })

  it('counts a lost batch of a trace whose replay arrives in two smaller batches once', async () => {
    const e = nextBatch()
    await storeWithout(['usage_hourly_v1_mv', 'latency_hourly_v1_mv'], [span('e', 1, H2, 'llm', e, 1), span('f', 1, H2, 'llm', e, 1)])
    await reconcileRollups(store, [{ workspace_id: WS, trace_id: 'e'.repeat(32) }])
    await reconcileRollups(store, [{ workspace_id: WS, trace_id: 'f'.repeat(32) }])
    await reconcileRollups(store, [{ workspace_id: WS, trace_id: 'e'.repeat(32) }, { workspace_id: WS, trace_id: 'f'.repeat(32) }])
    expect(await rollupFigures(store, WS)).toEqual(await rollupReference(store, WS))
  })
})

describe('batchIds', () => {
  it('puts the hour first and never repeats within a process', () => {
    const next = batchIds(() => 0.5)
    const ids = Array.from({ length: 70_000 }, () => BigInt(next(H1)))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.every((id) => id >> 32n === BigInt(H1 / HOUR))).toBe(true)
  })
})
