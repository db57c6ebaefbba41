/**
 * The settings pages' pure rules: the engines and what each does, the workspace's own
 * engine switches behind the effective ones the API answers, retention choices and
 * whether a change shortens the window (then it needs a preview's confirm token),
 * cost budgets between the form's text fields and the API's body, and which roles a
 * member may grant.
 */
import { ROLE_RANK, type Role } from './roles'

/** The nine engines, in the order the API lists them (settings.test.ts keeps them equal to shared/bus/topics.ts). */
export const ENGINES: Array<{ name: string; label: string; does: string }> = [
  { name: 'content_reliability', label: 'Content reliability', does: 'Grades each answer: every claim checked against the retrieved context and tool results.' },
  { name: 'decision_trace', label: 'Decision trace', does: 'The decisions an agent took, their alternatives and basis, as a graph.' },
  { name: 'decomposition', label: 'Decomposition', does: 'Splits the request into sub-tasks and measures how much of it was addressed.' },
  { name: 'sources', label: 'Sources', does: 'Which sources backed the answer, their authority and influence.' },
  { name: 'alignment', label: 'Alignment', does: 'Flags outputs that break the workspace’s alignment policy (the policy must be enabled too).' },
  { name: 'correlation', label: 'Correlation', does: 'Optimization findings from patterns across traces.' },
  { name: 'savings', label: 'Savings', does: 'Cheaper models that would have done as well, with the estimated savings.' },
  { name: 'external_crosscheck', label: 'External cross-check', does: 'Checks claims against the open web (needs a search credential; off by default).' },
  { name: 'fleet_monitor', label: 'Fleet monitor', does: 'Daily drift roll-up and anomalies across the workspace’s agents.' },
]

/**
 * The workspace's own switches. GET engine-settings answers effective values (the
 * workspace's switch and the organization's gate together) and lists in
 * gated_by_organization the engines the workspace turned on but its organization
 * holds off; PUT replaces the workspace's map, so those must be sent as on, or
 * saving any other switch would turn them off for good.
 */
export function ownSwitches(s: { engines: Record<string, boolean>; gated_by_organization: string[] }): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const e of ENGINES) out[e.name] = (s.engines[e.name] ?? false) || s.gated_by_organization.includes(e.name)
  return out
}

/** The windows the API accepts (spec: Retention), with their names. */
export const RETENTION_CHOICES: Array<{ hours: number; label: string }> = [
  { hours: 24, label: '24 hours' },
  { hours: 48, label: '48 hours' },
  { hours: 168, label: '7 days' },
  { hours: 336, label: '14 days' },
  { hours: 720, label: '30 days' },
  { hours: 1440, label: '60 days' },
  { hours: 2160, label: '90 days' },
  { hours: 4320, label: '180 days' },
  { hours: 8760, label: '1 year' },
]

export const hoursLabel = (h: number): string => RETENTION_CHOICES.find((c) => c.hours === h)?.label ?? `${h} hours`

/** 'default': the deployment's window (the workspace's own turned off). */
export type RetentionChoice = number | 'default'

export interface RetentionPlan {
  body: { enabled: boolean; hours?: number }
  /** The effective window after the change. */
  after: number
  /** Shortening deletes data: the API wants a preview's confirm token for exactly `after` hours. */
  shortens: boolean
  unchanged: boolean
}

export function retentionPlan(current: { enabled: boolean; effective_hours: number; default_hours: number }, choice: RetentionChoice): RetentionPlan {
  const body = choice === 'default' ? { enabled: false } : { enabled: true, hours: choice }
  const after = choice === 'default' ? current.default_hours : choice
  return { body, after, shortens: after < current.effective_hours, unchanged: after === current.effective_hours && body.enabled === current.enabled }
}

export interface BudgetFields { cap: string; warnPct: string }
export type BudgetForm = { day: BudgetFields; month: BudgetFields }
/** Numbers, or the text typed when it is not one (the API's 422 then names the field). */
type SentBudget = { cap_usd: number | string; warn_pct: number | string }
export type BudgetBody = { budgets: { day?: SentBudget; month?: SentBudget } }

const pctText = (fraction: number) => String(Math.round(fraction * 10000) / 100)

/** The form's fields for a stored budget: the cap in dollars (empty: none), the warning as a percentage of the cap. */
export function budgetForm(b: { day?: { cap_usd: number; warn_pct: number }; month?: { cap_usd: number; warn_pct: number } }): BudgetForm {
  const f = (p?: { cap_usd: number; warn_pct: number }): BudgetFields => (p ? { cap: String(p.cap_usd), warnPct: pctText(p.warn_pct) } : { cap: '', warnPct: '80' })
  return { day: f(b.day), month: f(b.month) }
}

/**
 * The PUT body for the form: a period with an empty cap is left out (the API then
 * clears its cap). Text that is not a number is sent as such, so the API's own 422
 * names the field; the warning percentage becomes the 0-1 fraction the API takes.
 */
export function budgetBody(form: BudgetForm): BudgetBody {
  const out: BudgetBody = { budgets: {} }
  for (const period of ['day', 'month'] as const) {
    const { cap, warnPct } = form[period]
    if (cap.trim() === '') continue
    const capNum = Number(cap)
    const pct = warnPct.trim() === '' ? 80 : Number(warnPct)
    out.budgets[period] = {
      cap_usd: Number.isFinite(capNum) ? capNum : cap,
      warn_pct: Number.isFinite(pct) ? Math.round(pct * 100) / 10000 : warnPct,
    }
  }
  return out
}

/** Roles a member may grant: none above their own (docs/api.md "Roles and scopes"). */
export function grantableRoles(mine: Role | null): Role[] {
  if (!mine) return []
  return (Object.keys(ROLE_RANK) as Role[]).filter((r) => ROLE_RANK[r] <= ROLE_RANK[mine])
}

/** A member's roles in words: organization-wide first, then each workspace's. */
export function describeRoles(m: { role: Role | null; workspace_roles: Array<{ slug: string; role: Role }> }): string {
  const parts = m.role ? [`${m.role} (organization)`] : []
  for (const w of m.workspace_roles) parts.push(`${w.role} in ${w.slug}`)
  return parts.join(', ') || 'no role'
}
