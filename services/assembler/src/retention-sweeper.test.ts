import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { retentionSweeper } from './retention-sweeper.js'

const ORG = stableUuid('org:s')
const SHORT = stableUuid('ws:short')
const LONG = stableUuid('ws:long')
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
  for (const [id, slug] of [[SHORT, 'short'], [LONG, 'long']]) state.apply(ev('workspace.created', { workspace_id: id, org_id: ORG, slug, name: slug }))
  state.apply(ev('workspace.setting_set', { workspace_id: SHORT, name: 'retention', value: { enabled: true, hours: 24, updated_at_ms: 1 } }))
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
