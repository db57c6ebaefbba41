/** Attribute keys of every convention, for the SDK's tests. */
export const TEXT_KEYS = [
  // OpenTelemetry GenAI
  'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result',
  'gen_ai.prompt', 'gen_ai.completion',
  // OpenLLMetry
  'gen_ai.prompt.0.content', 'gen_ai.completion.12.content', 'llm.prompts', 'llm.completions', 'llm.prompts.0.content', 'llm.completions.3',
  'traceloop.entity.input', 'traceloop.entity.output',
  // OpenInference
  'input.value', 'output.value', 'llm.input_messages.0.message.content', 'llm.output_messages.3.message.content',
  'llm.input_messages.1.message.contents.0.message_content.text',
]
export const KEPT_KEYS = [
  'gen_ai.prompt.0.role', 'gen_ai.completion.0.finish_reason', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.tool.name',
  'llm.input_messages.0.message.role', 'input.mime_type', 'llm.token_count.prompt', 'http.request.method', 'svc.end_user', 'svc.project_id', 'my.input.value',
  'gen_ai.operation.name', 'openinference.span.kind',
]
