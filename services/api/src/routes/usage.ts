/**
 * Usage, cost and latency panels of a workspace, read from the hourly roll-ups, and
 * the sources its traces cite.
 *
 * Periods are rolling windows of whole UTC hours ending with the current hour:
 * day = the last 24 hours, week = 168, month = 720 (30 days). The time series is by
 * UTC calendar day, today included, one point per day even without traffic.
 */
import { Hono } from 'hono'
import type { ControlState } from '@svc/shared/control/state'
import { PHASES, type Phase } from '@svc/shared/domain/genai'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import { badRequest, unprocessable } from '@svc/shared/http/errors'
import { listSources } from '@svc/shared/store/queries/sources'
import { latencyByPhase, phaseTraces, usageByDay, usageSummary, type HourWindow } from '@svc/shared/store/queries/usage'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'

const PERIOD_HOURS = { day: 24, week: 168, month: 720 } as const
type Period = keyof typeof PERIOD_HOURS
const PERIODS = Object.keys(PERIOD_HOURS) as Period[]
const HOUR = 3_600_000

export function windowOf(period: Period, nowMs = Date.now()): HourWindow {
  const toMs = Math.floor(nowMs / HOUR) * HOUR + HOUR
  return { fromMs: toMs - PERIOD_HOURS[period] * HOUR, toMs }
}

/** A query value that must be one of `accepted`: the default when absent, 400 naming the accepted values otherwise. */
function oneOf<T extends string>(name: string, raw: string | undefined, accepted: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback
  if ((accepted as readonly string[]).includes(raw)) return raw as T
  throw badRequest(`invalid ${name} ${JSON.stringify(raw)}`, { parameter: name, accepted })
}

function intIn(name: string, raw: string | undefined, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest(`${name} must be an integer from ${min} to ${max}`, { parameter: name, min, max })
  return n
}

export function usageRoutes(store: Store, state: ControlState): Hono {
  const app = new Hono()

  mount(app, ROUTES.usageSummary, state, async (c) => {
    const ws = targetWorkspace(c)
    const period = oneOf('period', c.req.query('period'), PERIODS, 'day')
    const summary = await usageSummary(store, ws.id, windowOf(period))
    return c.json({ data: { period, workspace_id: ws.id, ...summary }, meta: { request_id: c.get('requestId'), scorer_version: SCORER_VERSION } })
  })

  mount(app, ROUTES.usageTimeseries, state, async (c) => {
    const ws = targetWorkspace(c)
    const period = oneOf('period', c.req.query('period'), ['day'] as const, 'day')
    const days = intIn('days', c.req.query('days'), 1, 366, 30)
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const points = await usageByDay(store, ws.id, today - (days - 1) * 86_400_000, days)
    return c.json({ period, days, points })
  })

  mount(app, ROUTES.usageLatency, state, async (c) => {
    const ws = targetWorkspace(c)
    const period = oneOf('period', c.req.query('period'), PERIODS, 'day')
    return c.json({ period, phases: await latencyByPhase(store, ws.id, windowOf(period)) })
  })

  mount(app, ROUTES.usageLatencyPhaseTraces, state, async (c) => {
    const ws = targetWorkspace(c)
    const q = c.req.query()
    const missing = (['phase', 'metric'] as const).filter((k) => !q[k])
    if (missing.length) throw unprocessable(`missing ${missing.join(' and ')}`, { required: ['phase', 'metric'] })
    const metric = oneOf('metric', q.metric, ['errors', 'slow'] as const, 'slow')
    const period = oneOf('period', q.period, PERIODS, 'day')
    const percentile = oneOf('percentile', q.percentile, ['p95', 'p99'] as const, 'p95')
    const limit = intIn('limit', q.limit, 1, 500, 100)
    const phase = oneOf('phase', q.phase, PHASES, 'llm') as Phase
    const window = windowOf(period)
    // The threshold comes from the latency panel's own figures for this window.
    const panel = (await latencyByPhase(store, ws.id, window)).find((p) => p.phase === phase)
    const thresholdMs = panel ? (percentile === 'p95' ? panel.p95_ms : panel.p99_ms) : 0
    const traces = panel ? await phaseTraces(store, { workspaceId: ws.id, phase, window, metric, thresholdMs, limit }) : []
    return c.json({ phase, metric, percentile, period, threshold_ms: thresholdMs, traces })
  })

  mount(app, ROUTES.listSources, state, async (c) => c.json({ sources: await listSources(store, targetWorkspace(c).id) }))

  return app
}
