/**
 * Coding-agent analytics (spec "Coding-agent analytics"; bodies in docs/api.md and
 * docs/coding-agent.md): per-employee usage, recent agent commits and the
 * most-edited files of a workspace, read from the tables the coding-agent
 * consumer lands.
 *
 * Periods are rolling windows of whole UTC hours ending with the current hour, as
 * in the usage panels: day = the last 24 hours, week = 168, month = 720 (30 days).
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { ControlState } from '@svc/shared/control/state'
import { badRequest } from '@svc/shared/http/errors'
import { codingAgentUsage, recentCommits, topFiles } from '@svc/shared/store/queries/coding-agent'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { windowOf } from './usage.js'

export const LIMIT_MAX = 500
const Period = z.enum(['day', 'week', 'month'])
const Limit = z.coerce.number().int().min(1).max(LIMIT_MAX)

export const UsageQuery = z.object({ period: Period.default('day') })
export const CommitsQuery = z.object({ limit: Limit.default(50) })
export const TopFilesQuery = z.object({ period: Period.default('week'), limit: Limit.default(50) })

const Window = z.object({ from: z.string().describe('ISO 8601, inclusive'), to: z.string().describe('ISO 8601, exclusive (end of the current hour)') })
const EmployeeUsage = z.object({
  employee: z.string().nullable().describe('user.email, else the account id; null for telemetry that names no user'),
  sessions: z.number().int(),
  api_requests: z.number().int(),
  prompts: z.number().int(),
  tool_calls: z.number().int(),
  cost_usd: z.number(),
  input_tokens: z.number().int().describe('Excluding cache reads and writes'),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_creation_tokens: z.number().int(),
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  commits: z.number().int(),
  pull_requests: z.number().int(),
  active_time_seconds: z.number(),
  last_activity_at: z.string().nullable(),
})
const UsageTotals = EmployeeUsage.omit({ employee: true, last_activity_at: true }).extend({ employees: z.number().int() })
export const UsageResponse = z.object({ period: Period, window: Window, totals: UsageTotals, employees: z.array(EmployeeUsage) })
const Commit = z.object({
  commit_id: z.string(),
  committed_at: z.string(),
  agent: z.string(),
  employee: z.string().nullable(),
  session_id: z.string().nullable(),
  repository: z.string().nullable(),
  branch: z.string().nullable(),
  message: z.string().nullable(),
  files: z.array(z.string()),
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  source: z.enum(['tool_result', 'activity']),
})
export const CommitsResponse = z.object({ limit: z.number().int(), commits: z.array(Commit) })
const TopFile = z.object({
  file_path: z.string(),
  edits: z.number().int(),
  commits: z.number().int(),
  employees: z.number().int(),
  sessions: z.number().int(),
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  last_edited_at: z.string(),
})
export const TopFilesResponse = z.object({ period: Period, window: Window, limit: z.number().int(), files: z.array(TopFile) })

const usageDoc = describeRoute({
  route: ROUTES.codingAgentUsage,
  summary: 'Per-employee coding-agent usage',
  description: 'Cost, tokens, lines, commits, pull requests, active time, sessions and requests per employee over the period. Each quantity of a session comes from its metric when the session sent that metric, else from its events, so nothing is counted twice.',
  tags: ['coding-agent'],
  query: UsageQuery,
  responses: { 200: { description: 'Usage per employee, highest cost first', schema: UsageResponse } },
})
const commitsDoc = describeRoute({
  route: ROUTES.codingAgentCommits,
  summary: 'Recent commits authored by coding agents',
  tags: ['coding-agent'],
  query: CommitsQuery,
  responses: { 200: { description: 'Commits, newest first', schema: CommitsResponse } },
})
const topFilesDoc = describeRoute({
  route: ROUTES.codingAgentTopFiles,
  summary: 'Files coding agents edited most',
  tags: ['coding-agent'],
  query: TopFilesQuery,
  responses: { 200: { description: 'Files by number of edits in the period', schema: TopFilesResponse } },
})

/** Parses the query with the route's documented schema; 400 naming each bad parameter. */
function parseQuery<S extends z.AnyZodObject>(c: Context, schema: S): z.infer<S> {
  const raw = Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v !== ''))
  const parsed = schema.safeParse(raw)
  if (parsed.success) return parsed.data
  const issues = parsed.error.issues.map((i) => ({ parameter: i.path.join('.'), message: i.message }))
  throw badRequest(`invalid ${issues.map((i) => i.parameter).join(', ')}: ${issues.map((i) => i.message).join('; ')}`, { issues })
}

const iso = (ms: number) => new Date(ms).toISOString()

export function codingAgentRoutes(store: Store, state: ControlState): Hono {
  const app = new Hono()

  mount(app, ROUTES.codingAgentUsage, state, async (c) => {
    const ws = targetWorkspace(c)
    const { period } = parseQuery(c, usageDoc.query)
    const w = windowOf(period)
    const employees = await codingAgentUsage(store, ws.id, w)
    const sum = (k: keyof (typeof employees)[number]) => Math.round(employees.reduce((s, e) => s + Number(e[k]), 0) * 1e9) / 1e9
    const totals = {
      employees: employees.filter((e) => e.employee !== null).length,
      sessions: sum('sessions'),
      api_requests: sum('api_requests'),
      prompts: sum('prompts'),
      tool_calls: sum('tool_calls'),
      cost_usd: sum('cost_usd'),
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      cache_read_tokens: sum('cache_read_tokens'),
      cache_creation_tokens: sum('cache_creation_tokens'),
      lines_added: sum('lines_added'),
      lines_removed: sum('lines_removed'),
      commits: sum('commits'),
      pull_requests: sum('pull_requests'),
      active_time_seconds: sum('active_time_seconds'),
    }
    return c.json({ period, window: { from: iso(w.fromMs), to: iso(w.toMs) }, totals, employees } satisfies z.infer<typeof UsageResponse>)
  })

  mount(app, ROUTES.codingAgentCommits, state, async (c) => {
    const ws = targetWorkspace(c)
    const { limit } = parseQuery(c, commitsDoc.query)
    const commits = await recentCommits(store, ws.id, limit)
    return c.json({ limit, commits } as z.infer<typeof CommitsResponse>)
  })

  mount(app, ROUTES.codingAgentTopFiles, state, async (c) => {
    const ws = targetWorkspace(c)
    const { period, limit } = parseQuery(c, topFilesDoc.query)
    const w = windowOf(period)
    return c.json({ period, window: { from: iso(w.fromMs), to: iso(w.toMs) }, limit, files: await topFiles(store, ws.id, w, limit) } satisfies z.infer<typeof TopFilesResponse>)
  })

  return app
}
