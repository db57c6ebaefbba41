/**
 * GET .../traces/{trace_id}/<engine>: the newest result of each reconstruction
 * engine (engine_results_v1). 404 for a trace unknown in the workspace or older
 * than its retention, like the trace detail. A trace the engine has not analysed
 * yet (or never will, while the engine is off) gets the shape with empty lists and
 * null figures, plus computed_at null: "not yet computed", never an error; when the
 * engine skipped the trace (it analysed a sample, runtime/sampling.ts) the same shape
 * says `skipped` and the sample it fell outside, so it is not awaited forever. A
 * computed result says the sample it was computed in (`sampled`, null: every trace).
 * optimization merges the findings of the correlation and savings engines;
 * content-reliability carries the external_crosscheck result when that engine ran.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { ControlState } from '@svc/shared/control/state'
import { SAMPLE_REASONS, SKIP_REASONS, type SampleDecision, type SkipReason } from '@svc/shared/domain/engine-sampling'
import { ANALYSIS_MODES } from '@svc/shared/domain/semantic-model'
import { retentionFloorNs } from '@svc/shared/domain/retention'
import { notFound } from '@svc/shared/http/errors'
import { latestEngineResults, latestEngineSkips, traceExists, type EngineSkip, type LatestEngineResult } from '@svc/shared/store/queries/engine-results'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace, type RouteSpec } from '../access.js'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime, TraceIdParams } from '../openapi/schemas.js'

export interface EngineOutputDeps {
  store: Store
  state: ControlState
  defaultRetentionHours: number
}

/** What every engine response carries beyond the spec: when, how and by which version it was computed. */
function provenance(results: LatestEngineResult[]) {
  if (results.length === 0) return { computed_at: null, analysis_mode: null, engine_version: null }
  const newest = results.reduce((a, b) => (b.computed_at_ms > a.computed_at_ms ? b : a))
  return {
    computed_at: new Date(newest.computed_at_ms).toISOString(),
    analysis_mode: results.some((r) => r.mode === 'llm') ? 'llm' : newest.mode,
    engine_version: results.map((r) => `${r.engine}@${r.engine_version}`).join(','),
  }
}

/**
 * The sample behind the body: of a result, the one it was computed in (the lowest
 * rate when two engines make the body); of a trace every engine skipped, the one it
 * fell outside, with the reason as `skipped`.
 */
function sampling(results: LatestEngineResult[], skips: EngineSkip[]): { sampled: SampleDecision | null; skipped: SkipReason | null } {
  const lowest = <T>(xs: T[], rate: (x: T) => number) => xs.reduce<T | null>((a, b) => (a === null || rate(b) < rate(a) ? b : a), null)
  if (results.length) {
    const samples = results.map((r) => (r.payload as { sampled?: SampleDecision | null }).sampled ?? null).filter((x) => x !== null)
    return { sampled: lowest(samples, (x) => x.rate), skipped: null }
  }
  // A trace too large to analyse was in every sample: it says so rather than a rate.
  if (skips.some((s) => s.reason === 'too_large')) return { sampled: null, skipped: 'too_large' }
  const skip = lowest(skips, (x) => x.sample_rate)
  if (!skip) return { sampled: null, skipped: null }
  const reason = skip.reason === 'backlog' ? 'backlog' : 'configured'
  return { sampled: { rate: skip.sample_rate, reason }, skipped: reason }
}

type Finding = { estimated_savings_usd: number; span_id: string; kind: string }

// Responses (services/engines/src/outputs.ts): the spec's fields, the extras docs/api.md
// lists, and passthrough for what an engine version adds.
const Provenance = {
  computed_at: IsoTime.nullable().describe('newest result; null: not yet computed'),
  analysis_mode: z.enum(ANALYSIS_MODES).nullable().describe('deterministic-lexical: the local sentence model was unavailable, matching by words only'),
  engine_version: z.string().nullable().describe('engine@version, comma-separated'),
  sampled: z
    .object({ rate: z.number(), reason: z.enum(SAMPLE_REASONS) })
    .nullable()
    .describe('the sample of traces the engine analysed (backlog: it was behind; configured: SVC_ENGINE_SAMPLE_RATE); null: every trace'),
  skipped: z
    .enum(SKIP_REASONS)
    .nullable()
    .describe('not computed because the trace fell outside the sample (backlog, configured), or is larger than SVC_ENGINE_MAX_TRACE_SPANS or _BYTES (too_large); null otherwise'),
}
const Claim = z
  .object({
    claim: z.string(),
    supported: z.boolean(),
    confidence: z.number(),
    evidence_span_id: z.string().nullable(),
    verdict: z.enum(['supported', 'unsupported', 'contradicted']),
    source: z.string().nullable(),
  })
  .passthrough()
const Crosscheck = z
  .object({
    mode: z.enum(['open_web', 'closed_knowledge_base']),
    claims: z.array(z.object({ claim: z.string(), verdict: z.string(), confidence: z.number(), url: z.string().nullable(), basis: z.string() }).passthrough()),
    checked: z.number(),
    note: z.string(),
  })
  .passthrough()
const ContentReliabilityOut = z
  .object({ trace_id: z.string(), grade: z.string(), score: z.number().nullable().describe('0-1'), claims: z.array(Claim), scorer_version: z.string(), external_crosscheck: Crosscheck.nullable(), ...Provenance })
  .passthrough()
const DecisionTraceOut = z
  .object({
    trace_id: z.string(),
    nodes: z.array(z.object({ id: z.string(), span_id: z.string(), decision: z.string(), chosen: z.string(), alternatives: z.array(z.string()), basis: z.string(), confidence: z.number() }).passthrough()),
    edges: z.array(z.object({ from: z.string(), to: z.string() })),
    ...Provenance,
  })
  .passthrough()
const DecompositionOut = z
  .object({
    trace_id: z.string(),
    original_query: z.string(),
    sub_tasks: z.array(z.object({ id: z.string(), text: z.string(), resolved: z.boolean(), span_ids: z.array(z.string()) }).passthrough()),
    coverage: z.number().nullable(),
    ...Provenance,
  })
  .passthrough()
const SourcesMatrixOut = z
  .object({
    trace_id: z.string(),
    sources: z.array(
      z.object({ url: z.string(), kind: z.string(), authority_score: z.number(), influence_score: z.number(), verification_level: z.string(), explainer: z.string(), domain: z.string() }).passthrough(),
    ),
    ...Provenance,
  })
  .passthrough()
const OptimizationOut = z
  .object({
    trace_id: z.string(),
    findings: z.array(
      z
        .object({ kind: z.string(), span_id: z.string(), current_model: z.string(), suggested_model: z.string(), rationale: z.string(), estimated_savings_usd: z.number(), engine: z.enum(['correlation', 'savings']) })
        .passthrough(),
    ),
    total_estimated_savings_usd: z.number().nullable(),
    ...Provenance,
  })
  .passthrough()

const describeEngineOutput = (route: RouteSpec, summary: string, schema: z.ZodTypeAny) =>
  describeRoute({
    route,
    summary,
    description:
      'An unknown trace, or one older than the retention window, answers 404. Not analysed yet: empty lists, null figures and computed_at null; skipped says when it never will be (the engine analysed a sample of traces).',
    tags: ['Engine outputs'],
    params: TraceIdParams,
    responses: { 200: { description: 'The newest result', schema } },
  })
describeEngineOutput(ROUTES.traceContentReliability, 'Content reliability of a trace', ContentReliabilityOut)
describeEngineOutput(ROUTES.traceDecisionTrace, 'Decision trace of a trace', DecisionTraceOut)
describeEngineOutput(ROUTES.traceDecomposition, 'Decomposition of a trace', DecompositionOut)
describeEngineOutput(ROUTES.traceSourcesMatrix, 'Sources matrix of a trace', SourcesMatrixOut)
describeEngineOutput(ROUTES.traceOptimization, 'Optimization findings of a trace', OptimizationOut)

interface Endpoint {
  route: RouteSpec
  /** The engines whose results make the body (and its computed_at). */
  engines: string[]
  /** An engine whose result rides along under its own name, null until it has run. */
  attach?: string
  empty(traceId: string): Record<string, unknown>
  body(traceId: string, r: Map<string, LatestEngineResult>): Record<string, unknown>
}

const endpoints: Endpoint[] = [
  {
    route: ROUTES.traceContentReliability,
    engines: ['content_reliability'],
    attach: 'external_crosscheck',
    empty: (trace_id) => ({ trace_id, grade: '', score: null, claims: [], scorer_version: '' }),
    body: (_, r) => r.get('content_reliability')!.payload as Record<string, unknown>,
  },
  {
    route: ROUTES.traceDecisionTrace,
    engines: ['decision_trace'],
    empty: (trace_id) => ({ trace_id, nodes: [], edges: [] }),
    body: (_, r) => r.get('decision_trace')!.payload as Record<string, unknown>,
  },
  {
    route: ROUTES.traceDecomposition,
    engines: ['decomposition'],
    empty: (trace_id) => ({ trace_id, original_query: '', sub_tasks: [], coverage: null }),
    body: (_, r) => r.get('decomposition')!.payload as Record<string, unknown>,
  },
  {
    route: ROUTES.traceSourcesMatrix,
    engines: ['sources'],
    empty: (trace_id) => ({ trace_id, sources: [] }),
    body: (_, r) => r.get('sources')!.payload as Record<string, unknown>,
  },
  {
    route: ROUTES.traceOptimization,
    engines: ['correlation', 'savings'],
    empty: (trace_id) => ({ trace_id, findings: [], total_estimated_savings_usd: null }),
    body: (trace_id, r) => {
      const findings = [...r.values()].flatMap((x) => (x.payload as { findings?: Finding[] }).findings ?? [])
      findings.sort((a, b) => b.estimated_savings_usd - a.estimated_savings_usd || (a.span_id < b.span_id ? -1 : 1) || (a.kind < b.kind ? -1 : 1))
      const total = findings.reduce((s, f) => s + f.estimated_savings_usd, 0)
      return { trace_id, findings, total_estimated_savings_usd: Math.round(total * 1e6) / 1e6 }
    },
  },
]

export function engineOutputRoutes({ store, state, defaultRetentionHours }: EngineOutputDeps): Hono {
  const app = new Hono()
  const floorNs = (workspaceId: string) => retentionFloorNs(state, workspaceId, defaultRetentionHours)

  for (const e of endpoints)
    mount(app, e.route, state, async (c: Context) => {
      const ws = targetWorkspace(c)
      const raw = c.req.param('trace_id') ?? ''
      const traceId = raw.toLowerCase()
      const exists = /^[0-9a-f]{32}$/.test(traceId) && (await traceExists(store, ws.id, traceId, floorNs(ws.id)))
      if (!exists) throw notFound(`trace ${raw} not found in this workspace (unknown, or older than the retention window)`)
      const all = await latestEngineResults(store, ws.id, traceId, e.attach ? [...e.engines, e.attach] : e.engines)
      const results = new Map([...all].filter(([name]) => name !== e.attach))
      // Only a trace without a result asks whether it was skipped: a result, older or newer, is what it has.
      const skips = results.size === 0 ? await latestEngineSkips(store, ws.id, traceId, e.engines) : new Map<string, EngineSkip>()
      const body = results.size === 0 ? e.empty(traceId) : e.body(traceId, results)
      const attached = e.attach ? { [e.attach]: all.get(e.attach)?.payload ?? null } : {}
      return c.json({ ...body, ...attached, trace_id: traceId, ...provenance([...results.values()]), ...sampling([...results.values()], [...skips.values()]) })
    })
  return app
}
