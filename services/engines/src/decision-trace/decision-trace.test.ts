import { describe, expect, it } from 'vitest'
import { fixtureView } from '../test-support/fixtures.js'
import { decisionTrace } from './index.js'
import { offeredTools, promptOptions, requestedTools } from './signals.js'

const T = 'cd'.repeat(16)
const ns = (ms: number) => (1793400000000 + ms) * 1e6
const span = (id: string, parent: string, ms: [number, number], attributes: Record<string, unknown>, status = 'OK', status_message = '') => ({
  trace_id: T, span_id: id.padStart(16, '0'), parent_span_id: parent ? parent.padStart(16, '0') : '', name: 'op', kind: 'INTERNAL',
  start_time_unix_ns: ns(ms[0]), end_time_unix_ns: ns(ms[1]), status_code: status, status_message, attributes,
})
const id = (n: string) => n.padStart(16, '0')

describe('decision_trace', () => {
  it('a tool span is a tool choice among the tools offered to the model that asked for it', () => {
    const view = fixtureView({ file: 'inline', spans: [
      span('1', '', [0, 3000], { 'openinference.span.kind': 'AGENT', 'input.value': 'weather in Oslo?' }),
      span('2', '1', [10, 500], { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'weather in Oslo?',
        'llm.tools': JSON.stringify([{ type: 'function', function: { name: 'get_weather' } }, { type: 'function', function: { name: 'web_search' } }, { type: 'function', function: { name: 'calculator' } }]),
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather', 'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Oslo"}' }),
      span('3', '1', [510, 900], { 'openinference.span.kind': 'TOOL', 'tool.name': 'get_weather', 'tool.parameters': '{"city":"Oslo"}' }),
    ] })
    const d = decisionTrace(view)
    const choice = d.nodes.find((n) => n.decision === 'tool_choice')!
    expect(choice).toMatchObject({ span_id: id('3'), chosen: 'get_weather', alternatives: ['web_search', 'calculator'] })
    expect(choice.confidence).toBeGreaterThan(0.8)
  })

  it('a repeat after an ERROR is a retry; a failure never repeated is a decision to give up', () => {
    const tool = (n: string, ms: [number, number], status: string) => span(n, '1', ms, { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'fetch_quote' }, status, status === 'ERROR' ? '503 unavailable' : '')
    const view = fixtureView({ file: 'inline', spans: [
      span('1', '', [0, 9000], { 'traceloop.span.kind': 'workflow' }),
      tool('2', [10, 100], 'ERROR'), tool('3', [200, 300], 'OK'),
      span('4', '1', [400, 500], { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'send_sms' }, 'ERROR', 'invalid number'),
    ] })
    const d = decisionTrace(view)
    expect(d.nodes.find((n) => n.span_id === id('3'))).toMatchObject({ decision: 'retry', chosen: 'fetch_quote (attempt 2)' })
    expect(d.nodes.find((n) => n.span_id === id('4') && n.decision === 'retry')).toMatchObject({ chosen: 'give up', alternatives: ['retry send_sms'] })
    expect(d.nodes.some((n) => n.span_id === id('2') && n.chosen === 'give up')).toBe(false)
  })

  it('a change of model after a failure is a fallback model choice', () => {
    const chat = (model: string) => ({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: 'Summarize the memo.' }]) })
    const view = fixtureView({ file: 'inline', spans: [span('1', '', [0, 100], chat('claude-sonnet-4'), 'ERROR', 'overloaded'), span('2', '', [200, 300], chat('claude-3-5-haiku'))] })
    const node = decisionTrace(view).nodes.find((n) => n.decision === 'model_choice')!
    expect(node).toMatchObject({ chosen: 'claude-3-5-haiku', alternatives: ['claude-sonnet-4'] })
    expect(node.basis).toMatch(/fallback/)
  })

  it('edges follow causality without implied links', () => {
    const view = fixtureView({ file: 'inline', spans: [
      span('1', '', [0, 100], { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'a' }),
      span('2', '', [200, 300], { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'b' }),
      span('3', '', [200, 320], { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'c' }),
      span('4', '', [400, 500], { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'd' }),
    ] })
    const d = decisionTrace(view)
    const at = (s: string) => d.nodes.find((n) => n.span_id === id(s))!.id
    expect(d.edges).toEqual(expect.arrayContaining([{ from: at('1'), to: at('2') }, { from: at('1'), to: at('3') }, { from: at('2'), to: at('4') }, { from: at('3'), to: at('4') }]))
    expect(d.edges).toHaveLength(4)
  })

  it('reads offered tools, requested calls and prompt options in each convention', () => {
    const s = fixtureView({ file: 'inline', spans: [span('1', '', [0, 10], { 'llm.request.type': 'chat', 'gen_ai.request.model': 'gpt-4o', 'llm.request.functions.0.name': 'x', 'llm.request.functions.1.name': 'y', 'gen_ai.completion.0.tool_calls.0.name': 'y', 'gen_ai.completion.0.tool_calls.0.arguments': '{}' })] }).spans[0]!
    expect(offeredTools(s)).toEqual(['x', 'y'])
    expect(requestedTools(s)).toEqual([{ name: 'y', arguments: '{}' }])
    expect(promptOptions('Classify the request into one of: billing, technical_support, sales. Reply with the category only.')[0]).toEqual(['billing', 'technical_support', 'sales'])
    expect(promptOptions('Answer yes or no.')[0]).toEqual(['yes', 'no'])
  })
})
