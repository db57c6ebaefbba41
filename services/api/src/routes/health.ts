/**
 * GET .../health/ingestion: is data arriving, is it valid, are the engines keeping up.
 *
 * status: idle (no span started in the last hour), degraded (spans were dead-lettered
 * in the last hour, or an enabled engine is stalled), else ok. An engine is stalled
 * when spans are arriving and either its last run failed (jobs dead-lettered after
 * their retries) or jobs emitted for it more than stallAfterMs ago have not been
 * followed by a successful run (engine_runs_v1): failing, or not running at all.
 * fleet_monitor, scheduled rather than fed by jobs, is stalled when its last run failed.
 * semantic_model: the engines' local sentence model as the engine processes last
 * published it (shared cache): loaded, unavailable with the reason (the engines run in
 * lexical mode), or not_loaded (no engine has needed it yet; it loads on first use).
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { TRACE_ENGINES } from '@svc/shared/bus/topics'
import type { Cache } from '@svc/shared/cache/types'
import type { ControlState } from '@svc/shared/control/state'
import { enabledTraceEngines, engineAllowed } from '@svc/shared/domain/engines'
import { readSemanticStatus } from '@svc/shared/domain/semantic-model'
import { ingestionFigures } from '@svc/shared/store/queries/ingestion-health'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

describeRoute({
  route: ROUTES.ingestionHealth,
  summary: 'Ingestion health',
  description: 'Is data arriving, is it valid, are the enabled engines keeping up. status: idle with no spans in the last hour, degraded with dead letters or a stalled engine, else ok.',
  tags: ['Health'],
  responses: {
    200: {
      description: 'The health figures',
      schema: z.object({
        status: z.enum(['ok', 'degraded', 'idle']),
        last_span_at: IsoTime.nullable(),
        spans_last_hour: z.number().int(),
        dead_letter_count_last_hour: z.number().int(),
        engines: z.record(z.object({ status: z.enum(['ok', 'stalled']), last_run_at: IsoTime.nullable() })).describe('each engine enabled in the workspace'),
        semantic_model: z
          .object({ status: z.enum(['loaded', 'unavailable', 'not_loaded']), model: z.string().nullable(), reason: z.string().nullable(), checked_at: IsoTime.nullable() })
          .describe('the local sentence model of the engines; unavailable: they run in lexical mode (analysis_mode deterministic-lexical)'),
      }),
    },
  },
})

export function healthRoutes(store: Store, state: ControlState, cache: Cache, opts: { stallAfterMs: number }): Hono {
  const app = new Hono()
  mount(app, ROUTES.ingestionHealth, state, async (c) => {
    const ws = targetWorkspace(c)
    const now = Date.now()
    const [f, semantic] = await Promise.all([ingestionFigures(store, ws.id, now, now - opts.stallAfterMs), readSemanticStatus(cache)])
    const enabled = new Set<string>(enabledTraceEngines(state, ws.id))
    const engines: Record<string, { status: 'ok' | 'stalled'; last_run_at: string | null }> = {}
    for (const name of TRACE_ENGINES) {
      if (!enabled.has(name)) continue
      const run = f.engines.get(name)
      const lastOk = run?.lastOkAtMs ?? 0
      const failing = (run?.lastRunAtMs ?? 0) > lastOk
      const behind = f.oldestPendingJobsAtMs !== null && lastOk < f.oldestPendingJobsAtMs
      const stalled = f.spansLastHour > 0 && (failing || behind)
      engines[name] = { status: stalled ? 'stalled' : 'ok', last_run_at: iso(run?.lastRunAtMs ?? null) }
    }
    // fleet_monitor has no jobs to fall behind on (it runs on the roll-up's schedule): it is stalled when its last run failed.
    if (engineAllowed(state, ws.id, 'fleet_monitor')) {
      const run = f.engines.get('fleet_monitor')
      const failing = (run?.lastRunAtMs ?? 0) > (run?.lastOkAtMs ?? 0)
      engines.fleet_monitor = { status: failing ? 'stalled' : 'ok', last_run_at: iso(run?.lastRunAtMs ?? null) }
    }
    const anyStalled = Object.values(engines).some((e) => e.status === 'stalled')
    return c.json({
      status: f.spansLastHour === 0 ? 'idle' : f.deadLettersLastHour > 0 || anyStalled ? 'degraded' : 'ok',
      last_span_at: iso(f.lastSpanAtMs),
      spans_last_hour: f.spansLastHour,
      dead_letter_count_last_hour: f.deadLettersLastHour,
      engines,
      semantic_model: semantic
        ? { status: semantic.status, model: semantic.model, reason: semantic.reason || null, checked_at: iso(semantic.checked_at_ms || null) }
        : { status: 'not_loaded', model: null, reason: null, checked_at: null },
    })
  })
  return app
}
