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

  it('collects documents, tool results and non-assistant messages', () => {
    expect(ev.filter((e) => e.kind === 'document').map((e) => e.source)).toEqual(['kb/a.md', 'https://h.example/x'])
    expect(ev.find((e) => e.source === 'tool:get_weather')?.text).toContain('"temp_c":3')
    expect(ev.find((e) => e.source === 'https://news.example/1')).toMatchObject({ kind: 'tool_result', span_id: 'd'.repeat(16) })
    expect(ev.find((e) => e.text === 'My id is 7.')).toMatchObject({ kind: 'message', source: null })
    expect(ev.find((e) => e.text.includes('Pasted text.'))?.source).toBe('https://docs.example/p')
  })

  it('leaves out model text and tool results repeated as messages', () => {
    expect(ev.some((e) => e.text.includes('Earlier answer') || e.text.includes('Final answer'))).toBe(false)
    expect(ev.filter((e) => e.text.includes('temp_c'))).toHaveLength(1)
  })
})
