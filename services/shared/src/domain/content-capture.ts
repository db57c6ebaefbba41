/**
 * Prompt and completion text in span attributes and events, across the conventions
 * producers use, and its removal for workspaces that keep capture_text off (the
 * default). Ingest strips it before a span reaches the bus, so with capture off the
 * text is stored nowhere: not on the topic, not in ClickHouse.
 *
 * Covered: OpenTelemetry GenAI (gen_ai.input.messages, gen_ai.output.messages,
 * gen_ai.system_instructions, tool call arguments and results, and the older
 * gen_ai.prompt / gen_ai.completion with the gen_ai.content.* events), OpenLLMetry
 * (gen_ai.prompt.N.content, gen_ai.completion.N.content, llm.prompts,
 * llm.completions, traceloop.entity.input/output) and OpenInference (input.value,
 * output.value, llm.input_messages.N.message.content and its contents[]). Roles,
 * models, token counts and everything else stay.
 */
import type { SpanRecord } from '../bus/records.js'

const TEXT_ATTRIBUTE = new RegExp(
  '^(?:' +
    [
      'gen_ai\\.(?:prompt|completion)(?:\\.\\d+\\.content)?',
      'gen_ai\\.(?:input|output)\\.messages',
      'gen_ai\\.system_instructions',
      'gen_ai\\.tool\\.call\\.(?:arguments|result)',
      'llm\\.(?:prompts|completions)(?:\\.\\d+(?:\\.content)?)?',
      'traceloop\\.entity\\.(?:input|output)',
      '(?:input|output)\\.value',
      'llm\\.(?:input|output)_messages\\.\\d+\\.message\\.(?:content|contents\\.\\d+\\.message_content\\.text)',
    ].join('|') +
    ')$',
)

/** Span events whose attributes are message text as a whole (OpenTelemetry GenAI events). */
const TEXT_EVENTS = new Set([
  'gen_ai.content.prompt',
  'gen_ai.content.completion',
  'gen_ai.system.message',
  'gen_ai.user.message',
  'gen_ai.assistant.message',
  'gen_ai.tool.message',
  'gen_ai.choice',
  'gen_ai.client.inference.operation.details',
])

export const isTextAttribute = (key: string): boolean => TEXT_ATTRIBUTE.test(key)

interface SpanEvent {
  name?: string
  attributes?: Record<string, unknown>
  [k: string]: unknown
}

/**
 * Removes prompt and completion text from a decoded span, in place. Returns how
 * many attributes were removed (event attributes included).
 */
export function stripContent(span: Pick<SpanRecord, 'attributes' | 'json_attribute_keys' | 'events_json'>): number {
  let removed = 0
  for (const key of Object.keys(span.attributes)) {
    if (!TEXT_ATTRIBUTE.test(key)) continue
    delete span.attributes[key]
    removed++
  }
  if (removed) span.json_attribute_keys = span.json_attribute_keys.filter((k) => !TEXT_ATTRIBUTE.test(k))
  if (span.events_json !== '[]' && span.events_json !== '') {
    const events = JSON.parse(span.events_json) as SpanEvent[]
    let touched = false
    for (const e of events) {
      if (!e.attributes) continue
      for (const key of Object.keys(e.attributes)) {
        if (!(TEXT_EVENTS.has(e.name ?? '') || TEXT_ATTRIBUTE.test(key))) continue
        delete e.attributes[key]
        removed++
        touched = true
      }
    }
    if (touched) span.events_json = JSON.stringify(events)
  }
  return removed
}
