/**
 * The latency drill-down (phaseTraces) read from phase_traces_v1, against a
 * reference computed here from the spans themselves: traces spread over several
 * inserts (several rows each), redelivered spans, traces started before the
 * retention floor, and a limit small enough that the first read must widen.
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
import { phaseTraces } from './usage.js'

const log = createLogger({ level: 'silent' })
const WS = '44444444-4444-4444-8444-444444444444'
const HOUR = 3_600_000
// Whole hours, so the window below is one of whole hours as the routes make them.
const NOW = Math.floor(Date.now() / HOUR) * HOUR
const WINDOW = { fromMs: NOW - 24 * HOUR, toMs: NOW + HOUR }

interface Sp { trace: string; id: string; type: string; startMs: number; ms: number; error: boolean }
const spans: Sp[] = []
let store: Store
let dir: string
// A fixed-seed generator keeps the data (and any failure) reproducible.
let seed = 7
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)

const row = (s: Sp, first = 1) => {
  const start = BigInt(s.startMs) * 1_000_000n
  return {
    org_id: '11111111-1111-4111-8111-111111111111', workspace_id: WS, project_id: 'p1', trace_id: s.trace, span_id: s.id, parent_span_id: '', name: s.type, kind: 'INTERNAL',
    start_time: start.toString(), end_time: (start + BigInt(s.ms) * 1_000_000n).toString(), duration_ns: String(s.ms * 1_000_000), status_code: s.error ? 'ERROR' : 'OK',
    span_type: s.type, received_at: String(NOW), expires_at: Math.floor(NOW / 1000) + 86400 * 60, first_delivery: first,
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-usage-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  const inserts: Sp[][] = [[], [], [], []]
  for (let t = 0; t < 120; t++) {
    const trace = t.toString(16).padStart(32, '0')
    // Ten traces started two days ago (before the floor below) but have spans in the window.
    const start = t % 12 === 0 ? NOW - 48 * HOUR : NOW - Math.floor(rand() * 20 * HOUR)
    inserts[0]!.push({ trace, id: `${trace.slice(-8)}00000000`, type: 'agent', startMs: start, ms: 50, error: false })
    for (let i = 1; i <= 6; i++) {
      const s = { trace, id: `${trace.slice(-8)}${String(i).padStart(8, '0')}`, type: i % 3 === 0 ? 'tool' : 'llm', startMs: Math.max(start, NOW - 20 * HOUR) + i * 60_000 + Math.floor(rand() * 3 * HOUR), ms: 1 + Math.floor(rand() * 5000), error: rand() < 0.15 }
      inserts[i % 4]!.push(s)
    }
  }
  // One trace with many slow spans in as many inserts: it alone fills a small first read.
  const busy = 'f'.repeat(32)
  for (let i = 0; i < 40; i++) inserts.push([{ trace: busy, id: `ffffffff${String(i).padStart(8, '0')}`, type: 'llm', startMs: NOW - 2 * HOUR + i * 1000, ms: 9000 + i, error: true }])
  for (const batch of inserts) {
    spans.push(...batch)
    await store.insert('spans_v1', batch.map((s) => row(s)))
  }
  // Redeliveries: the same spans again, marked as repeats.
  await store.insert('spans_v1', inserts[1]!.map((s) => row(s, 0)))
}, 60_000)

afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The drill-down worked out from the spans: hits in the window, traces started at or after the floor. */
function expected(phase: string, metric: 'slow' | 'errors', thresholdMs: number, limit: number, floorMs: number) {
  const starts = new Map<string, number>()
  for (const s of spans) starts.set(s.trace, Math.min(starts.get(s.trace) ?? Infinity, s.startMs))
  const top = new Map<string, number>()
  for (const s of spans) {
    if (s.type !== phase || s.startMs < WINDOW.fromMs || s.startMs >= WINDOW.toMs || starts.get(s.trace)! < floorMs) continue
    if (metric === 'errors' ? !s.error : s.ms < thresholdMs) continue
    top.set(s.trace, Math.max(top.get(s.trace) ?? -Infinity, metric === 'errors' ? s.startMs : s.ms))
  }
  return [...top].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit).map(([t]) => t).sort()
}

describe('phaseTraces', () => {
  const floorMs = NOW - 30 * HOUR
  const run = async (phase: 'llm' | 'tool', metric: 'slow' | 'errors', thresholdMs: number, limit: number, floor = floorMs) =>
    (await phaseTraces(store, { workspaceId: WS, phase, window: WINDOW, metric, thresholdMs, limit, retentionFloorNs: BigInt(floor) * 1_000_000n })).map((t) => t.trace_id).sort()

  it('sees several rows per trace', async () => {
    const [r] = await store.query<{ n: string; t: string }>("SELECT count() AS n, uniqExact(trace_id) AS t FROM phase_traces_v1 WHERE workspace_id = {ws:UUID} AND metric = 'slow' AND phase = 'llm'", { ws: WS })
    expect(Number(r!.n)).toBeGreaterThan(Number(r!.t) + 40)
  })

  it.each([
    ['llm', 'slow', 2000, 100],
    ['llm', 'slow', 0, 3],
    ['llm', 'slow', 4000, 10],
    ['tool', 'slow', 100, 25],
    ['llm', 'errors', 0, 2],
    ['llm', 'errors', 0, 30],
    ['tool', 'errors', 0, 500],
  ] as const)('matches the spans for %s %s (threshold %d ms, limit %d)', async (phase, metric, thresholdMs, limit) => {
    const want = expected(phase, metric, thresholdMs, limit, floorMs)
    expect(want.length).toBeGreaterThan(0)
    expect(await run(phase, metric, thresholdMs, limit)).toEqual(want)
  })

  it('leaves out traces that started before the retention floor, though their spans are in the window', async () => {
    const all = await run('llm', 'slow', 0, 500, 0)
    const kept = await run('llm', 'slow', 0, 500)
    expect(all.length).toBeGreaterThan(kept.length)
    expect(kept).toEqual(expected('llm', 'slow', 0, 500, floorMs))
    expect(all).toEqual(expected('llm', 'slow', 0, 500, 0))
  })
})
