/** Spend against cost budgets over embedded ClickHouse. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../log.js'
import { createStore } from '../index.js'
import { migrate } from '../migrate.js'
import type { Store } from '../types.js'
import { deleteExpired } from './retention.js'
import { workspaceSpend } from './spend.js'

const WS = '5be0d000-0000-4000-8000-000000000001'
const OTHER = '5be0d000-0000-4000-8000-000000000002'
const HOUR = 3_600_000
const NOW = Math.floor(Date.now() / HOUR) * HOUR
let dir: string
let store: Store

const costSpan = (ws: string, trace: string, startMs: number, cost: number, first: 0 | 1 = 1) => {
  const start = BigInt(startMs) * 1_000_000n
  return {
    org_id: ws, workspace_id: ws, project_id: 'p', trace_id: trace, span_id: `${first}`.repeat(16), parent_span_id: '', name: 'chat', kind: 'CLIENT',
    start_time: start.toString(), end_time: start.toString(), cost_usd: cost, is_llm: 1, received_at: String(Date.now()), expires_at: Math.floor(NOW / 1000) + 86400 * 60, first_delivery: first,
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'spend-'))
  const log = createLogger({ level: 'silent' })
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  await store.insert('spans_v1', [
    costSpan(WS, 'a'.repeat(32), NOW - 30 * 60_000, 1.5),
    // Delivered twice: counts once.
    costSpan(WS, 'a'.repeat(32), NOW - 30 * 60_000, 1.5, 0),
    costSpan(WS, 'b'.repeat(32), NOW - 5 * 24 * HOUR, 2),
    costSpan(WS, 'c'.repeat(32), NOW - 20 * 24 * HOUR, 100),
    costSpan(OTHER, 'd'.repeat(32), NOW - 30 * 60_000, 50),
  ])
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('workspace spend', () => {
  const starts = { day: new Date(NOW - 2 * HOUR), month: new Date(NOW - 10 * 24 * HOUR) }

  it('sums the costs of the period, each span once, this workspace only', async () => {
    expect(await workspaceSpend(store, WS, starts)).toEqual({ day: 1.5, month: 3.5 })
  })

  it('keeps counting what retention has since deleted: a budget period outlives a shorter window', async () => {
    await deleteExpired(store, WS, NOW - 24 * HOUR)
    expect(Number((await store.query<{ n: string }>('SELECT count() AS n FROM spans_v1 WHERE workspace_id = {ws:UUID}', { ws: WS }))[0]!.n)).toBe(2)
    expect(await workspaceSpend(store, WS, starts)).toEqual({ day: 1.5, month: 3.5 })
  })
})
