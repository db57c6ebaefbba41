/**
 * What the assembler needs to know about a span's LLM content, read from the
 * attribute conventions producers actually emit: the OpenTelemetry GenAI
 * conventions (current and older names), OpenLLMetry (llm.usage.*) and
 * OpenInference (llm.token_count.*). Pure: attributes in, facts out.
 *
 * Attribute values arrive as strings (non-strings as JSON text), see span.v1.avsc.
 */
export interface LlmFacts {
  model: string
  inputTokens: number
  outputTokens: number
  /** Cost the producer reported itself, if any; otherwise null (priced later). */
  reportedCostUsd: number | null
  isLlm: boolean
}

const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'llm.response.model', 'llm.request.model']
const INPUT_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.usage.prompt_tokens', 'llm.token_count.prompt']
const OUTPUT_KEYS = ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.usage.completion_tokens', 'llm.token_count.completion']
const COST_KEYS = ['svc.cost_usd', 'gen_ai.usage.cost', 'gen_ai.usage.cost_usd', 'llm.usage.cost', 'llm.cost.total']
const LLM_KINDS = new Set(['llm', 'LLM', 'chat', 'embedding', 'EMBEDDING'])

function firstNumber(attrs: Record<string, string>, keys: string[]): number | null {
  for (const k of keys) {
    const raw = attrs[k]
    if (raw === undefined || raw === '') continue
    const n = Number(raw)
    if (Number.isFinite(n) && n >= 0) return n
  }
  return null
}

export function llmFacts(attrs: Record<string, string>): LlmFacts {
  let model = ''
  for (const k of MODEL_KEYS) {
    const v = attrs[k]
    if (v) {
      model = v
      break
    }
  }
  const inputTokens = Math.round(firstNumber(attrs, INPUT_KEYS) ?? 0)
  const outputTokens = Math.round(firstNumber(attrs, OUTPUT_KEYS) ?? 0)
  const kind = attrs['openinference.span.kind'] ?? attrs['traceloop.span.kind'] ?? ''
  const isLlm =
    model !== '' ||
    inputTokens > 0 ||
    outputTokens > 0 ||
    LLM_KINDS.has(kind) ||
    attrs['gen_ai.operation.name'] !== undefined ||
    attrs['gen_ai.system'] !== undefined ||
    attrs['gen_ai.provider.name'] !== undefined
  return { model, inputTokens, outputTokens, reportedCostUsd: firstNumber(attrs, COST_KEYS), isLlm }
}
