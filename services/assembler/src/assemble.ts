import { traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { genAiFacts, type GenAiFacts } from '@svc/shared/domain/genai'
import { priceTokens, type PriceTable } from '@svc/shared/domain/pricing'

/**
 * The spans_v1 insert row (column names as in clickhouse/0001_create_spans_v1.sql).
 * DateTime64 columns are given as integer tick strings (ns for DateTime64(9), ms
 * for DateTime64(3)), which ClickHouse parses exactly, with no float rounding.
 */
export interface SpanRow {
  org_id: string
  workspace_id: string
  project_id: string
  trace_id: string
  span_id: string
  parent_span_id: string
  name: string
  kind: string
  start_time: string
  end_time: string
  duration_ns: string
  status_code: string
  status_message: string
  service_name: string
  scope_name: string
  model: string
  provider: string
  span_type: string
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_write_tokens: number
  reasoning_tokens: number
  cost_usd: number
  cost_source: '' | 'reported' | 'priced' | 'unpriced'
  pricing_version: string
  is_llm: number
  resource_attributes: Record<string, string>
  attributes: Record<string, string>
  json_attribute_keys: string[]
  events: string
  links: string
  received_at: string
  expires_at: number
  /** 1 when this is the span's first stored copy; only those count in traces_v1's sums. */
  first_delivery: number
  /** The assembler batch that stores this copy (rollups.ts batchIds), set per batch; '0' until then. */
  batch_id: string
  [column: string]: unknown
}

/**
 * spans_v1's columns as the span consumer writes them (RowBinary is by name, so
 * any order): first_delivery last, the one byte set after the row is encoded,
 * once the batch's look-up of stored copies has answered (EncodedRows.setLastByte).
 */
export const SPAN_COLUMNS: ReadonlyArray<keyof SpanRow & string> = [
  'org_id', 'workspace_id', 'project_id', 'trace_id', 'span_id', 'parent_span_id', 'name', 'kind',
  'start_time', 'end_time', 'duration_ns', 'status_code', 'status_message', 'service_name', 'scope_name',
  'model', 'provider', 'span_type', 'input_tokens', 'output_tokens', 'cache_read_tokens',
  'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'cost_source', 'pricing_version', 'is_llm',
  'resource_attributes', 'attributes', 'json_attribute_keys', 'events', 'links', 'received_at', 'expires_at',
  'batch_id', 'first_delivery',
]

const NS_PER_HOUR = 3_600_000_000_000n

/** What a row needs beyond its record: the workspace's settings and the price table in force. */
export interface RowContext {
  retentionHours: number
  /** The workspace's effective cost provider: its cost_provider, else SVC_DEFAULT_COST_PROVIDER. */
  costProvider: string
  prices: PriceTable
}

/**
 * One accepted span to one spans_v1 row. Pure: the same record and context always
 * give the same row, which is what makes a replay after a crash collapse onto the
 * rows it already wrote.
 *
 * Cost: a cost the span reports is kept; an LLM span is otherwise priced from its
 * tokens with the price table, looking up the workspace's effective provider first
 * and the provider the span names second; a model neither knows costs 0 and is
 * marked unpriced.
 */
export function spanRow(r: SpanRecord, ctx: RowContext): SpanRow {
  const start = BigInt(r.start_time_unix_nano)
  const end = BigInt(r.end_time_unix_nano)
  const { facts, cost } = spanFacts(r.attributes, Number(start / 1_000_000n), ctx)
  // Expiry runs from the span's own start, so reads and TTL agree on what is "older than the window".
  const expiresNs = start + BigInt(ctx.retentionHours) * NS_PER_HOUR
  return {
    org_id: r.org_id,
    workspace_id: r.workspace_id,
    project_id: r.project_id,
    trace_id: r.trace_id,
    span_id: r.span_id,
    parent_span_id: r.parent_span_id,
    name: r.name,
    kind: r.kind,
    start_time: start.toString(),
    end_time: end.toString(),
    duration_ns: (end > start ? end - start : 0n).toString(),
    status_code: r.status_code,
    status_message: r.status_message,
    service_name: r.service_name,
    scope_name: r.scope_name,
    model: facts.model,
    provider: facts.provider,
    span_type: facts.spanType,
    input_tokens: facts.inputTokens,
    output_tokens: facts.outputTokens,
    cache_read_tokens: facts.cacheReadTokens,
    cache_write_tokens: facts.cacheWriteTokens,
    reasoning_tokens: facts.reasoningTokens,
    cost_usd: cost.usd,
    cost_source: cost.source,
    pricing_version: cost.version,
    is_llm: facts.isLlm ? 1 : 0,
    resource_attributes: r.resource_attributes,
    attributes: r.attributes,
    json_attribute_keys: r.json_attribute_keys,
    events: r.events_json,
    links: r.links_json,
    received_at: String(r.received_at_ms),
    expires_at: Number(expiresNs / 1_000_000_000n),
    first_delivery: 1,
    batch_id: '0',
  }
}

/** A span's normalized GenAI facts and its cost (module comment of spanRow), from its attributes and its start in ms. */
export function spanFacts(attributes: Record<string, string>, startMs: number, ctx: RowContext): { facts: GenAiFacts; cost: SpanCostColumns } {
  const facts = genAiFacts(attributes)
  if (facts.reportedCostUsd !== null) return { facts, cost: { usd: facts.reportedCostUsd, source: 'reported', version: '' } }
  if (!facts.isLlm) return { facts, cost: NO_COST }
  const priced = priceTokens(ctx.prices, [ctx.costProvider, facts.provider], facts.model, startMs, {
    input: facts.inputTokens, output: facts.outputTokens, cacheRead: facts.cacheReadTokens, cacheWrite: facts.cacheWriteTokens, reasoning: facts.reasoningTokens,
  })
  return { facts, cost: { usd: priced.costUsd, source: priced.priced ? 'priced' : 'unpriced', version: priced.pricingVersion } }
}

interface SpanCostColumns {
  usd: number
  source: SpanRow['cost_source']
  version: string
}
const NO_COST: SpanCostColumns = { usd: 0, source: '', version: '' }

/** Identity of a span across deliveries: its trace's key plus its id. */
export const spanKey = (r: { workspace_id: string; trace_id: string; span_id: string }) => `${traceKey(r.workspace_id, r.trace_id)}:${r.span_id}`

/**
 * One row per span of a batch: the copy received last (what spans_v1's
 * ReplacingMergeTree(received_at) keeps; of equal times, the later in the batch).
 * A batch then holds at most one copy of a span, so its first copy can only be
 * replaced in spans_v1 by a copy of a later batch, stored after it was counted
 * (or reconciled): which is what lets a replay trust a surviving first copy's
 * batch to say whether the roll-ups counted it (store/queries/rollups.ts).
 * Rows are told one at a time, as the span consumer encodes them.
 */
export class SpanCopies {
  private readonly receivedMs: number[] = []
  private readonly superseded: number[] = []

  /**
   * Tells the next row (index: the rows told so far), a copy of span `spanId` received
   * at `receivedMs`; `seen` maps its trace's span ids to the copy kept so far (one map
   * per trace, so no key is built per span).
   */
  add(seen: Map<string, number>, spanId: string, receivedMs: number): void {
    const index = this.receivedMs.length
    this.receivedMs.push(receivedMs)
    const kept = seen.get(spanId)
    if (kept === undefined) seen.set(spanId, index)
    else if (receivedMs >= this.receivedMs[kept]!) {
      this.superseded.push(kept)
      seen.set(spanId, index)
    } else this.superseded.push(index)
  }

  /** The indices of the rows kept, ascending; null when every row is. */
  kept(): number[] | null {
    if (this.superseded.length === 0) return null
    const drop = new Set(this.superseded)
    return this.receivedMs.map((_, i) => i).filter((i) => !drop.has(i))
  }
}
