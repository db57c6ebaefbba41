/**
 * Usage, cost and latency panels of a workspace, read from the hourly roll-ups, and
 * the sources its traces cite.
 *
 * Periods are rolling windows of whole UTC hours ending with the current hour:
 * day = the last 24 hours, week = 168, month = 720 (30 days). The time series is by
 * UTC calendar day, today included, one point per day even without traffic.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlState } from '@svc/shared/control/state'
import { PHASES, type Phase } from '@svc/shared/domain/genai'
import { retentionFloorNs } from '@svc/shared/domain/retention'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import { unprocessable } from '@svc/shared/http/errors'
import { listSources } from '@svc/shared/store/queries/sources'
import { latencyByPhase, phaseTraces, usageByDay, usageSummary, type HourWindow } from '@svc/shared/store/queries/usage'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'
import { parseQuery, queryEnum, queryInt } from '../params.js'

const PERIOD_HOURS = { day: 24, week: 168, month: 720 } as const
type Period = keyof typeof PERIOD_HOURS
const PERIODS = Object.keys(PERIOD_HOURS) as Period[]
const HOUR = 3_600_000

export function windowOf(period: Period, nowMs = Date.now()): HourWindow {
  const toMs = Math.floor(nowMs / HOUR) * HOUR + HOUR
  return { fromMs: toMs - PERIOD_HOURS[period] * HOUR, toMs }
}

const PERIOD_DOC = 'Rolling window of whole UTC hours ending with the current hour: day = 24 hours, week = 168, month = 720.'
const PeriodQuery = z.object({ period: queryEnum('period', PERIODS, 'day', PERIOD_DOC) })
const TimeseriesQuery = z.object({
  period: queryEnum('period', ['day'] as const, 'day', 'day only'),
  days: queryInt('days', 1, 366, 30, 'UTC calendar days, today included'),
})
// Keys in the order they are validated: the first bad one answers.
const PhaseTracesQuery = z.object({
  metric: queryEnum('metric', ['errors', 'slow'] as const, undefined, 'errors: a span of the phase errored; slow: a span of the phase at or above the percentile'),
  period: queryEnum('period', PERIODS, 'day', PERIOD_DOC),
  percentile: queryEnum('percentile', ['p95', 'p99'] as const, 'p95', 'applies when metric is slow'),
  limit: queryInt('limit', 1, 500, 100),
  phase: queryEnum('phase', PHASES, undefined, 'a phase as /usage/latency names it'),
})

const Totals = z.object({
  trace_count: z.number().int(),
  span_count: z.number().int(),
  llm_calls: z.number().int(),
  unpriced_calls: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  reasoning_tokens: z.number().int(),
  cost_usd: z.number(),
})
const ByModel = z.object({ model: z.string(), provider: z.string(), llm_calls: z.number().int(), unpriced_calls: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int(), cost_usd: z.number() })
const ByProject = z.object({ project_id: z.string(), trace_count: z.number().int(), llm_calls: z.number().int(), cost_usd: z.number() })
const PhaseOut = z.object({ phase: z.enum(PHASES as [Phase, ...Phase[]]), p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number(), call_count: z.number().int(), error_count: z.number().int() })

const TAGS = ['Usage']
describeRoute({
  route: ROUTES.usageSummary,
  summary: 'Usage and cost summary',
  tags: TAGS,
  query: PeriodQuery,
  responses: {
    200: {
      description: 'Totals, by model (costliest first) and by project',
      schema: z.object({
        data: z.object({ period: z.enum(PERIODS as [Period, ...Period[]]), workspace_id: z.string().uuid(), totals: Totals, by_model: z.array(ByModel), by_project: z.array(ByProject) }),
        meta: z.object({ request_id: z.string(), scorer_version: z.string() }),
      }),
    },
  },
})
describeRoute({
  route: ROUTES.usageTimeseries,
  summary: 'Usage per UTC day',
  description: 'One point per calendar day, oldest first, today last, days without traffic included.',
  tags: TAGS,
  query: TimeseriesQuery,
  responses: {
    200: {
      description: 'The series',
      schema: z.object({
        period: z.literal('day'),
        days: z.number().int(),
        points: z.array(z.object({ ts: IsoTime, trace_count: z.number().int(), total_tokens: z.number().int(), total_cost_usd: z.number() })),
      }),
    },
  },
})
describeRoute({
  route: ROUTES.usageLatency,
  summary: 'Latency by phase',
  description: 'Percentiles are t-digest estimates over the spans\' own durations; phases without spans are left out.',
  tags: TAGS,
  query: PeriodQuery,
  responses: { 200: { description: 'The phases', schema: z.object({ period: z.enum(PERIODS as [Period, ...Period[]]), phases: z.array(PhaseOut) }) } },
})
describeRoute({
  route: ROUTES.usageLatencyPhaseTraces,
  summary: 'Traces behind a latency phase',
  description: 'Missing phase or metric answers 422; invalid values 400 with detail.accepted.',
  tags: TAGS,
  query: PhaseTracesQuery,
  responses: {
    200: {
      description: 'The traces',
      schema: z.object({
        phase: z.string(),
        metric: z.enum(['errors', 'slow']),
        percentile: z.enum(['p95', 'p99']),
        period: z.enum(PERIODS as [Period, ...Period[]]),
        threshold_ms: z.number(),
        traces: z.array(z.object({ trace_id: z.string(), duration_ms: z.number().int(), start_time: IsoTime, status: z.enum(['OK', 'ERROR']) })),
      }),
    },
  },
  errors: [422],
})
describeRoute({
  route: ROUTES.listSources,
  summary: 'Cited sources with their learned authority',
  tags: ['Sources'],
  responses: {
    200: {
      description: 'Most cited first',
      schema: z.object({
        sources: z.array(
          z.object({ domain: z.string(), kind: z.string().describe('internal_kb, web, tool or citation'), authority_prior: z.number(), citation_count: z.number().int(), last_seen: IsoTime.nullable() }),
        ),
      }),
    },
  },
})

export function usageRoutes(store: Store, state: ControlState, opts: { defaultRetentionHours: number }): Hono {
  const app = new Hono()

  mount(app, ROUTES.usageSummary, state, async (c) => {
    const ws = targetWorkspace(c)
    const { period } = parseQuery(PeriodQuery, c.req.query())
    const summary = await usageSummary(store, ws.id, windowOf(period))
    return c.json({ data: { period, workspace_id: ws.id, ...summary }, meta: { request_id: c.get('requestId'), scorer_version: SCORER_VERSION } })
  })

  mount(app, ROUTES.usageTimeseries, state, async (c) => {
    const ws = targetWorkspace(c)
    const { period, days } = parseQuery(TimeseriesQuery, c.req.query())
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const points = await usageByDay(store, ws.id, today - (days - 1) * 86_400_000, days)
    return c.json({ period, days, points })
  })

  mount(app, ROUTES.usageLatency, state, async (c) => {
    const ws = targetWorkspace(c)
    const { period } = parseQuery(PeriodQuery, c.req.query())
    return c.json({ period, phases: await latencyByPhase(store, ws.id, windowOf(period)) })
  })

  mount(app, ROUTES.usageLatencyPhaseTraces, state, async (c) => {
    const ws = targetWorkspace(c)
    const q = c.req.query()
    const missing = (['phase', 'metric'] as const).filter((k) => !q[k])
    if (missing.length) throw unprocessable(`missing ${missing.join(' and ')}`, { required: ['phase', 'metric'] })
    const { metric, period, percentile, limit, phase } = parseQuery(PhaseTracesQuery, q)
    const window = windowOf(period)
    // The threshold comes from the latency panel's own figures for this window.
    const panel = (await latencyByPhase(store, ws.id, window)).find((p) => p.phase === phase)
    const thresholdMs = panel ? (percentile === 'p95' ? panel.p95_ms : panel.p99_ms) : 0
    const traces = panel ? await phaseTraces(store, { workspaceId: ws.id, phase, window, metric, thresholdMs, limit, retentionFloorNs: retentionFloorNs(state, ws.id, opts.defaultRetentionHours) }) : []
    return c.json({ phase, metric, percentile, period, threshold_ms: thresholdMs, traces })
  })

  mount(app, ROUTES.listSources, state, async (c) => {
    const ws = targetWorkspace(c)
    return c.json({ sources: await listSources(store, ws.id, 1000, retentionFloorNs(state, ws.id, opts.defaultRetentionHours)) })
  })

  return app
}
