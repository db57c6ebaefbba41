/**
 * GET drift/current and drift/history. Current is today's stored roll-up (the
 * assembler recomputes it on a schedule); before the first roll-up of the day it is
 * measured on the spot, so a workspace never waits a day for its first figure.
 */
import { Hono } from 'hono'
import type { ControlState } from '@svc/shared/control/state'
import { badRequest } from '@svc/shared/http/errors'
import { driftHistory, measureDrift } from '@svc/shared/store/queries/drift'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'

const DAY_MS = 86_400_000

export function driftRoutes(store: Store, state: ControlState, opts: { baselineDays: number }): Hono {
  const app = new Hono()

  mount(app, ROUTES.driftCurrent, state, async (c) => {
    const ws = targetWorkspace(c)
    const now = Date.now()
    const today = new Date(now).toISOString().slice(0, 10)
    const stored = (await driftHistory(store, ws.id, today))[0]
    const d = stored ?? (await measureDrift(store, ws.id, now, opts.baselineDays))
    return c.json({ as_of: new Date(d.computed_at_ms).toISOString(), drift_score: d.drift_score, status: d.status, baseline_window_days: d.baseline_window_days, dimensions: d.dimensions })
  })

  mount(app, ROUTES.driftHistory, state, async (c) => {
    const ws = targetWorkspace(c)
    const raw = c.req.query('days')
    const days = raw === undefined || raw === '' ? 30 : Number(raw)
    if (!Number.isInteger(days) || days < 1 || days > 366) throw badRequest('days must be an integer from 1 to 366', { parameter: 'days', min: 1, max: 366 })
    const from = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS).toISOString().slice(0, 10)
    const rows = await driftHistory(store, ws.id, from)
    return c.json({ days, points: rows.map((r) => ({ day: r.day, drift_score: r.drift_score, status: r.status, as_of: new Date(r.computed_at_ms).toISOString() })) })
  })

  return app
}
