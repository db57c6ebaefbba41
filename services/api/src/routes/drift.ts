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
import type { ControlState } from '@svc/shared/control/state'
import { engineAllowed } from '@svc/shared/domain/engines'
import { badRequest } from '@svc/shared/http/errors'
import { driftHistory, measureDrift } from '@svc/shared/store/queries/drift'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'

const DAY_MS = 86_400_000
const MAX_DAYS = 366

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
    const raw = c.req.query('days')
    const days = raw === undefined || raw === '' ? 30 : Number(raw)
    if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) throw badRequest(`days must be an integer from 1 to ${MAX_DAYS}`, { parameter: 'days', min: 1, max: MAX_DAYS })
    const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS).toISOString().slice(0, 10)
    const rows = await driftHistory(store, ws.id, from)
    return c.json({ days, points: rows.map((r) => ({ day: r.day, drift_score: r.drift_score, status: r.status, as_of: new Date(r.computed_at_ms).toISOString() })) })
  })

  return app
}
