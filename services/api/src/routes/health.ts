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
 * Per trace engine, its sampling (runtime/sampling.ts): the share of traces it
 * analyses and why (as its workers last published it in the shared cache; null when
 * none runs), how long its oldest waiting job had waited, and the jobs it analysed and
 * skipped since the start of the previous hour (engine_jobs_hourly_v1).
 * backpressure: whether ingest is refusing new records (503) and why, as the ingest
 * processes last published it (shared/src/domain/ingest-admission.ts): the age of
 * the oldest span the assembler has not stored against SVC_MAX_LAG_SECONDS, the
 * embedded log's bytes against its budget, and this workspace's refused requests
 * since the start of the previous hour. Refusing, or having refused in that time,
 * makes the status degraded: exporters were told to retry, and may have given up.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { TRACE_ENGINES } from '@svc/shared/bus/topics'
import type { Cache } from '@svc/shared/cache/types'
import type { ControlState } from '@svc/shared/control/state'
import { readSamplingStatus, SAMPLE_REASONS } from '@svc/shared/domain/engine-sampling'
import { enabledTraceEngines, engineAllowed } from '@svc/shared/domain/engines'
import { readAdmissionStatus, refusalsSincePreviousHour, REFUSAL_REASONS } from '@svc/shared/domain/ingest-admission'
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
  description:
    'Is data arriving, is it valid, are the enabled engines keeping up, is ingest refusing records. status: idle with no spans in the last hour, degraded with dead letters, a stalled engine, or ingest refusing (or having refused) this workspace\'s requests for backpressure, else ok.',
  tags: ['Health'],
  responses: {
    200: {
      description: 'The health figures',
      schema: z.object({
        status: z.enum(['ok', 'degraded', 'idle']),
        last_span_at: IsoTime.nullable(),
        spans_last_hour: z.number().int(),
        dead_letter_count_last_hour: z.number().int(),
        engines: z
          .record(
            z.object({
              status: z.enum(['ok', 'stalled']),
              last_run_at: IsoTime.nullable(),
              sample_rate: z.number().nullable().optional().describe('share of traces the engine analyses (1: all); null: no worker of it is running'),
              sample_reason: z.enum(SAMPLE_REASONS).nullable().optional().describe('backlog: it is behind and sampling to catch up; configured: SVC_ENGINE_SAMPLE_RATE'),
              backlog_seconds: z.number().nullable().optional().describe('how long the oldest job of its last batch had waited (0: idle)'),
              analysed_last_hour: z.number().int().optional(),
              skipped_last_hour: z.number().int().optional().describe('traces outside the sample; their endpoints say skipped'),
            }),
          )
          .describe('each engine enabled in the workspace; the sampling fields for trace engines (not fleet_monitor)'),
        semantic_model: z
          .object({ status: z.enum(['loaded', 'unavailable', 'not_loaded']), model: z.string().nullable(), reason: z.string().nullable(), checked_at: IsoTime.nullable() })
          .describe('the local sentence model of the engines; unavailable: they run in lexical mode (analysis_mode deterministic-lexical)'),
        backpressure: z
          .object({
            refusing: z.enum(REFUSAL_REASONS).nullable().describe('lag: the pipeline is over SVC_MAX_LAG_SECONDS behind; disk: the embedded log is at its budget; null: ingest admits (or no ingest process has reported)'),
            lag_seconds: z.number().nullable().describe('age of the oldest span the assembler has not stored (0: caught up; null: none reporting)'),
            max_lag_seconds: z.number().nullable().describe('SVC_MAX_LAG_SECONDS (0: no bound)'),
            log_bytes: z.number().int().nullable().describe('the embedded log on disk (null on Kafka)'),
            log_max_bytes: z.number().int().nullable().describe('SVC_EMBEDDED_MAX_BYTES'),
            refused_last_hour: z.number().int().describe('requests of this workspace answered 503 for lag or disk since the start of the previous hour'),
          })
          .describe('whether ingest is refusing new records to keep freshness and disk bounded'),
      }),
    },
  },
})

export function healthRoutes(store: Store, state: ControlState, cache: Cache, opts: { stallAfterMs: number; pipelineNamespace: string }): Hono {
  const app = new Hono()
  mount(app, ROUTES.ingestionHealth, state, async (c) => {
    const ws = targetWorkspace(c)
    const now = Date.now()
    const on = new Set<string>(enabledTraceEngines(state, ws.id))
    const enabled = TRACE_ENGINES.filter((name) => on.has(name))
    const [f, semantic, sampling, admission, refused] = await Promise.all([
      ingestionFigures(store, ws.id, now, now - opts.stallAfterMs),
      readSemanticStatus(cache),
      readSamplingStatus(cache, enabled),
      readAdmissionStatus(cache, opts.pipelineNamespace),
      refusalsSincePreviousHour(cache, opts.pipelineNamespace, ws.id, now),
    ])
    const engines: Record<string, Record<string, unknown> & { status: 'ok' | 'stalled' }> = {}
    for (const name of enabled) {
      const run = f.engines.get(name)
      const lastOk = run?.lastOkAtMs ?? 0
      const failing = (run?.lastRunAtMs ?? 0) > lastOk
      const behind = f.oldestPendingJobsAtMs !== null && lastOk < f.oldestPendingJobsAtMs
      const stalled = f.spansLastHour > 0 && (failing || behind)
      const sample = sampling.get(name)
      const jobs = f.engineJobs.get(name)
      engines[name] = {
        status: stalled ? 'stalled' : 'ok',
        last_run_at: iso(run?.lastRunAtMs ?? null),
        sample_rate: sample?.rate ?? null,
        sample_reason: sample?.reason ?? null,
        backlog_seconds: sample ? Math.round(sample.lag_ms / 100) / 10 : null,
        analysed_last_hour: jobs?.analysed ?? 0,
        skipped_last_hour: jobs?.skipped ?? 0,
      }
    }
    // fleet_monitor has no jobs to fall behind on (it runs on the roll-up's schedule): it is stalled when its last run failed.
    if (engineAllowed(state, ws.id, 'fleet_monitor')) {
      const run = f.engines.get('fleet_monitor')
      const failing = (run?.lastRunAtMs ?? 0) > (run?.lastOkAtMs ?? 0)
      engines.fleet_monitor = { status: failing ? 'stalled' : 'ok', last_run_at: iso(run?.lastRunAtMs ?? null) }
    }
    const anyStalled = Object.values(engines).some((e) => e.status === 'stalled')
    const refusing = admission?.refusing ?? null
    const pushedBack = refusing !== null || refused > 0
    return c.json({
      status: f.spansLastHour === 0 ? 'idle' : f.deadLettersLastHour > 0 || anyStalled || pushedBack ? 'degraded' : 'ok',
      last_span_at: iso(f.lastSpanAtMs),
      spans_last_hour: f.spansLastHour,
      dead_letter_count_last_hour: f.deadLettersLastHour,
      engines,
      semantic_model: semantic
        ? { status: semantic.status, model: semantic.model, reason: semantic.reason || null, checked_at: iso(semantic.checked_at_ms || null) }
        : { status: 'not_loaded', model: null, reason: null, checked_at: null },
      backpressure: {
        refusing,
        lag_seconds: admission?.lag_ms == null ? null : Math.round(admission.lag_ms / 100) / 10,
        max_lag_seconds: admission ? admission.max_lag_ms / 1000 : null,
        log_bytes: admission?.log_bytes ?? null,
        log_max_bytes: admission?.log_max_bytes ?? null,
        refused_last_hour: refused,
      },
    })
  })
  return app
}
