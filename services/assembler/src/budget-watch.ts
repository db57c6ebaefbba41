/**
 * The budget watch: every minute, for each workspace with a cost budget, compare
 * the day and month spend with the caps and raise each crossed threshold once per
 * period instance: a BudgetAlert record on budget.alerts.v1 and a warning in the log.
 * "Once" holds across processes and restarts through a cache key per workspace,
 * period instance and level. Nothing here can block ingest.
 */
import { budgetAlertV1, type BudgetAlertRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import { settingOf } from '@svc/shared/control/settings'
import type { ControlState } from '@svc/shared/control/state'
import { BUDGET_PERIODS, crossedLevels, periodStarts } from '@svc/shared/domain/budgets'
import type { Logger } from '@svc/shared/log'
import { workspaceSpend } from '@svc/shared/store/queries/spend'
import type { Store } from '@svc/shared/store/types'

const KEEP_MS = 40 * 24 * 3_600_000

export function budgetWatch(deps: { bus: Bus; store: Store; state: ControlState; cache: Cache; log: Logger }) {
  const { bus, store, state, cache, log } = deps

  async function checkOnce(nowMs = Date.now()): Promise<BudgetAlertRecord[]> {
    const starts = periodStarts(nowMs)
    const raised: BudgetAlertRecord[] = []
    for (const ws of state.activeWorkspaces()) {
      const budgets = settingOf(state, ws.id, 'cost_budget')
      if (!budgets.day && !budgets.month) continue
      const spend = await workspaceSpend(store, ws.id, starts)
      for (const period of BUDGET_PERIODS) {
        const b = budgets[period]
        if (!b) continue
        const periodStart = starts[period].toISOString().slice(0, 10)
        for (const level of crossedLevels(spend[period], b)) {
          if (!(await cache.setIfAbsent(`svc:budget-alert:${ws.id}:${period}:${periodStart}:${level}`, String(nowMs), KEEP_MS))) continue
          const alert: BudgetAlertRecord = { org_id: ws.org_id, workspace_id: ws.id, period, period_start: periodStart, level, spend_usd: spend[period], cap_usd: b.cap_usd, warn_pct: b.warn_pct, raised_at_ms: nowMs }
          try {
            await bus.produce(TOPICS.budgetAlerts, [{ key: ws.id, value: budgetAlertV1.encode(alert) }])
          } catch (err) {
            // Not raised after all: let the next check try again.
            await cache.del(`svc:budget-alert:${ws.id}:${period}:${periodStart}:${level}`)
            throw err
          }
          log.warn(alert, level === 'cap' ? 'cost budget cap reached' : 'cost budget warning threshold reached')
          raised.push(alert)
        }
      }
    }
    return raised
  }

  return { checkOnce }
}
