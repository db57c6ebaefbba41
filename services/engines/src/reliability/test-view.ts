/** Hand-built traces for the reliability and sources unit tests, through the same row-to-view path as the worker. */
import { traceViewFromRows, type StoredSpan, type TraceView } from '../trace-view.js'
import { contentReliability } from './index.js'

export interface SpanSpec {
  id: string
  parent?: string
  name?: string
  attrs: Record<string, string>
}

export const messages = (list: Array<[string, string]>) => JSON.stringify(list.map(([role, content]) => ({ role, parts: [{ type: 'text', content }] })))

export function viewOf(specs: SpanSpec[], traceId = 'ab'.repeat(16)): TraceView {
  const base = 1_761_955_200_000_000_000n
  const rows: StoredSpan[] = specs.map((s, i) => ({
    trace_id: traceId,
    span_id: s.id,
    parent_span_id: s.parent ?? '',
    name: s.name ?? s.id,
    kind: 'INTERNAL',
    start_time: String(base + BigInt(i) * 1_000_000_000n),
    end_time: String(base + BigInt(i) * 1_000_000_000n + 500_000_000n),
    status_code: 'OK',
    status_message: '',
    model: s.attrs['gen_ai.request.model'] ?? '',
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    attributes: s.attrs,
  }))
  return traceViewFromRows('00000000-0000-4000-8000-0000000000aa', traceId, rows)
}

export const chat = (input: Array<[string, string]>, output?: string) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'gpt-4o-mini',
  'gen_ai.input.messages': messages(input),
  ...(output !== undefined ? { 'gen_ai.output.messages': messages([['assistant', output]]) } : {}),
})

export const retrieval = (docs: Array<{ id: string; url?: string; content: string }>) => ({
  'gen_ai.operation.name': 'retrieval',
  'gen_ai.retrieval.documents': JSON.stringify(docs),
})

export const tool = (name: string, args: unknown, result: unknown) => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.call.arguments': JSON.stringify(args),
  'gen_ai.tool.call.result': typeof result === 'string' ? result : JSON.stringify(result),
})

let traces = 0
/** A trace id no other test trace of this process has (judgements are cached per trace). */
export const nextTraceId = () => (++traces).toString(16).padStart(32, '0')

/** The answer's verdicts, one per claim, against one evidence span (each call its own trace: judgements are cached per trace). */
export async function verdictsOn(evidence: Record<string, string>, answer: string, question = 'Tell me.'): Promise<string[]> {
  const v = viewOf([
    { id: '1'.repeat(16), attrs: evidence },
    { id: '2'.repeat(16), attrs: chat([['user', question]], answer) },
  ], nextTraceId())
  return (await contentReliability(v)).claims.map((c) => c.verdict)
}
/** The answer's verdicts against one tool result. */
export const verdicts = (result: unknown, answer: string) => verdictsOn(tool('lookup', {}, result), answer)
/** The answer's verdicts against one retrieved document. */
export const verdictsOnDoc = (content: string, answer: string, question?: string) => verdictsOn(retrieval([{ id: 'kb/doc', content }]), answer, question)
