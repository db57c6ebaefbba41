import { describe, expect, it } from 'vitest'
import { evidenceOf, finalOutput, promptMessages } from './evidence.js'
import { chat, retrieval, tool, viewOf } from './test-view.js'

describe('finalOutput', () => {
  it('is the completion of the last LLM span that produced text', () => {
    const v = viewOf([
      { id: 'a'.repeat(16), attrs: { 'gen_ai.operation.name': 'invoke_agent' } },
      { id: 'b'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'q']], 'Calling the tool.') },
      { id: 'c'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'q']], 'The answer is 42 units.') },
      { id: 'd'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'q']]) },
    ])
    expect(finalOutput(v)).toEqual({ text: 'The answer is 42 units.', span_id: 'c'.repeat(16) })
  })

  it("falls back to the root's output, and is null without any", () => {
    const root = { 'openinference.span.kind': 'AGENT', 'input.value': 'q', 'output.value': 'Plan B costs $20.' }
    expect(finalOutput(viewOf([{ id: 'a'.repeat(16), attrs: root }]))?.text).toBe('Plan B costs $20.')
    const wf = { 'traceloop.span.kind': 'workflow', 'traceloop.entity.output': JSON.stringify({ outputs: { answer: 'Plan C costs $30.' } }) }
    expect(finalOutput(viewOf([{ id: 'a'.repeat(16), attrs: wf }]))?.text).toBe('Plan C costs $30.')
    expect(finalOutput(viewOf([{ id: 'a'.repeat(16), attrs: chat([['user', 'q']]) }]))).toBeNull()
  })
})

describe('finalOutput: the answer the user saw', () => {
  it("prefers the root's output, and never takes a side call made after the reply", () => {
    const reply = 'The Elm Street store opens at 9 am on Saturday and closes at 6 pm.'
    const v = viewOf([
      { id: 'a'.repeat(16), attrs: { 'gen_ai.operation.name': 'invoke_agent' } },
      { id: 'b'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'When does Elm Street open on Saturday?']], reply) },
      { id: 'c'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['system', 'Title this chat in under 6 words.'], ['user', reply]], 'Elm Street weekend hours') },
    ])
    expect(finalOutput(v)).toEqual({ text: reply, span_id: 'b'.repeat(16) })
    const withRoot = viewOf([{ id: 'a'.repeat(16), attrs: { 'openinference.span.kind': 'AGENT', 'output.value': 'Root reply.' } }, { id: 'b'.repeat(16), parent: 'a'.repeat(16), attrs: chat([['user', 'q']], 'Draft.') }])
    expect(finalOutput(withRoot)?.span_id).toBe('a'.repeat(16))
  })
})

describe('promptMessages', () => {
  it('splits role lines and keeps continuation lines with their message', () => {
    expect(promptMessages('system: Be brief.\nContext line\nuser: What?')).toEqual([
      { role: 'system', text: 'Be brief.\nContext line' },
      { role: 'user', text: 'What?' },
    ])
  })
})

describe('evidenceOf', () => {
  const v = viewOf([
    { id: 'a'.repeat(16), attrs: { 'gen_ai.operation.name': 'invoke_agent' } },
    { id: 'b'.repeat(16), parent: 'a'.repeat(16), attrs: retrieval([{ id: 'kb/a.md', content: 'Doc A text.' }, { id: 'x', url: 'https://h.example/x', content: 'Doc X text.' }]) },
    { id: 'c'.repeat(16), parent: 'a'.repeat(16), attrs: tool('get_weather', { city: 'Oslo' }, { temp_c: 3 }) },
    {
      id: 'd'.repeat(16),
      parent: 'a'.repeat(16),
      attrs: tool('web_search', { q: 'x' }, [{ url: 'https://news.example/1', title: 'T', snippet: 'Snippet one.' }]),
    },
    {
      id: 'e'.repeat(16),
      parent: 'a'.repeat(16),
      attrs: chat([['system', 'Rules.\n\nFrom https://docs.example/p:\nPasted text.'], ['user', 'My id is 7.'], ['assistant', 'Earlier answer.'], ['tool', '{"temp_c":3}']], 'Final answer.'),
    },
  ])
  const ev = evidenceOf(v)

  it('collects documents, tool results, system facts and earlier assistant turns', () => {
    expect(ev.filter((e) => e.kind === 'document').map((e) => e.source)).toEqual(['kb/a.md', 'https://h.example/x'])
    expect(ev.find((e) => e.source === 'tool:get_weather')?.text).toBe('{"temp_c":3}')
    expect(ev.find((e) => e.source === 'https://news.example/1')).toMatchObject({ kind: 'tool_result', span_id: 'd'.repeat(16) })
    expect(ev.find((e) => e.text.includes('Pasted text.'))?.source).toBe('https://docs.example/p')
    expect(ev.find((e) => e.text === 'Earlier answer.')).toMatchObject({ kind: 'message' })
  })

  it('leaves out requests (user words, tool arguments), the answer itself and tool results repeated as messages', () => {
    expect(ev.some((e) => e.text.includes('My id is 7') || e.text.includes('Final answer') || e.text.includes('Oslo'))).toBe(false)
    expect(ev.filter((e) => e.text.includes('temp_c'))).toHaveLength(1)
  })

  it("keeps a failed tool call's error as evidence of what did not happen", () => {
    const failed = viewOf([{ id: 'a'.repeat(16), attrs: { ...tool('get_warranty', { serial: '55120-K' }, ''), 'error.type': 'NotFound' } }])
    failed.spans[0]!.status_code = 'ERROR'
    failed.spans[0]!.status_message = 'serial number not registered'
    expect(evidenceOf(failed)).toEqual([{ span_id: 'a'.repeat(16), text: 'serial number not registered. NotFound', source: 'tool:get_warranty', kind: 'tool_error', about: 'get warranty {"serial":"55120-K"}' }])
  })
})
