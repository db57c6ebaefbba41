import type { TopicSpec } from './types.js'

/**
 * Topics are named <entity>.<stage>.v<n> for what they carry; dead letters are
 * <topic>.dlq. The schema of each is the .avsc file named beside it.
 */
export const TOPICS = {
  /** SpanBatch (span-batch.v2.avsc: a trace's spans of one request), key workspace_id:trace_id. Written by ingest, read by the assembler. */
  spansRaw: 'spans.raw.v2',
  /** DeadLetter (dead-letter.v1.avsc): items that failed validation inside an accepted request, and spans the assembler could not store. */
  spansRawDlq: 'spans.raw.v2.dlq',
  /** Span (span.v1.avsc), a record per span: what ingest wrote before spans.raw.v2. Read by the assembler (an upgrade drains it), written by nothing. */
  spansRawV1: 'spans.raw.v1',
  /** ControlEvent (control-event.v1.avsc): one partition, kept forever, folded by every process. */
  controlEvents: 'control.events.v1',
  /** BudgetAlert (budget-alert.v1.avsc), key workspace_id: cost budget thresholds crossed (advisory). */
  budgetAlerts: 'budget.alerts.v1',
  /** EngineResult (engine-result.v1.avsc), key workspace_id:trace_id: every engine's output, landed by the results sink. */
  engineResults: 'engine.results.v1',
  /** AlignmentDocument (alignment-document.v1.avsc), key workspace_id:doc_id: uploaded policy documents, chunked and embedded by the document worker. */
  alignmentDocuments: 'alignment.documents.v1',
  /** CodingAgentMetricPoint (coding-agent-metric.v1.avsc), key workspace_id:session. Written by ingest, read by the coding-agent consumer. */
  codingAgentMetrics: 'coding-agent.metrics.v1',
  /** CodingAgentEvent (coding-agent-event.v1.avsc), key workspace_id:session: OTLP log records and activity records of coding agents. */
  codingAgentEvents: 'coding-agent.events.v1',
} as const

/** Consumer groups (the assembler reads spans.raw.v2 and spans.raw.v1; the dead-letter sink every .dlq topic). */
export const GROUPS = {
  assembler: 'assembler',
  deadLetterSink: 'dead-letter-sink',
  engineResultsSink: 'engine-results-sink',
  alignmentDocuments: 'alignment-documents',
  codingAgent: 'coding-agent',
} as const

/** Each engine's workers form their own consumer group, so engines progress (and scale) independently. */
export const engineGroup = (engine: TraceEngine) => `engine-${engine}`

/** Engines that run per trace and so get a job topic (fleet_monitor is workspace-level, daily). */
export const TRACE_ENGINES = [
  'content_reliability',
  'decision_trace',
  'decomposition',
  'sources',
  'alignment',
  'correlation',
  'savings',
  'external_crosscheck',
] as const
export type TraceEngine = (typeof TRACE_ENGINES)[number]

/** Every engine named by the spec, in the order engine-settings lists them. */
export const ENGINE_NAMES = [...TRACE_ENGINES, 'fleet_monitor'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

/** Engines that are off until a workspace turns them on. */
export const ENGINES_OFF_BY_DEFAULT: ReadonlySet<EngineName> = new Set(['external_crosscheck'])

/** TraceCompleted (trace-completed.v1.avsc), key workspace_id:trace_id. */
export const engineJobsTopic = (engine: TraceEngine) => `engine.${engine}.jobs.v1`

/** Where a consumer of `topic` puts what it cannot decode or handle (runConsumer). */
export const dlqTopic = (topic: string) => `${topic}.dlq`
/** EngineJobFailed (engine-job-failed.v1.avsc): jobs an engine gave up on after its retries, or could not read. */
export const engineJobsDlqTopic = (engine: TraceEngine) => dlqTopic(engineJobsTopic(engine))

/** Topics read through runConsumer whose dead letters are DeadLetter records (dead-letter.v1.avsc). */
const DEAD_LETTERED = [TOPICS.spansRaw, TOPICS.spansRawV1, TOPICS.engineResults, TOPICS.alignmentDocuments, TOPICS.codingAgentMetrics, TOPICS.codingAgentEvents] as const

/**
 * Every dead-letter topic, all landed in dead_letters_v1 by the dead-letter sink so
 * ingestion health counts them per workspace: every record on them names its
 * workspace (a field, and the key's first part).
 */
export const DEAD_LETTER_TOPICS: readonly string[] = [...DEAD_LETTERED.map(dlqTopic), ...TRACE_ENGINES.map(engineJobsDlqTopic)]

export function allTopicSpecs(opts: { partitions: number; replicationFactor: number }): TopicSpec[] {
  const { partitions, replicationFactor } = opts
  return [
    { name: TOPICS.spansRaw, partitions, replicationFactor },
    { name: TOPICS.spansRawV1, partitions, replicationFactor },
    { name: TOPICS.controlEvents, partitions: 1, replicationFactor, retentionMs: -1 },
    { name: TOPICS.budgetAlerts, partitions: 1, replicationFactor },
    { name: TOPICS.engineResults, partitions, replicationFactor },
    { name: TOPICS.alignmentDocuments, partitions, replicationFactor },
    { name: TOPICS.codingAgentMetrics, partitions, replicationFactor },
    { name: TOPICS.codingAgentEvents, partitions, replicationFactor },
    ...TRACE_ENGINES.map((e) => ({ name: engineJobsTopic(e), partitions, replicationFactor })),
    ...DEAD_LETTER_TOPICS.map((name) => ({ name, partitions: 1, replicationFactor })),
  ]
}
