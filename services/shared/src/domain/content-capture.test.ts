import { describe, expect, it } from 'vitest'
import { isTextAttribute, stripContent } from './content-capture.js'

describe('content capture', () => {
  it('recognises prompt and completion text of every convention, and nothing else', () => {
    const text = [
      'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result',
      'gen_ai.prompt', 'gen_ai.completion', 'gen_ai.prompt.0.content', 'gen_ai.completion.12.content', 'llm.prompts', 'llm.completions', 'llm.prompts.0.content',
      'traceloop.entity.input', 'traceloop.entity.output', 'input.value', 'output.value',
      'llm.input_messages.0.message.content', 'llm.output_messages.3.message.content', 'llm.input_messages.1.message.contents.0.message_content.text',
    ]
    const kept = [
      'gen_ai.prompt.0.role', 'gen_ai.completion.0.finish_reason', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.tool.name',
      'llm.input_messages.0.message.role', 'input.mime_type', 'llm.token_count.prompt', 'http.request.method', 'svc.end_user', 'my.input.value',
    ]
    for (const k of text) expect(isTextAttribute(k), k).toBe(true)
    for (const k of kept) expect(isTextAttribute(k), k).toBe(false)
  })

  it('strips text attributes and GenAI event bodies from a span, leaving the rest', () => {
    const span = {
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.input.messages': '[{"role":"user","content":"secret"}]', 'input.value': 'secret', 'gen_ai.prompt.0.role': 'user' },
      json_attribute_keys: ['gen_ai.input.messages', 'other'],
      events_json: JSON.stringify([
        { name: 'gen_ai.content.prompt', time_unix_nano: '1', attributes: { 'gen_ai.prompt': 'secret' } },
        { name: 'gen_ai.choice', time_unix_nano: '2', attributes: { index: 0, message: 'secret' } },
        { name: 'exception', time_unix_nano: '3', attributes: { 'exception.message': 'boom' } },
      ]),
    }
    expect(stripContent(span)).toBe(5)
    expect(span.attributes).toEqual({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.prompt.0.role': 'user' })
    expect(span.json_attribute_keys).toEqual(['other'])
    expect(span.events_json).not.toContain('secret')
    expect(JSON.parse(span.events_json)[2]).toEqual({ name: 'exception', time_unix_nano: '3', attributes: { 'exception.message': 'boom' } })
  })

  it('leaves a span without text untouched', () => {
    const span = { attributes: { a: '1' }, json_attribute_keys: [], events_json: '[]' }
    expect(stripContent(span)).toBe(0)
    expect(span).toEqual({ attributes: { a: '1' }, json_attribute_keys: [], events_json: '[]' })
  })
})
