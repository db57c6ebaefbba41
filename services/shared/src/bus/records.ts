import { loadAvroType } from './avro.js'

/** One span: a spans.raw.v1 record, and what the assembler reads out of a spans.raw.v2 record (span-batch.ts); see schemas/span.v1.avsc for field meanings. */
export interface SpanRecord {
  org_id: string
  workspace_id: string
  project_id: string
  trace_id: string
  span_id: string
  parent_span_id: string
  name: string
  kind: string
  start_time_unix_nano: bigint | number
  end_time_unix_nano: bigint | number
  status_code: string
  status_message: string
  service_name: string
  scope_name: string
  resource_attributes: Record<string, string>
  attributes: Record<string, string>
  json_attribute_keys: string[]
  events_json: string
  links_json: string
  received_at_ms: number
}

export interface TraceCompletedRecord {
  org_id: string
  workspace_id: string
  project_id: string
  trace_id: string
  span_count: number
  trace_start_unix_nano: bigint | number
  trace_end_unix_nano: bigint | number
  last_span_received_at_ms: number
  completed_at_ms: number
  engine: string
}

export interface DeadLetterRecord {
  org_id: string
  workspace_id: string
  source: string
  reason: string
  payload: string
  received_at_ms: number
  /** Where a consumer read the record it dead-lettered, and its bytes; absent (defaults) for items rejected at ingest. */
  original_topic?: string
  original_partition?: number
  original_offset?: number | bigint
  original_value?: Buffer
}

export interface BudgetAlertRecord {
  org_id: string
  workspace_id: string
  period: 'day' | 'month'
  period_start: string
  level: 'warn' | 'cap'
  spend_usd: number
  cap_usd: number
  warn_pct: number
  raised_at_ms: number
}

export interface ControlEventRecord {
  event_id: string
  type: string
  payload_json: string
  actor: string
  at_ms: number
}

export interface EngineResultRecord {
  org_id: string
  workspace_id: string
  trace_id: string
  engine: string
  engine_version: string
  mode: string
  payload_json: string
  extras_json: string
  llm_input_tokens: number
  llm_output_tokens: number
  computed_at_ms: number
  expires_at_s: number
}

export interface EngineJobFailedRecord {
  engine: string
  job: Buffer
  workspace_id: string
  trace_id: string
  error: string
  attempts: number
  failed_at_ms: number
}

export const spanV1 = loadAvroType<SpanRecord>('span.v1.avsc')
export const traceCompletedV1 = loadAvroType<TraceCompletedRecord>('trace-completed.v1.avsc')
export const deadLetterV1 = loadAvroType<DeadLetterRecord>('dead-letter.v1.avsc')
export const controlEventV1 = loadAvroType<ControlEventRecord>('control-event.v1.avsc')
export const budgetAlertV1 = loadAvroType<BudgetAlertRecord>('budget-alert.v1.avsc')
export const engineResultV1 = loadAvroType<EngineResultRecord>('engine-result.v1.avsc')
export const engineJobFailedV1 = loadAvroType<EngineJobFailedRecord>('engine-job-failed.v1.avsc')

/** Spans of one trace share a partition, so one assembler sees the whole trace. */
export const traceKey = (workspaceId: string, traceId: string) => `${workspaceId}:${traceId}`

/** One coding-agent metric data point on coding-agent.metrics.v1 (schemas/coding-agent-metric.v1.avsc). */
export interface CodingAgentMetricRecord {
  org_id: string
  workspace_id: string
  metric_name: string
  metric_type: 'sum' | 'gauge' | 'histogram'
  temporality: 'delta' | 'cumulative' | 'none'
  is_monotonic: boolean
  unit: string
  start_time_unix_nano: bigint | number
  time_unix_nano: bigint | number
  value: number
  count: number
  service_name: string
  attributes: Record<string, string>
  received_at_ms: number
}

/** One coding-agent event (OTLP log record or activity record) on coding-agent.events.v1 (schemas/coding-agent-event.v1.avsc). */
export interface CodingAgentEventRecord {
  org_id: string
  workspace_id: string
  source: 'otlp.logs' | 'activity'
  event_name: string
  time_unix_nano: bigint | number
  severity_text: string
  body: string
  service_name: string
  attributes: Record<string, string>
  received_at_ms: number
}

export const codingAgentMetricV1 = loadAvroType<CodingAgentMetricRecord>('coding-agent-metric.v1.avsc')
export const codingAgentEventV1 = loadAvroType<CodingAgentEventRecord>('coding-agent-event.v1.avsc')

/** Records of one coding-agent session share a partition, so each metric series is converted in order. */
export const codingAgentKey = (workspaceId: string, session: string) => `${workspaceId}:${session}`

/** A policy document on alignment.documents.v1 (alignment-document.v1.avsc), key workspace_id:doc_id. */
export interface AlignmentDocumentRecord {
  org_id: string
  workspace_id: string
  doc_id: string
  filename: string
  content_type: string
  text: string
  uploaded_at_ms: number
}

export const alignmentDocumentV1 = loadAvroType<AlignmentDocumentRecord>('alignment-document.v1.avsc')
