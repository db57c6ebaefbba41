/**
 * The engines by name: each pairs its deterministic algorithm with, where an LLM
 * helps, the LLM variant used when the organization has a credential. Every trace
 * engine of the spec's list is a definition here; fleet_monitor works on the workspace's daily
 * roll-up rather than on traces (assembler/src/fleet-monitor.ts).
 */
import type { TraceEngine } from '@svc/shared/bus/topics'
import { gradeRank, isGrade } from '@svc/shared/domain/grades'
import { deterministicMode } from '@svc/shared/domain/semantic-model'
import { alignment, ALIGNMENT_VERSION } from './alignment/index.js'
import { externalCrosscheck } from './crosscheck/index.js'
import { decisionTrace } from './decision-trace/index.js'
import { decomposition, semanticDecomposition } from './decomposition/index.js'
import { llmContentReliability } from './llm/reliability.js'
import { llmAlignment } from './llm/alignment.js'
import { llmDecomposition } from './llm/decomposition.js'
import { correlationFindings, savingsFindings } from './optimization/index.js'
import type { LlmClient } from './llm/client.js'
import type { ContentReliability } from './outputs.js'
import { contentReliability } from './reliability/index.js'
import type { EngineDefinition, EngineOutcome } from './runtime/types.js'
import { broadenSources } from './sources/broaden.js'
import { sourceSignals, sourcesMatrix } from './sources/index.js'

/** The trace-list row of a reliability result: rank -1 and score 0 when ungradeable. */
function scoreRow(r: ContentReliability) {
  return {
    grade: r.grade,
    grade_rank: isGrade(r.grade) ? gradeRank(r.grade) : -1,
    score: r.score === null ? 0 : Math.round(r.score * 10_000) / 100,
    scorer_version: r.scorer_version,
  }
}

/** The client an engine run uses, counting the tokens of its calls for the result row. */
function counting(llm: LlmClient) {
  const usage = { inputTokens: 0, outputTokens: 0 }
  const client: LlmClient = {
    async generate(schema, req, engine) {
      const r = await llm.generate(schema, req, engine)
      usage.inputTokens += r.usage.inputTokens
      usage.outputTokens += r.usage.outputTokens
      return r
    },
  }
  return { client, usage }
}

const defs: EngineDefinition[] = [
  {
    name: 'content_reliability',
    version: '2',
    async run(view, ctx): Promise<EngineOutcome> {
      const embedder = (await ctx.semantic?.()) ?? null
      if (ctx.llm) {
        const { client, usage } = counting(ctx.llm)
        const result = await llmContentReliability(view, client, embedder)
        return { payload: { ...result }, mode: 'llm', usage, extras: { score: scoreRow(result) } }
      }
      const result = await contentReliability(view, embedder)
      return { payload: { ...result }, mode: deterministicMode(embedder !== null), extras: { score: scoreRow(result) } }
    },
  },
  {
    name: 'decision_trace',
    version: '2',
    run: async (view) => ({ payload: { ...decisionTrace(view) }, mode: 'deterministic' }),
  },
  {
    name: 'decomposition',
    version: '3',
    async run(view, ctx) {
      if (ctx.llm) {
        const { client, usage } = counting(ctx.llm)
        const result = await llmDecomposition(view, client)
        return { payload: { ...result }, mode: 'llm', usage }
      }
      const embedder = (await ctx.semantic?.()) ?? null
      const result = embedder ? await semanticDecomposition(view, embedder) : decomposition(view)
      return { payload: { ...result }, mode: deterministicMode(embedder !== null) }
    },
  },
  {
    name: 'sources',
    version: '2',
    async run(view, ctx) {
      // The trace's one claim judgement (reliability/judgement.ts), deterministic even with an LLM:
      // the feedback that moves authority priors must not depend on which model an organization pays for.
      const embedder = (await ctx.semantic?.()) ?? null
      const reliability = await contentReliability(view, embedder)
      const matrix = sourcesMatrix(view, reliability, ctx.priorOf)
      const { citations, feedback } = sourceSignals(view, reliability, Date.now())
      const open = ctx.broadenSources && ctx.search !== null
      if (open) matrix.sources.push(...(await broadenSources(reliability, ctx.search!, ctx.priorOf, new Set(matrix.sources.map((s) => s.url)))))
      const mode = open ? 'open_web' : 'closed_knowledge_base'
      const note = open
        ? 'broaden_sources is on: claims the trace did not back were searched on the open web.'
        : ctx.broadenSources
          ? 'broaden_sources is on but the organization has no search credential: closed-knowledge-base mode, the trace\'s own sources only.'
          : "Closed-knowledge-base mode: the trace's own sources only."
      return { payload: { ...matrix, mode, note }, mode: deterministicMode(embedder !== null), extras: { citations, feedback } }
    },
  },
  {
    name: 'correlation',
    version: '1',
    run: async (view, ctx) => ({ payload: { trace_id: view.trace_id, findings: correlationFindings(view, ctx.prices) }, mode: 'deterministic' }),
  },
  {
    name: 'savings',
    version: '1',
    run: async (view, ctx) => ({ payload: { trace_id: view.trace_id, findings: savingsFindings(view, ctx.prices) }, mode: 'deterministic' }),
  },
  {
    name: 'external_crosscheck',
    version: '2',
    async run(view, ctx) {
      const embedder = (await ctx.semantic?.()) ?? null
      return { payload: { ...(await externalCrosscheck(view, ctx.search, {}, embedder)) }, mode: deterministicMode(embedder !== null) }
    },
  },
  {
    name: 'alignment',
    version: ALIGNMENT_VERSION,
    async run(view, ctx) {
      const policy = ctx.alignmentPolicy ?? { enabled: false, description: '' }
      const search = ctx.searchPolicy ?? (async (texts: string[]) => texts.map(() => []))
      if (ctx.llm && policy.enabled) {
        const { client, usage } = counting(ctx.llm)
        const result = await llmAlignment(view, policy, search, client)
        return { payload: { ...result }, mode: 'llm', usage, extras: { flags: result.flags } }
      }
      const embedder = (await ctx.semantic?.()) ?? null
      const result = await alignment(view, policy, search, embedder)
      // The flags also land in alignment_flags_v1 (result-sink.ts), which GET .../alignment/flags and /by-user read.
      return { payload: { ...result }, mode: deterministicMode(embedder !== null), extras: { flags: result.flags } }
    },
  },
]

export const ENGINE_DEFINITIONS: ReadonlyMap<TraceEngine, EngineDefinition> = new Map(defs.map((d) => [d.name, d]))
