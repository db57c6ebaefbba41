import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { settingEvent } from '@svc/shared/control/settings'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { PER_TRACE_TABLES, TRACE_INDEX_TABLES } from '@svc/shared/store/queries/retention'
import { retentionSweeper } from './retention-sweeper.js'

const ORG = stableUuid('org:s')
const SHORT = stableUuid('ws:short')
const LONG = stableUuid('ws:long')
const DERIVED = stableUuid('ws:derived')
const HOUR = 3_600_000
let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 't', at_ms: 1, event_id: String(n++) }) as ControlEvent
const state = new ControlState()
let store: Store

const span = (ws: string, trace: string, spanId: string, ageHours: number) => {
  const start = BigInt(Date.now() - ageHours * HOUR) * 1_000_000n
  return { org_id: ORG, workspace_id: ws, project_id: 'p', trace_id: trace, span_id: spanId, parent_span_id: '', name: 's', kind: 'INTERNAL', start_time: start.toString(), end_time: start.toString(), received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 3600 * 24 * 400 }
}
const count = async (table: string, ws: string) => Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE workspace_id = {ws:UUID}`, { ws }))[0]!.n)

beforeAll(async () => {
  state.apply(ev('org.created', { org_id: ORG, slug: 's', name: 's' }))
  for (const [id, slug] of [[SHORT, 'short'], [LONG, 'long'], [DERIVED, 'derived']]) state.apply(ev('workspace.created', { workspace_id: id, org_id: ORG, slug, name: slug }))
  for (const ws of [SHORT, DERIVED]) state.apply(ev('workspace.setting_set', settingEvent(ws, 'retention', { enabled: true, hours: 24, updated_at_ms: 1 }).payload))
  const log = createLogger({ level: 'silent' })
  store = await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'sweep-')) }), log)
  await migrate(store, log)
  await store.insert('spans_v1', [
    span(SHORT, 'a'.repeat(32), '1'.repeat(16), 72), span(SHORT, 'a'.repeat(32), '2'.repeat(16), 72),
    span(SHORT, 'b'.repeat(32), '3'.repeat(16), 1),
    span(LONG, 'c'.repeat(32), '4'.repeat(16), 72),
  ])
})
afterAll(() => store?.close())

describe('retention sweeper', () => {
  it('deletes spans and trace rows outside each workspace window, once per hour across processes', async () => {
    const cache = createMemoryCache()
    const sweeper = retentionSweeper({ store, state, cache, defaultHours: 720, log: createLogger({ level: 'silent' }) })
    const other = retentionSweeper({ store, state, cache, defaultHours: 720, log: createLogger({ level: 'silent' }) })
    const now = Date.now()
    const [mine, theirs] = await Promise.all([sweeper.sweepOnce(now), other.sweepOnce(now)])
    expect([mine, theirs].filter((r) => r === null)).toHaveLength(1)
    expect(mine ?? theirs).toEqual([expect.objectContaining({ workspace_id: SHORT, hours: 24, spans_deleted: 2, traces_deleted: 1 })])
    expect(await count('spans_v1', SHORT)).toBe(1)
    expect(await count('traces_v1', SHORT)).toBe(1)
    // The default window (30 days) keeps the 3-day-old span of the other workspace.
    expect(await count('spans_v1', LONG)).toBe(1)
    expect(await sweeper.sweepOnce(now + HOUR)).toEqual([])
  })

  it('skips a deleted workspace', async () => {
    await store.insert('spans_v1', [span(SHORT, 'e'.repeat(32), '5'.repeat(16), 72)])
    state.apply(ev('workspace.deleted', { workspace_id: SHORT }))
    const sweeper = retentionSweeper({ store, state, cache: createMemoryCache(), defaultHours: 720, log: createLogger({ level: 'silent' }) })
    expect(await sweeper.sweepOnce()).toEqual([])
  })
})

describe('retention sweeper, what derives from traces', () => {
  const OLD = 'a1'.repeat(16)
  const STRADDLER = 'a2'.repeat(16)
  const NEW = 'a3'.repeat(16)
  /** Derived rows of a trace the sweeps before this one deleted (spans and trace rows only). */
  const ORPHAN = 'a4'.repeat(16)
  /** Derived rows without a trace row, but too recent to tell they are left over. */
  const UNCONFIRMED = 'a5'.repeat(16)
  const ago = (hours: number) => String(Date.now() - hours * HOUR)
  const far = Math.floor(Date.now() / 1000) + 400 * 24 * 3600
  const derived = (trace: string, ageHours: number) => ({
    trace_scores_v1: { workspace_id: DERIVED, trace_id: trace, grade: 'A', grade_rank: 7, score: 90, scorer_version: 'v', scored_at: ago(ageHours), expires_at: far },
    engine_results_v1: { workspace_id: DERIVED, trace_id: trace, engine: 'decision_trace', engine_version: 'v', mode: 'deterministic', payload: '{}', computed_at: ago(ageHours), expires_at: far },
    alignment_flags_v1: { workspace_id: DERIVED, trace_id: trace, flag_id: 'f', doc_id: 'd', policy_excerpt: 'p', agent_output: `output of ${trace}`, severity: 'high', confidence: 0.9, unclear: 0, end_user: 'u', mode: 'deterministic', computed_at: ago(ageHours), expires_at: far },
    trace_completions_v1: { workspace_id: DERIVED, trace_id: trace, last_received_at: ago(ageHours), span_count: 1, completed_at: ago(ageHours) },
    trace_sources_v1: { workspace_id: DERIVED, trace_id: trace, analysed_at: ago(ageHours), domains: ['kb'], kinds: ['internal_kb'], citations: [1], supported: [1], unsupported: [0], last_seen: [ago(ageHours)], expires_at: far },
    engine_skips_v1: { workspace_id: DERIVED, trace_id: trace, engine: 'content_reliability', reason: 'backlog', sample_rate: 0.5, skipped_at: ago(ageHours), expires_at: far },
  })
  const traceIds = async (table: string) =>
    (await store.query<{ t: string }>(`SELECT DISTINCT trace_id AS t FROM ${table} WHERE workspace_id = {ws:UUID} ORDER BY t`, { ws: DERIVED })).map((r) => r.t)

  it('deletes a trace outside the window whole, with every row derived from it, and dead letters received before the cutoff', async () => {
    await store.insert('spans_v1', [
      span(DERIVED, OLD, '1'.repeat(16), 72),
      span(DERIVED, STRADDLER, '2'.repeat(16), 30), span(DERIVED, STRADDLER, '3'.repeat(16), 1),
      span(DERIVED, NEW, '4'.repeat(16), 1),
    ])
    for (const [trace, age] of [[OLD, 70], [STRADDLER, 1], [NEW, 1], [ORPHAN, 60], [UNCONFIRMED, 1]] as const)
      for (const [table, row] of Object.entries(derived(trace, age))) await store.insert(table, [row])
    const deadLetter = (ws: string, ageHours: number, offset: number) => ({ org_id: ORG, workspace_id: ws, source: 'ingest.otlp', reason: 'r', payload: '{}', received_at: ago(ageHours), dlq_topic: 't', dlq_partition: 0, dlq_offset: offset })
    await store.insert('dead_letters_v1', [deadLetter(DERIVED, 72, 1), deadLetter(DERIVED, 1, 2), deadLetter(LONG, 72, 3)])

    const sweeper = retentionSweeper({ store, state, cache: createMemoryCache(), defaultHours: 720, log: createLogger({ level: 'silent' }) })
    const swept = (await sweeper.sweepOnce())?.find((r) => r.workspace_id === DERIVED)
    expect(swept?.rows_deleted).toEqual({ spans_v1: 3, traces_v1: 2, trace_scores_v1: 3, trace_grades_v1: 3, engine_results_v1: 3, alignment_flags_v1: 3, trace_completions_v1: 3, trace_sources_v1: 3, engine_skips_v1: 3, dead_letters_v1: 1 })

    expect(await traceIds('spans_v1')).toEqual([NEW])
    expect(await traceIds('traces_v1')).toEqual([NEW])
    for (const table of TRACE_INDEX_TABLES) expect(await traceIds(table), table).toEqual([NEW])
    for (const table of [...Object.keys(derived(NEW, 0)), 'trace_grades_v1']) expect(await traceIds(table), table).toEqual([NEW, UNCONFIRMED])
    const letters = async (ws: string) => Number((await store.query<{ n: string }>('SELECT count() AS n FROM dead_letters_v1 WHERE workspace_id = {ws:String}', { ws }))[0]!.n)
    expect(await letters(DERIVED)).toBe(1)
    expect(await letters(LONG)).toBe(1)
  }, 30_000)

  it('lists every table keyed by trace, so none is left out of the sweep', async () => {
    const keyed = await store.query<{ table: string }>(
      `SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'trace_id'
         AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree') ORDER BY table`,
      {},
    )
    expect(keyed.map((r) => r.table)).toEqual([...Object.keys(PER_TRACE_TABLES), ...TRACE_INDEX_TABLES, 'spans_v1', 'traces_v1'].sort())
  })
})
