/**
 * Which span attributes and events carry prompt or completion text, across the
 * conventions producers use. Pure and dependency-free: the SDK strips these keys
 * client-side before export when capture_text is off (or unknown), and the ingest
 * service applies the very same rule server-side (`@svc/shared` imports it from here,
 * so there is one copy of the rule).
 *
 * Covered: OpenTelemetry GenAI (gen_ai.input.messages, gen_ai.output.messages,
 * gen_ai.system_instructions, tool call arguments and results, and the older
 * gen_ai.prompt / gen_ai.completion with the gen_ai.content.* events), OpenLLMetry
 * (gen_ai.prompt.N.content, gen_ai.completion.N.content, llm.prompts,
 * llm.completions, traceloop.entity.input/output) and OpenInference (input.value,
 * output.value, llm.input_messages.N.message.content and its contents[]). Roles,
 * models, token counts and everything else stay.
 */

// The patterns and event names are data (content-keys.json) so that the Python SDK
// ships the very same list: services/sdk-python/src/svc_sdk/content_keys.json is a
// byte-identical copy the tests of both compare, and both run content-keys.vectors.json.
import rules from './content-keys.json' with { type: 'json' }

/** Attribute keys whose value is prompt or completion text. */
export const TEXT_ATTRIBUTE_PATTERN: RegExp = new RegExp(`^(?:${rules.text_attribute_patterns.join('|')})$`)

/** Span events whose attributes are message text as a whole (OpenTelemetry GenAI events). */
export const TEXT_EVENT_NAMES: ReadonlySet<string> = new Set(rules.text_event_names)

/** True for an attribute key holding prompt or completion text. */
export const isTextAttribute = (key: string): boolean => TEXT_ATTRIBUTE_PATTERN.test(key)

/** True for an event whose every attribute is message text. */
export const isTextEvent = (name: string | undefined): boolean => TEXT_EVENT_NAMES.has(name ?? '')

/** True for an attribute of the named event that holds text (any attribute of a text event, or a text key). */
export const isTextEventAttribute = (eventName: string | undefined, key: string): boolean => isTextEvent(eventName) || isTextAttribute(key)

/**
 * A copy of a plain attribute map without its text attributes. Returns the map
 * itself (not a copy) when it holds no text, so callers can tell by identity.
 */
export function stripTextAttributes<V>(attrs: Readonly<Record<string, V>>): Record<string, V> {
  let out: Record<string, V> | undefined
  for (const key of Object.keys(attrs)) {
    if (!TEXT_ATTRIBUTE_PATTERN.test(key)) continue
    out ??= { ...attrs }
    delete out[key]
  }
  return out ?? (attrs as Record<string, V>)
}

/** Like `stripTextAttributes`, for the attributes of an event called `eventName`. */
export function stripTextEventAttributes<V>(eventName: string | undefined, attrs: Readonly<Record<string, V>>): Record<string, V> {
  if (isTextEvent(eventName)) return Object.keys(attrs).length ? {} : (attrs as Record<string, V>)
  return stripTextAttributes(attrs)
}
