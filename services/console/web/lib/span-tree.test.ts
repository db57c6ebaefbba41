import { describe, expect, it } from 'vitest'
import type { TraceSpan } from '../api/types'
import { ancestorsOf, buildSpanTree, visibleRows } from './span-tree'

const t0 = Date.parse('2026-01-01T00:00:00.000Z')
const span = (id: string, parent: string | null, startMs: number, durationMs: number, attributes: Record<string, unknown> = {}, status = 'OK'): TraceSpan => ({
  span_id: id,
  parent_span_id: parent,
  name: id,
  kind: 'INTERNAL',
  start_time: new Date(t0 + startMs).toISOString(),
  duration_ms: durationMs,
  status_code: status,
  attributes,
})

describe('span tree', () => {
  const spans = [
    span('llm2', 'root', 600, 300, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' }),
    span('root', null, 0, 1000, { 'openinference.span.kind': 'AGENT' }),
    span('tool', 'root', 300, 200, { 'gen_ai.tool.name': 'lookup', 'gen_ai.operation.name': 'execute_tool' }, 'ERROR'),
    span('ret', 'tool', 320, 50, { 'openinference.span.kind': 'RETRIEVER' }),
    span('llm1', 'root', 10, 250, { 'gen_ai.usage.input_tokens': 12, 'gen_ai.request.model': 'gpt-4o-mini' }),
    span('orphan', 'never-arrived', 1100, 100),
  ]
  const tree = buildSpanTree(spans)

  it('nests spans under their parents in start order, offsets on the trace axis', () => {
    expect(visibleRows(tree, new Set()).map((n) => `${'  '.repeat(n.depth)}${n.span.span_id}@${n.offsetMs}`)).toEqual([
      'root@0',
      '  llm1@10',
      '  tool@300',
      '    ret@320',
      '  llm2@600',
      'orphan@1100',
    ])
    expect(tree.totalMs).toBe(1200)
    expect(tree.byId.get('root')!.descendants).toBe(4)
  })

  it('tells LLM, tool, retrieval and agent spans apart, and marks errors', () => {
    const type = (id: string) => tree.byId.get(id)!.type
    expect([type('root'), type('llm1'), type('llm2'), type('tool'), type('ret'), type('orphan')]).toEqual(['agent', 'llm', 'llm', 'tool', 'retrieval', 'other'])
    expect(tree.byId.get('tool')!.error).toBe(true)
    expect(tree.byId.get('llm1')!.error).toBe(false)
  })

  it('leaves collapsed subtrees out and knows what to expand to show a span', () => {
    expect(visibleRows(tree, new Set(['tool'])).map((n) => n.span.span_id)).toEqual(['root', 'llm1', 'tool', 'llm2', 'orphan'])
    expect(ancestorsOf(tree, 'ret')).toEqual(['tool', 'root'])
  })

  it('survives parent cycles and 5,000-deep chains', () => {
    const cyclic = buildSpanTree([span('a', 'b', 0, 10), span('b', 'a', 1, 10)])
    expect(visibleRows(cyclic, new Set()).map((n) => n.span.span_id).sort()).toEqual(['a', 'b'])
    const chain = Array.from({ length: 5000 }, (_, i) => span(`s${i}`, i ? `s${i - 1}` : null, i, 5000 - i))
    const deep = buildSpanTree(chain)
    const rows = visibleRows(deep, new Set())
    expect(rows).toHaveLength(5000)
    expect(rows[4999]!.depth).toBe(4999)
    expect(ancestorsOf(deep, 's4999')).toHaveLength(4999)
  })
})
