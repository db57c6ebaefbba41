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
// The key rule itself lives in the SDK, which applies it client-side before export.
import { isTextAttribute, isTextEventAttribute } from '@svc/sdk/content-keys'

export { isTextAttribute }

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
    if (!isTextAttribute(key)) continue
    delete span.attributes[key]
    removed++
  }
  if (removed) span.json_attribute_keys = span.json_attribute_keys.filter((k) => !isTextAttribute(k))
  if (span.events_json !== '[]' && span.events_json !== '') {
    const events = JSON.parse(span.events_json) as SpanEvent[]
    let touched = false
    for (const e of events) {
      if (!e.attributes) continue
      for (const key of Object.keys(e.attributes)) {
        if (!isTextEventAttribute(e.name, key)) continue
        delete e.attributes[key]
        removed++
        touched = true
      }
    }
    if (touched) span.events_json = JSON.stringify(events)
  }
  return removed
}
