/**
 * GET drift/current and drift/history. Current is today's stored roll-up (the
 * assembler's fleet_monitor recomputes it on a schedule); before the first roll-up
 * of the day it is measured on the spot, so a workspace never waits a day for its
 * first figure. Current also carries fleet_monitor's `anomalies` (beyond the spec).
 *
 * With fleet_monitor off for the workspace, both still serve what was stored: the
 * days rolled up while it was on are history the workspace owns. Current then is
 * the newest stored day (its as_of tells how old), and only a workspace with nothing
 * stored gets a drift measured on the spot, without the anomaly detection, which is
 * the engine's work and stays off.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import type { ControlState } from '@svc/shared/control/state'
import { engineAllowed } from '@svc/shared/domain/engines'
import { driftHistory, measureDrift } from '@svc/shared/store/queries/drift'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'
import { parseQuery, queryInt } from '../params.js'

const DAY_MS = 86_400_000
const MAX_DAYS = 366

const HistoryQuery = z.object({ days: queryInt('days', 1, MAX_DAYS, 30, 'UTC days, today included') })
const Status = z.enum(['ok', 'warn', 'alert'])

describeRoute({
  route: ROUTES.driftCurrent,
  summary: 'Current drift',
  description: 'The last 24 hours against the baseline window before them: today\'s stored roll-up, or measured on the spot before the day\'s first one.',
  tags: ['Drift'],
  responses: {
    200: {
      description: 'The drift',
      schema: z.object({
        as_of: IsoTime,
        drift_score: z.number().describe('0-1'),
        status: Status,
        baseline_window_days: z.number().int(),
        dimensions: z.array(
          z.object({
            name: z.enum(['cost_per_trace', 'tokens_per_trace', 'p95_latency_ms', 'error_rate', 'reliability_score', 'model_mix']),
            recent: z.number(),
            baseline: z.number(),
            delta: z.number(),
            direction: z.enum(['worse', 'better', 'unchanged', 'changed', 'stable']),
          }),
        ),
        anomalies: z
          .array(
            z.object({
              agent: z.string(),
              dimension: z.string(),
              recent: z.number(),
              baseline: z.number(),
              delta: z.number(),
              z_score: z.number(),
              direction: z.enum(['worse', 'better', 'changed']),
              basis: z.enum(['own_history', 'fleet']),
            }),
          )
          .describe("fleet_monitor's findings across the workspace's agents (beyond the spec)"),
      }),
    },
  },
})
describeRoute({
  route: ROUTES.driftHistory,
  summary: 'Drift history',
  description: 'Stored days only, oldest first.',
  tags: ['Drift'],
  query: HistoryQuery,
  responses: {
    200: {
      description: 'The days',
      schema: z.object({ days: z.number().int(), points: z.array(z.object({ day: z.string().describe('YYYY-MM-DD'), drift_score: z.number(), status: Status, as_of: IsoTime })) }),
    },
  },
})

export function driftRoutes(store: Store, state: ControlState, opts: { baselineDays: number }): Hono {
  const app = new Hono()

  mount(app, ROUTES.driftCurrent, state, async (c) => {
    const ws = targetWorkspace(c)
    const now = Date.now()
    const on = engineAllowed(state, ws.id, 'fleet_monitor')
    const from = new Date(on ? now : now - MAX_DAYS * DAY_MS).toISOString().slice(0, 10)
    const stored = (await driftHistory(store, ws.id, from)).at(-1)
    const d = stored ?? (await measureDrift(store, ws.id, now, opts.baselineDays, { anomalies: on }))
    return c.json({
      as_of: new Date(d.computed_at_ms).toISOString(),
      drift_score: d.drift_score,
      status: d.status,
      baseline_window_days: d.baseline_window_days,
      dimensions: d.dimensions,
      anomalies: d.anomalies,
    })
  })

  mount(app, ROUTES.driftHistory, state, async (c) => {
    const ws = targetWorkspace(c)
    const { days } = parseQuery(HistoryQuery, c.req.query())
    const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS).toISOString().slice(0, 10)
    const rows = await driftHistory(store, ws.id, from)
    return c.json({ days, points: rows.map((r) => ({ day: r.day, drift_score: r.drift_score, status: r.status, as_of: new Date(r.computed_at_ms).toISOString() })) })
  })

  return app
}
