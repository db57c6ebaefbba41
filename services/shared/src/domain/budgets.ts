/**
 * Cost budgets of a workspace: caps per day and per month (UTC), each with a warn
 * threshold. Advisory only: crossing a threshold raises an alert, never blocks.
 * The cost_budget setting's schema is in the settings catalog (control/settings.ts).
 */
export const BUDGET_PERIODS = ['day', 'month'] as const
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number]
export const DEFAULT_WARN_PCT = 0.8

export interface PeriodBudget {
  cap_usd: number
  warn_pct: number
}

/** Start of the UTC day and month containing `nowMs`. */
export function periodStarts(nowMs: number): Record<BudgetPeriod, Date> {
  const d = new Date(nowMs)
  return { day: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())), month: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) }
}

/** The thresholds a spend has reached: [] below warn, ['warn'] from warn_pct × cap, ['warn', 'cap'] from the cap. */
export function crossedLevels(spendUsd: number, b: PeriodBudget): Array<'warn' | 'cap'> {
  const out: Array<'warn' | 'cap'> = []
  if (spendUsd >= b.warn_pct * b.cap_usd) out.push('warn')
  if (spendUsd >= b.cap_usd) out.push('cap')
  return out
}
