import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { budgetAlertV1, type BudgetAlertRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import type { ControlEvent } from '@svc/shared/control/events'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { budgetWatch } from './budget-watch.js'
import { eventually } from '@svc/shared/test-support/eventually'

const ORG = stableUuid('org:b')
const WS = stableUuid('ws:b')
let n = 0
const ev = (type: ControlEvent['type'], payload: unknown) => ({ type, payload, actor: 't', at_ms: 1, event_id: String(n++) }) as ControlEvent
const state = new ControlState()
let store: Store
let bus: Bus

const spend = (trace: string, cost: number) => {
  const start = BigInt(Date.now()) * 1_000_000n
  return { org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: trace.slice(0, 16), parent_span_id: '', name: 'chat', kind: 'CLIENT', start_time: start.toString(), end_time: start.toString(), cost_usd: cost, received_at: String(Date.now()), expires_at: Math.floor(Date.now() / 1000) + 86400 }
}
async function alerts(): Promise<BudgetAlertRecord[]> {
  const out: BudgetAlertRecord[] = []
  const end = Number((await bus.endOffsets(TOPICS.budgetAlerts)).get(0))
  if (end === 0) return out
  const sub = await bus.subscribe({ group: `read-${n++}`, topics: [TOPICS.budgetAlerts], ephemeral: true, fromBeginning: true, onBatch: async (rs) => void out.push(...rs.map((r) => budgetAlertV1.decode(r.value))) })
  await eventually(async () => out.length >= end, 10_000, 10).finally(() => sub.close())
  return out
}

beforeAll(async () => {
  state.apply(ev('org.created', { org_id: ORG, slug: 'b', name: 'b' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'b', name: 'b' }))
  state.apply(ev('workspace.setting_set', { workspace_id: WS, name: 'cost_budget', value: { day: { cap_usd: 10, warn_pct: 0.5 } } }))
  const log = createLogger({ level: 'silent' })
  const dir = mkdtempSync(join(tmpdir(), 'budget-watch-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics([{ name: TOPICS.budgetAlerts, partitions: 1 }])
})
afterAll(async () => {
  await bus?.close()
  await store?.close()
})

describe('budget watch', () => {
  it('raises warn, then cap, each once per period instance, on the alerts topic', async () => {
    const watch = budgetWatch({ bus, store, state, cache: createMemoryCache(), log: createLogger({ level: 'silent' }) })
    await store.insert('spans_v1', [spend('1'.repeat(32), 4)])
    expect(await watch.checkOnce()).toEqual([])
    await store.insert('spans_v1', [spend('2'.repeat(32), 2)])
    expect((await watch.checkOnce()).map((a) => a.level)).toEqual(['warn'])
    expect(await watch.checkOnce()).toEqual([])
    await store.insert('spans_v1', [spend('3'.repeat(32), 5)])
    const capped = await watch.checkOnce()
    expect(capped).toEqual([expect.objectContaining({ workspace_id: WS, period: 'day', level: 'cap', spend_usd: 11, cap_usd: 10, warn_pct: 0.5 })])
    expect(capped[0]!.period_start).toBe(new Date().toISOString().slice(0, 10))
    expect((await alerts()).map((a) => a.level)).toEqual(['warn', 'cap'])
    // The next day is a new period instance.
    expect(await watch.checkOnce(Date.now() + 86_400_000)).toEqual([])
  })
})
