import { describe, expect, it } from 'vitest'
import { loadPriceTable, priceTokens } from '@svc/shared/domain/pricing'
import { fixtureView } from '../test-support/fixtures.js'
import { correlationFindings, optimization, savingsFindings } from './index.js'
import type { OptimizationFinding } from '../outputs.js'

const prices = loadPriceTable()
const T = 'ef'.repeat(16)
const START = 1793400000000
const span = (id: string, ms: [number, number], attributes: Record<string, unknown>, status = 'OK', status_message = '') => ({
  trace_id: T, span_id: id.padStart(16, '0'), parent_span_id: '', name: 'op', kind: 'INTERNAL',
  start_time_unix_ns: (START + ms[0]) * 1e6, end_time_unix_ns: (START + ms[1]) * 1e6, status_code: status, status_message, attributes,
})
const chat = (model: string, provider: string, inTok: number, outTok: number, user = 'Is this spam? Reply spam or not_spam. WIN NOW', out = 'spam') => ({
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.provider.name': provider, 'gen_ai.usage.input_tokens': inTok, 'gen_ai.usage.output_tokens': outTok,
  'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: user }]), 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: out }]) })
const cost = (provider: string, model: string, input: number, output: number) =>
  priceTokens(prices, [provider], model, START, { input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 }).costUsd

describe('savings: model_downgrade', () => {
  it('suggests the cheapest same-provider model and saves exactly the price difference', () => {
    const view = fixtureView({ file: 'inline', spans: [span('1', [0, 100], chat('claude-opus-4-20250514', 'anthropic', 300, 2))] })
    const [f] = savingsFindings(view, prices)
    expect(f).toMatchObject({ kind: 'model_downgrade', current_model: 'claude-opus-4-20250514', suggested_model: 'claude-3-5-haiku' })
    // opus 15/75 vs haiku 0.8/4 per 1M tokens, from the table.
    expect(f!.estimated_savings_usd).toBeCloseTo(cost('anthropic', 'claude-opus-4', 300, 2) - cost('anthropic', 'claude-3-5-haiku', 300, 2), 8)
    expect(f!.estimated_savings_usd).toBeCloseTo((300 * 15 + 2 * 75 - 300 * 0.8 - 2 * 4) / 1e6, 8)
  })
  it('leaves cheap models, long answers and tool-routing calls alone', () => {
    const tools = { ...chat('gpt-4o', 'openai', 300, 20), 'gen_ai.request.tools': JSON.stringify([{ name: 'a' }]) }
    const view = fixtureView({ file: 'inline', spans: [span('1', [0, 100], chat('gpt-4o-mini', 'openai', 300, 2)), span('2', [200, 300], chat('gpt-4o', 'openai', 300, 400)), span('3', [400, 500], tools)] })
    expect(savingsFindings(view, prices)).toEqual([])
  })
})

describe('correlation', () => {
  it('flags an identical prompt already answered as prompt_cache, saving its whole cost', () => {
    const view = fixtureView({ file: 'inline', spans: [span('1', [0, 100], chat('gpt-4o-mini', 'openai', 900, 30)), span('2', [200, 300], chat('gpt-4o-mini', 'openai', 900, 30)), span('3', [400, 500], chat('gpt-4o-mini', 'openai', 900, 30, 'another question entirely'))] })
    const f = correlationFindings(view, prices)
    expect(f.map((x) => [x.kind, x.span_id])).toEqual([['prompt_cache', '0000000000000002']])
    expect(f[0]!.estimated_savings_usd).toBeCloseTo(cost('openai', 'gpt-4o-mini', 900, 30), 8)
  })
  it('does not treat a retry of a failed call as a cache miss', () => {
    const view = fixtureView({ file: 'inline', spans: [span('1', [0, 100], chat('gpt-4o-mini', 'openai', 900, 0), 'ERROR', 'timeout'), span('2', [200, 300], chat('gpt-4o-mini', 'openai', 900, 30))] })
    expect(correlationFindings(view, prices).filter((x) => x.kind === 'prompt_cache')).toEqual([])
  })
  it('flags each repeat of a tool that fails every time, but not a retry that succeeds', () => {
    const tool = (id: string, ms: [number, number], name: string, status: string) => span(id, ms, { 'openinference.span.kind': 'TOOL', 'tool.name': name }, status, status === 'ERROR' ? '401 Unauthorized' : '')
    const view = fixtureView({ file: 'inline', spans: [tool('1', [0, 10], 'quote', 'ERROR'), tool('2', [20, 30], 'quote', 'ERROR'), tool('3', [40, 50], 'quote', 'ERROR'), tool('4', [60, 70], 'kb', 'ERROR'), tool('5', [80, 90], 'kb', 'OK')] })
    const f = correlationFindings(view, prices)
    expect(f.map((x) => [x.kind, x.span_id])).toEqual([['failing_retries', '0000000000000002'], ['failing_retries', '0000000000000003']])
    expect(f[0]!.rationale).toMatch(/401 Unauthorized/)
  })
})

describe('correlation: redundant_tool_call', () => {
  const tool = (id: string, ms: [number, number], args: string, result: string, status = 'OK') =>
    span(id, ms, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'plan_load', 'gen_ai.tool.call.arguments': args, 'gen_ai.tool.call.result': result }, status)
  const asks = (model: string, inTok: number, outTok: number, calls: string[]) => ({
    'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': inTok, 'gen_ai.usage.output_tokens': outTok,
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: 'plan it' }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: calls.map((name) => ({ type: 'tool_call', name, arguments: {} })) }]),
  })
  it('flags the repeat with the same arguments (any key order) and result, priced with its share of the turn that asked for it', () => {
    const view = fixtureView({ file: 'inline', spans: [
      span('1', [0, 100], asks('gpt-4o', 1000, 20, ['plan_load'])),
      tool('2', [110, 200], '{"a":1,"b":2}', '{"fit":33}'),
      span('3', [210, 300], asks('gpt-4o', 1200, 20, ['plan_load', 'weather'])),
      tool('4', [310, 400], '{"b":2, "a":1}', '{"fit": 33}'),
      tool('5', [410, 500], '{"a":1,"b":3}', '{"fit":33}'),
    ] })
    const f = correlationFindings(view, prices).filter((x) => x.kind === 'redundant_tool_call')
    expect(f.map((x) => x.span_id)).toEqual(['0000000000000004'])
    expect(f[0]!.estimated_savings_usd).toBeCloseTo(cost('openai', 'gpt-4o', 1200, 20) / 2, 8)
    expect(f[0]!.rationale).toMatch(/same arguments.*0000000000000002/)
  })
  it('leaves failed repeats to failing_retries and different results alone', () => {
    const view = fixtureView({ file: 'inline', spans: [tool('1', [0, 10], '{"a":1}', '{"n":1}'), tool('2', [20, 30], '{"a":1}', '{"n":2}'), tool('3', [40, 50], '{"a":1}', '{"n":2}', 'ERROR')] })
    expect(correlationFindings(view, prices).filter((x) => x.kind === 'redundant_tool_call')).toEqual([])
  })
})

describe('optimization', () => {
  const f = (kind: string, span_id: string, usd: number): OptimizationFinding => ({ kind, span_id, current_model: 'm', suggested_model: '', rationale: '', estimated_savings_usd: usd, engine: 'correlation' })
  it('merges, drops savings on calls a cache or a stop would remove, sorts and totals', () => {
    const o = optimization('t', [f('model_downgrade', 'a', 0.5), f('prompt_cache', 'b', 0.25), f('model_downgrade', 'b', 0.2), f('oversized_context', 'c', 0.1000004), f('prompt_cache', 'b', 0.25)])
    expect(o.findings.map((x) => `${x.kind}:${x.span_id}`)).toEqual(['model_downgrade:a', 'prompt_cache:b', 'oversized_context:c'])
    expect(o.total_estimated_savings_usd).toBe(0.85)
  })
})
