import { describe, expect, it } from 'vitest'
import { fixtureView } from '../test-support/fixtures.js'
import { addressSubTasks, decomposition, originalQuery, splitSubTasks } from './index.js'

const T = 'ab'.repeat(16)
const ns = (ms: number) => (1793400000000 + ms) * 1e6
const span = (id: string, parent: string, ms: [number, number], attributes: Record<string, unknown>, status = 'OK') => ({
  trace_id: T, span_id: id.padStart(16, '0'), parent_span_id: parent ? parent.padStart(16, '0') : '', name: 'op', kind: 'INTERNAL',
  start_time_unix_ns: ns(ms[0]), end_time_unix_ns: ns(ms[1]), status_code: status, attributes,
})
const chat = (user: string, output: string) => ({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.output_tokens': 20,
  'gen_ai.input.messages': JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: 'Be helpful.' }] }, { role: 'user', parts: [{ type: 'text', content: user }] }]),
  'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: output }] }]) })
const tool = (name: string, args: unknown, result: unknown) => ({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': JSON.stringify(args), 'gen_ai.tool.call.result': JSON.stringify(result) })

describe('splitSubTasks', () => {
  it('splits clauses joined by commas, "and" and "then" when each starts a request', () => {
    expect(splitSubTasks('Look up order 48213, then issue a refund for the blender and send the customer a confirmation email.')).toEqual([
      'Look up order 48213', 'issue a refund for the blender', 'send the customer a confirmation email.'])
  })
  it('keeps a coordinated object whole', () => {
    expect(splitSubTasks('Compare the pricing of Plan A and Plan B.')).toEqual(['Compare the pricing of Plan A and Plan B.'])
  })
  it('reads an inline numbered enumeration and drops an introducing preamble', () => {
    expect(splitSubTasks('Please help me with the following: 1) summarize Q3 revenue, 2) list the top customers, 3) draft an email.')).toEqual([
      'summarize Q3 revenue', 'list the top customers', 'draft an email.'])
  })
  it('reads bullet lines', () => {
    expect(splitSubTasks('Can you:\n- compare the plans\n- check whether Plan B has SSO\n* recommend one')).toEqual(['compare the plans', 'check whether Plan B has SSO', 'recommend one'])
  })
  it('separates multiple questions and ignores context sentences', () => {
    expect(splitSubTasks("I'm in Tokyo next week. What's the weather tomorrow? Also, is the museum open on Mondays?")).toEqual([
      "What's the weather tomorrow?", 'is the museum open on Mondays?'])
  })
  it('does not split off a clause that only points back ("can you fix it?")', () => {
    expect(splitSubTasks('I was charged twice for my March invoice, can you fix it?')).toHaveLength(1)
  })
  it('returns the whole text when nothing looks like a request, and nothing for empty input', () => {
    expect(splitSubTasks('hi')).toEqual(['hi'])
    expect(splitSubTasks('   ')).toEqual([])
  })
})

describe('originalQuery and addressSubTasks', () => {
  const spans = [
    span('1', '', [0, 5000], { 'gen_ai.operation.name': 'invoke_agent' }),
    span('2', '1', [10, 500], chat('Book a table for two at Nopa tonight and tell me the parking options near Nopa.', 'Calling tools.')),
    span('3', '1', [510, 900], tool('book_table', { restaurant: 'Nopa', party: 2, time: 'tonight' }, { confirmation: 'R-1' })),
    span('4', '1', [910, 1400], tool('parking_search', { near: 'Nopa' }, { error: 'quota' }), 'ERROR'),
    span('5', '1', [1410, 4000], chat('Book a table for two at Nopa tonight and tell me the parking options near Nopa.', 'Your table for two at Nopa is booked for tonight (R-1). I could not find parking options right now.')),
  ]
  const view = fixtureView({ file: 'inline', spans })
  it('takes the first user message of the earliest LLM prompt', () => {
    expect(originalQuery(view)).toEqual({ text: 'Book a table for two at Nopa tonight and tell me the parking options near Nopa.', span_id: '0000000000000002' })
  })
  it('credits spans by distinctive words and resolves only what succeeded or was answered', () => {
    const subs = addressSubTasks(view, splitSubTasks(originalQuery(view)!.text))
    expect(subs.map((s) => s.resolved)).toEqual([true, false])
    expect(subs[0]!.span_ids).toContain('0000000000000003')
    expect(subs[1]!.span_ids).toContain('0000000000000004')
    expect(decomposition(view).coverage).toBe(0.5)
  })
})
