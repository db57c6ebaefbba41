import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../log.js'
import { createStore } from '../index.js'
import { migrate } from '../migrate.js'
import type { Store } from '../types.js'
import { reconcileTraceTotals, storedSpans } from './trace-totals.js'

const log = createLogger({ level: 'silent' })
const WS = '66666666-6666-4666-8666-666666666666'
const NOW_MS = Date.now()

const span = (trace: string, n: number, firstDelivery: 0 | 1, cost = 0.25, input = 10, output = 2) => ({
  org_id: '11111111-1111-4111-8111-111111111111',
  workspace_id: WS,
  project_id: 'p',
  trace_id: trace,
  span_id: String(n).padStart(16, '0'),
  parent_span_id: '',
  name: 'chat',
  kind: 'CLIENT',
  start_time: String(BigInt(NOW_MS - 60_000 + n) * 1_000_000n),
  end_time: String(BigInt(NOW_MS - 59_000 + n) * 1_000_000n),
  duration_ns: '1000000000',
  status_code: 'OK',
  status_message: '',
  service_name: 's',
  scope_name: 's',
  model: 'gpt-4o',
  input_tokens: input,
  output_tokens: output,
  cost_usd: cost,
  is_llm: 1,
  resource_attributes: {},
  attributes: {},
  json_attribute_keys: [],
  events: '[]',
  links: '[]',
  received_at: String(NOW_MS),
  expires_at: Math.floor(NOW_MS / 1000) + 86400,
  first_delivery: firstDelivery,
})

let dir: string
let store: Store
const totals = async (trace: string, table = 'traces_v1') =>
  (
    await store.query<{ n: number; c: number; i: number; o: number }>(
      `SELECT sum(span_count) AS n, sum(cost_usd_total) AS c, sum(input_tokens) AS i, sum(output_tokens) AS o FROM ${table} WHERE workspace_id = {ws:UUID} AND trace_id = {t:String}`,
      { ws: WS, t: trace },
    )
  ).map((r) => ({ n: Number(r.n), c: Number(r.c), i: Number(r.i), o: Number(r.o) }))[0]

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-totals-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('trace totals', () => {
  const LOST = 'a'.repeat(32)
  const DOUBLE = 'b'.repeat(32)
  const FINE = 'c'.repeat(32)

  it('counts first deliveries only, through the view', async () => {
    await store.insert('spans_v1', [span(FINE, 1, 1), span(FINE, 2, 1)])
    await store.insert('spans_v1', [span(FINE, 2, 0)])
    expect(await totals(FINE)).toEqual({ n: 2, c: 0.5, i: 20, o: 4 })
  })

  it('lists what is stored per trace', async () => {
    const got = await storedSpans(store, [{ workspace_id: WS, trace_id: FINE }])
    expect(got.map((s) => s.span_id).sort()).toEqual(['0000000000000001', '0000000000000002'])
    expect(await storedSpans(store, [{ workspace_id: WS, trace_id: 'f'.repeat(32) }])).toEqual([])
  })

  it('treats a trace whose view insert was lost as new, so its replay is counted afresh', async () => {
    const ORPHAN = 'd'.repeat(32)
    await store.insert('spans_v1', [span(ORPHAN, 1, 1)])
    // The crash case: the spans_v1 part landed, the traces_v1 part did not.
    await store.command('ALTER TABLE traces_v1 DELETE WHERE trace_id = {t:String} SETTINGS mutations_sync = 1', { t: ORPHAN })
    expect(await storedSpans(store, [{ workspace_id: WS, trace_id: ORPHAN }])).toEqual([])
    await store.insert('spans_v1', [span(ORPHAN, 1, 1)])
    expect(await totals(ORPHAN)).toEqual({ n: 1, c: 0.25, i: 10, o: 2 })
  })

  it('looks a replayed trace up in spans_v1 itself: its traces_v1 part may be lost while a roll-up counted its spans', async () => {
    const LOST_TOTALS = 'e'.repeat(32)
    await store.insert('spans_v1', [span(LOST_TOTALS, 1, 1)])
    await store.command('ALTER TABLE traces_v1 DELETE WHERE trace_id = {t:String} SETTINGS mutations_sync = 1', { t: LOST_TOTALS })
    const ref = { workspace_id: WS, trace_id: LOST_TOTALS }
    expect(await storedSpans(store, [ref])).toEqual([])
    expect((await storedSpans(store, [ref], [ref])).map((s) => s.span_id)).toEqual(['0000000000000001'])
  })

  it('restores sums lost with a view insert, and removes sums counted twice, idempotently', async () => {
    // A replay after the view's part was lost: every copy now looks like a repeat.
    await store.insert('spans_v1', [span(LOST, 1, 0), span(LOST, 2, 0, 0.5, 7, 1)])
    // A span counted twice (its first copy's view insert survived, its row did not, then it was replayed).
    await store.insert('spans_v1', [span(DOUBLE, 1, 1), span(DOUBLE, 1, 1)])
    expect(await totals(LOST)).toMatchObject({ n: 0 })
    expect(await totals(DOUBLE)).toMatchObject({ n: 2 })

    const refs = [LOST, DOUBLE, FINE].map((trace_id) => ({ workspace_id: WS, trace_id }))
    expect(await reconcileTraceTotals(store, refs)).toBe(2)
    expect(await totals(LOST)).toEqual({ n: 2, c: 0.75, i: 17, o: 3 })
    expect(await totals(DOUBLE)).toEqual({ n: 1, c: 0.25, i: 10, o: 2 })
    expect(await totals(FINE)).toEqual({ n: 2, c: 0.5, i: 20, o: 4 })
    expect(await reconcileTraceTotals(store, refs)).toBe(0)

    // The correction rows leave start, end and project as they were.
    const [t] = await store.query<{ s: string; p: string }>(
      `SELECT toString(toUnixTimestamp64Nano(min(trace_start))) AS s, any(project_id) AS p FROM traces_v1 WHERE workspace_id = {ws:UUID} AND trace_id = {t:String}`,
      { ws: WS, t: LOST },
    )
    expect(t).toEqual({ s: String(BigInt(NOW_MS - 60_000 + 1) * 1_000_000n), p: 'p' })
  })

  it('restores the sums of the trace list\'s copy when the crash fell between traces_v1\'s part and the copy\'s', async () => {
    const COPY_LOST = '9'.repeat(32)
    await store.insert('spans_v1', [span(COPY_LOST, 1, 1), span(COPY_LOST, 2, 1)])
    await store.command('ALTER TABLE trace_list_v1 DELETE WHERE trace_id = {t:String} SETTINGS mutations_sync = 1', { t: COPY_LOST })
    // The replay: its spans are stored, so they come as repeats and add no sums anywhere.
    await store.insert('spans_v1', [span(COPY_LOST, 1, 0), span(COPY_LOST, 2, 0)])
    expect(await totals(COPY_LOST)).toEqual({ n: 2, c: 0.5, i: 20, o: 4 })
    expect(await totals(COPY_LOST, 'trace_list_v1')).toEqual({ n: 0, c: 0, i: 0, o: 0 })
    // The list's candidate rows go with the copy's correction (the list leaves out
    // traces none of whose candidate rows has the filter's project).
    await store.command('ALTER TABLE trace_starts_v1 DELETE WHERE trace_id = {t:String} SETTINGS mutations_sync = 1', { t: COPY_LOST })

    const refs = [{ workspace_id: WS, trace_id: COPY_LOST }]
    expect(await reconcileTraceTotals(store, refs)).toBe(1)
    expect(await totals(COPY_LOST, 'trace_list_v1')).toEqual({ n: 2, c: 0.5, i: 20, o: 4 })
    const starts = await store.query<{ s: string; p: string }>(
      `SELECT toString(toUnixTimestamp64Nano(trace_start)) AS s, project_id AS p FROM trace_starts_v1 WHERE workspace_id = {ws:UUID} AND trace_id = {t:String}`,
      { ws: WS, t: COPY_LOST },
    )
    expect(starts).toEqual([{ s: String(BigInt(NOW_MS - 60_000 + 1) * 1_000_000n), p: 'p' }])
    expect(await totals(COPY_LOST)).toEqual({ n: 2, c: 0.5, i: 20, o: 4 })
    expect(await reconcileTraceTotals(store, refs)).toBe(0)
  })
})
