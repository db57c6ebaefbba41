/**
 * Attribute normalization: what a span says about its LLM work, read from the
 * conventions producers actually emit, into one shape. Pure: attributes in, facts
 * out. Attribute values arrive as strings (non-strings as JSON text, span.v1.avsc).
 *
 * | Fact | OpenTelemetry GenAI (current, then older names) | OpenLLMetry | OpenInference |
 * |---|---|---|---|
 * | model | gen_ai.response.model, gen_ai.request.model | (same) | llm.model_name |
 * | provider | gen_ai.provider.name, gen_ai.system | (same) | llm.provider, llm.system |
 * | input tokens | gen_ai.usage.input_tokens | gen_ai.usage.prompt_tokens, llm.usage.prompt_tokens | llm.token_count.prompt |
 * | output tokens | gen_ai.usage.output_tokens | gen_ai.usage.completion_tokens, llm.usage.completion_tokens | llm.token_count.completion |
 * | cache read / write | gen_ai.usage.cache_read.input_tokens, gen_ai.usage.cache_creation.input_tokens | gen_ai.usage.cache_read_input_tokens, gen_ai.usage.cache_creation_input_tokens | llm.token_count.prompt_details.cache_read / cache_write |
 * | reasoning | gen_ai.usage.reasoning.output_tokens | gen_ai.usage.reasoning_tokens, llm.usage.reasoning_tokens | llm.token_count.completion_details.reasoning |
 * | span type | gen_ai.operation.name | traceloop.span.kind, llm.request.type | openinference.span.kind |
 * | prompt / completion | gen_ai.input.messages / gen_ai.output.messages (older: gen_ai.prompt / gen_ai.completion) | gen_ai.prompt.N.content / gen_ai.completion.N.content | input.value / output.value, llm.input_messages.N.message.content |
 * | tool calls | gen_ai.tool.name, gen_ai.tool.call.arguments | (same) | tool.name, tool.parameters |
 * | retrieved documents | gen_ai.retrieval.documents | (same) | retrieval.documents.N.document.{id,content,score,metadata} |
 *
 * Cache tokens are never counted twice: the OpenTelemetry and OpenInference input
 * counts already include cache reads and writes; the Anthropic API's own names
 * (`cache_read_input_tokens`, `cache_creation_input_tokens`, as OpenLLMetry passes
 * them on) come with the API's raw input count, which excludes them, so they are
 * added to it. Output counts include reasoning in every convention.
 */
export type SpanType = 'llm' | 'embedding' | 'tool' | 'retrieval' | 'agent' | 'chain' | 'other'

export interface GenAiFacts {
  model: string
  /** Lower-case provider key (openai, anthropic, aws.bedrock, ...); from the model name when the span names none; '' when unknown. */
  provider: string
  spanType: SpanType
  /** True for a call to a model (an llm or embedding span), not for the agent and tool spans around it. */
  isLlm: boolean
  /** All input tokens, cache reads and writes included. */
  inputTokens: number
  /** All output tokens, reasoning included. */
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  reasoningTokens: number
  /** Cost the producer reported itself, if any; otherwise null (priced at assembly). */
  reportedCostUsd: number | null
}

const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'llm.response.model', 'llm.request.model']
const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system']
const INPUT_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.usage.prompt_tokens', 'llm.token_count.prompt']
const OUTPUT_KEYS = ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.usage.completion_tokens', 'llm.token_count.completion']
const CACHE_READ_INCLUDED = ['gen_ai.usage.cache_read.input_tokens', 'llm.token_count.prompt_details.cache_read']
const CACHE_WRITE_INCLUDED = ['gen_ai.usage.cache_creation.input_tokens', 'llm.token_count.prompt_details.cache_write']
const CACHE_READ_RAW = 'gen_ai.usage.cache_read_input_tokens'
const CACHE_WRITE_RAW = 'gen_ai.usage.cache_creation_input_tokens'
const REASONING_KEYS = ['gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens', 'llm.usage.reasoning_tokens', 'llm.token_count.completion_details.reasoning']
const COST_KEYS = ['svc.cost_usd', 'gen_ai.usage.cost', 'gen_ai.usage.cost_usd', 'llm.usage.cost', 'llm.cost.total']

/**
 * Every attribute genAiFacts reads: the facts of a span depend on these alone, so a
 * reader may hand it just these (assembler/src/span-rows.ts; genai.test.ts checks
 * the list against what genAiFacts reads).
 */
export const GENAI_FACT_KEYS: ReadonlySet<string> = new Set([
  ...MODEL_KEYS, ...PROVIDER_KEYS, ...INPUT_KEYS, ...OUTPUT_KEYS, ...CACHE_READ_INCLUDED, ...CACHE_WRITE_INCLUDED, CACHE_READ_RAW, CACHE_WRITE_RAW, ...REASONING_KEYS, ...COST_KEYS,
  'gen_ai.operation.name', 'openinference.span.kind', 'llm.request.type', 'traceloop.span.kind', 'gen_ai.tool.name', 'tool.name',
  'gen_ai.retrieval.documents', 'retrieval.documents.0.document.id', 'retrieval.documents.0.document.content',
])

const OPERATION_TYPES: Record<string, SpanType> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  embeddings: 'embedding',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  retrieval: 'retrieval',
}
const OPENINFERENCE_TYPES: Record<string, SpanType> = { LLM: 'llm', EMBEDDING: 'embedding', TOOL: 'tool', RETRIEVER: 'retrieval', RERANKER: 'retrieval', AGENT: 'agent', CHAIN: 'chain' }
const TRACELOOP_TYPES: Record<string, SpanType> = { workflow: 'chain', task: 'chain', agent: 'agent', tool: 'tool' }

function firstNumber(attrs: Record<string, string>, keys: string[]): number | null {
  for (const k of keys) {
    const raw = attrs[k]
    if (raw === undefined || raw === '') continue
    const n = Number(raw)
    if (Number.isFinite(n) && n >= 0) return n
  }
  return null
}

const firstString = (attrs: Record<string, string>, keys: string[]) => {
  for (const k of keys) if (attrs[k]) return attrs[k]!
  return ''
}

/** The provider a model name implies, for spans that do not name one. */
function providerOfModel(model: string): string {
  const m = model.toLowerCase()
  if (/^(gpt-|o\d|text-embedding|chatgpt|davinci|babbage)/.test(m)) return 'openai'
  if (m.startsWith('claude')) return 'anthropic'
  if (m.startsWith('gemini') || m.startsWith('text-bison')) return 'google'
  if (m.startsWith('mistral') || m.startsWith('mixtral') || m.startsWith('codestral')) return 'mistral_ai'
  if (m.includes('anthropic.') || m.includes('amazon.') || m.includes('meta.llama')) return 'aws.bedrock'
  return ''
}

function spanTypeOf(attrs: Record<string, string>, model: string, tokens: boolean): SpanType {
  const op = OPERATION_TYPES[attrs['gen_ai.operation.name'] ?? '']
  if (op) return op
  const oi = OPENINFERENCE_TYPES[(attrs['openinference.span.kind'] ?? '').toUpperCase()]
  if (oi) return oi
  // An LLM request type is more specific than the workflow/task decorator kind around it.
  const requestType = attrs['llm.request.type']
  if (requestType === 'embedding') return 'embedding'
  if (requestType) return 'llm'
  const tl = TRACELOOP_TYPES[attrs['traceloop.span.kind'] ?? '']
  if (tl) return tl
  if (attrs['gen_ai.tool.name'] || attrs['tool.name']) return 'tool'
  if (attrs['gen_ai.retrieval.documents'] || attrs['retrieval.documents.0.document.id'] || attrs['retrieval.documents.0.document.content']) return 'retrieval'
  if (model || tokens) return 'llm'
  return 'other'
}

export function genAiFacts(attrs: Record<string, string>): GenAiFacts {
  const model = firstString(attrs, MODEL_KEYS)
  const provider = (firstString(attrs, PROVIDER_KEYS) || providerOfModel(model)).toLowerCase()
  const reported = Math.round(firstNumber(attrs, INPUT_KEYS) ?? 0)
  const includedRead = firstNumber(attrs, CACHE_READ_INCLUDED)
  const includedWrite = firstNumber(attrs, CACHE_WRITE_INCLUDED)
  const rawRead = firstNumber(attrs, [CACHE_READ_RAW])
  const rawWrite = firstNumber(attrs, [CACHE_WRITE_RAW])
  const cacheReadTokens = Math.round(includedRead ?? rawRead ?? 0)
  const cacheWriteTokens = Math.round(includedWrite ?? rawWrite ?? 0)
  // Raw (Anthropic API) counts exclude the cache; included ones already hold it.
  const rawStyle = includedRead === null && includedWrite === null && (rawRead !== null || rawWrite !== null)
  const inputTokens = rawStyle ? reported + cacheReadTokens + cacheWriteTokens : reported
  const outputTokens = Math.round(firstNumber(attrs, OUTPUT_KEYS) ?? 0)
  const reasoningTokens = Math.min(Math.round(firstNumber(attrs, REASONING_KEYS) ?? 0), outputTokens)
  const tokens = inputTokens > 0 || outputTokens > 0
  const spanType = spanTypeOf(attrs, model, tokens)
  // A call to a model: what usage counts as an LLM request and what gets priced. Agent and
  // tool spans carry gen_ai.* attributes too (invoke_agent, execute_tool) but call no model.
  const isLlm = spanType === 'llm' || spanType === 'embedding'
  return {
    model,
    provider,
    spanType,
    isLlm,
    inputTokens,
    outputTokens,
    cacheReadTokens: Math.min(cacheReadTokens, inputTokens),
    cacheWriteTokens: Math.min(cacheWriteTokens, Math.max(0, inputTokens - cacheReadTokens)),
    reasoningTokens,
    reportedCostUsd: firstNumber(attrs, COST_KEYS),
  }
}

/**
 * Latency phase of a span, for the latency panel: llm, tool, retrieval, embedding,
 * agent (agents and the chains/workflows that orchestrate them) or other.
 */
export type Phase = 'llm' | 'tool' | 'retrieval' | 'embedding' | 'agent' | 'other'
export const PHASES: readonly Phase[] = ['llm', 'tool', 'retrieval', 'embedding', 'agent', 'other']
export const phaseOf = (t: SpanType): Phase => (t === 'chain' ? 'agent' : t)
