/**
 * Cost budgets of a workspace (advisory): GET shows the caps and the current day
 * and month spend; PUT replaces the whole object (a period left out has no cap).
 * The assembler's budget watch raises the alerts (budget.alerts.v1 and the log).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { SETTINGS, settingOf, writeSetting } from '@svc/shared/control/settings'
import { periodStarts } from '@svc/shared/domain/budgets'
import { unprocessable } from '@svc/shared/http/errors'
import { workspaceSpend } from '@svc/shared/store/queries/spend'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { describeRoute } from '../openapi/registry.js'
import { jsonBody } from './auth.js'

const Body = z.object({ budgets: SETTINGS.cost_budget.schema.describe('a period left out has no cap') }).strict()

const BudgetOut = z.object({
  budgets: z.object({ day: z.object({ cap_usd: z.number(), warn_pct: z.number() }).optional(), month: z.object({ cap_usd: z.number(), warn_pct: z.number() }).optional() }),
  current: z.object({ day_spend_usd: z.number(), month_spend_usd: z.number() }).describe('UTC day and month'),
})

const TAGS = ['Cost budgets']
describeRoute({ route: ROUTES.getCostBudget, summary: 'Get cost budgets and current spend', tags: TAGS, responses: { 200: { description: 'Caps and spend', schema: BudgetOut } } })
describeRoute({
  route: ROUTES.putCostBudget,
  summary: 'Replace cost budgets',
  description: 'Advisory: crossing a threshold raises an alert, nothing is blocked. Values outside the rules answer 422 with the issues in detail.',
  tags: TAGS,
  body: Body,
  responses: { 200: { description: 'Caps and spend', schema: BudgetOut } },
  errors: [422],
})

const round = (usd: number) => Math.round(usd * 1e6) / 1e6

export function budgetRoutes(control: ControlWriter, store: Store): Hono {
  const app = new Hono()
  const { state } = control
  const view = async (wsId: string) => {
    const spend = await workspaceSpend(store, wsId, periodStarts(Date.now()))
    return { budgets: settingOf(state, wsId, 'cost_budget'), current: { day_spend_usd: round(spend.day), month_spend_usd: round(spend.month) } }
  }

  mount(app, ROUTES.getCostBudget, state, async (c) => c.json(await view(targetWorkspace(c).id)))

  mount(app, ROUTES.putCostBudget, state, async (c) => {
    const ws = targetWorkspace(c)
    const parsed = Body.safeParse(await jsonBody(c, z.unknown()))
    if (!parsed.success)
      throw unprocessable('budgets must be { day?, month? }, each { cap_usd: number >= 0, warn_pct?: 0.0-1.0 (default 0.8) }', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })))
    await writeSetting(control, actorOf(c), ws.id, 'cost_budget', parsed.data.budgets)
    return c.json(await view(ws.id))
  })

  return app
}
