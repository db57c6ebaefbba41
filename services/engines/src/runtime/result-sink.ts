/**
 * The results sink: engine.results.v1 -> engine_results_v1 (every engine), plus
 * the rows some results imply elsewhere: the grade of content_reliability in
 * trace_scores_v1 (what the trace list shows and grade_min filters on), the
 * citations and authority feedback of sources in trace_sources_v1, and alignment's
 * flags in alignment_flags_v1. A record of mode `skipped` is no result: the worker
 * skipped the trace (sampling, runtime/sampling.ts), and it lands in engine_skips_v1,
 * so the endpoint can say so; batching it here keeps a sampling worker's many skips
 * to one insert per sink batch.
 *
 * Every table keeps the newest row per key (per trace for the sources), so a
 * replayed batch collapses and a re-analysed trace replaces its older result.
 */
import { engineResultV1, type EngineResultRecord } from '@svc/shared/bus/records'
import { isStorableUuid, type ConsumerSpec, type Delivered, type Rejection } from '@svc/shared/bus/run-consumer'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import { SKIP_REASONS, type SkipReason } from '@svc/shared/domain/engine-sampling'
import type { Logger } from '@svc/shared/log'
import { insertFlags, type FlagRow } from '@svc/shared/store/queries/alignment'
import { insertEngineResults, insertTraceScores, recordSkippedTraces, type EngineSkipRow, type TraceScoreRow } from '@svc/shared/store/queries/engine-results'
import { recordTraceSources, traceSources, type SourceCitation, type SourceFeedback, type TraceSources } from '@svc/shared/store/queries/sources'
import type { Store } from '@svc/shared/store/types'

/** The mode of an EngineResult that says the engine skipped the trace, and its payload. */
export const SKIPPED_MODE = 'skipped'
export interface SkippedPayload {
  trace_id: string
  skipped: SkipReason
  sample_rate: number
}

/** The extras each engine may attach to its result. */
export interface ResultExtras {
  score?: { grade: string; grade_rank: number; score: number; scorer_version: string }
  citations?: SourceCitation[]
  feedback?: SourceFeedback[]
  /** alignment: its flags (alignment/index.ts AlignmentFlag). */
  flags?: Array<{ flag_id: string; trace_id: string; doc_id: string; policy_excerpt: string; agent_output: string; severity: string; confidence: number; unclear: boolean; end_user: string }>
}

/** A result's extras, or why it can never be landed (a row ClickHouse refuses would fail its whole batch, forever). */
function invalidResult(r: EngineResultRecord): { reason: string; extras?: never } | { reason?: never; extras: ResultExtras } {
  if (!isStorableUuid(r.workspace_id)) return { reason: `workspace_id is not a UUID: ${JSON.stringify(r.workspace_id.slice(0, 64))}` }
  if (!r.trace_id) return { reason: 'empty trace_id' }
  try {
    JSON.parse(r.payload_json)
    const extras = JSON.parse(r.extras_json) as unknown
    if (!extras || typeof extras !== 'object' || Array.isArray(extras)) return { reason: 'extras_json is not a JSON object' }
    return { extras: extras as ResultExtras }
  } catch (err) {
    return { reason: `payload_json or extras_json is not JSON: ${err instanceof Error ? err.message : String(err)}` }
  }
}

/** The results sink's consumer (group engine-results-sink), run by runConsumer. */
export function resultSinkConsumer(store: Store, log: Logger): ConsumerSpec<EngineResultRecord> {
  return {
    group: GROUPS.engineResultsSink,
    topics: { [TOPICS.engineResults]: engineResultV1 },
    maxBatchRecords: 5000,
    log,
    handle: (batch) => landResults(store, batch),
  }
}

async function landResults(store: Store, batch: Array<Delivered<EngineResultRecord>>): Promise<Rejection[]> {
  const rejected: Rejection[] = []
  const results: Array<{ r: EngineResultRecord; extras: ResultExtras }> = []
  const skips: EngineSkipRow[] = []
  for (const { value: r, record } of batch) {
    const checked = invalidResult(r)
    if (checked.reason !== undefined) rejected.push({ record, reason: checked.reason, workspaceId: r.workspace_id, orgId: r.org_id })
    else if (r.mode === SKIPPED_MODE) skips.push(skipRow(r))
    else results.push({ r, extras: checked.extras })
  }
  const scores: TraceScoreRow[] = []
  const sources: TraceSources[] = []
  const flags: FlagRow[] = []
  for (const { r, extras } of results) {
    if (extras.score)
      scores.push({ workspace_id: r.workspace_id, trace_id: r.trace_id, ...extras.score, scored_at: String(r.computed_at_ms), expires_at: r.expires_at_s })
    // The sources engine's result, even with nothing cited: it replaces what an older analysis recorded.
    if (extras.citations || extras.feedback)
      sources.push(traceSources({ workspace_id: r.workspace_id, trace_id: r.trace_id, analysed_at_ms: r.computed_at_ms, expires_at_s: r.expires_at_s }, extras.citations ?? [], extras.feedback ?? []))
    for (const f of extras.flags ?? [])
      flags.push({
        workspace_id: r.workspace_id,
        trace_id: r.trace_id,
        flag_id: f.flag_id,
        doc_id: f.doc_id,
        policy_excerpt: f.policy_excerpt,
        agent_output: f.agent_output,
        severity: f.severity,
        confidence: f.confidence,
        unclear: f.unclear ? 1 : 0,
        end_user: f.end_user,
        mode: r.mode,
        computed_at: String(r.computed_at_ms),
        expires_at: r.expires_at_s,
      })
  }
  await Promise.all([
    insertEngineResults(
      store,
      results.map(({ r }) => ({
        workspace_id: r.workspace_id,
        trace_id: r.trace_id,
        engine: r.engine,
        engine_version: r.engine_version,
        mode: r.mode,
        payload: r.payload_json,
        llm_input_tokens: r.llm_input_tokens,
        llm_output_tokens: r.llm_output_tokens,
        computed_at: String(r.computed_at_ms),
        expires_at: r.expires_at_s,
      })),
    ),
    insertTraceScores(store, scores),
    recordSkippedTraces(store, skips),
    recordTraceSources(store, sources),
    insertFlags(store, flags),
  ])
  return rejected
}

function skipRow(r: EngineResultRecord): EngineSkipRow {
  const p = JSON.parse(r.payload_json) as Partial<SkippedPayload>
  return {
    workspace_id: r.workspace_id,
    trace_id: r.trace_id,
    engine: r.engine,
    reason: SKIP_REASONS.find((r) => r === p.skipped) ?? 'configured',
    sample_rate: Number(p.sample_rate ?? 0),
    skipped_at: String(r.computed_at_ms),
    expires_at: r.expires_at_s,
  }
}
