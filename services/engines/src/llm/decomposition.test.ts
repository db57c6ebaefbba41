import { describe, expect, it } from 'vitest'
import { addressSubTasks, originalQuery, splitSubTasks } from '../decomposition/index.js'
import { fixtureView, loadFixture } from '../test-support/fixtures.js'
import { requestedSchema } from '../test-support/fake-openai.js'
import { useFakeLlm } from '../test-support/fake-llm.js'
import type { TraceView } from '../trace-view.js'
import { decompositionPrompt, llmDecomposition, spanSummary } from './decomposition.js'

const load = (file: string): TraceView => fixtureView(loadFixture(file))

const llm = useFakeLlm({ model_id: 'decomposer-1', api_key: 'sk-decomp' })
const client = llm.client

describe('llmDecomposition', () => {
  const view = load('task-research-full.json')
  const query = originalQuery(view)!

  it('sends the request and the numbered work spans, and maps the answer back to span ids', async () => {
    const { shown } = decompositionPrompt(query.text, view)
    expect(shown.length).toBeGreaterThanOrEqual(2)
    llm.fake.setHandler(() => ({
      object: {
        sub_tasks: [
          { text: 'Explain how photosynthesis works', resolved: true, spans: [1, 2, 2] },
          // Span 99 does not exist: no span id, so "resolved" cannot stand.
          { text: 'Explain why leaves change color', resolved: true, spans: [99, 0] },
          { text: '  ', resolved: true, spans: [1] },
        ],
      },
      usage: { prompt_tokens: 640, completion_tokens: 55 },
    }))
    const r = await llmDecomposition(view, client())

    const sent = llm.fake.requests[0]!
    expect(sent.body.model).toBe('decomposer-1')
    expect(sent.headers.authorization).toBe('Bearer sk-decomp')
    const text = llm.fake.promptText()
    expect(text).toContain(query.text.trim().slice(0, 40))
    expect(text).toContain('<spans>')
    expect(text).toMatch(/\[1\] (retrieval|tool|completion) /)
    expect(requestedSchema(sent.body)).toMatchObject({ properties: { sub_tasks: { type: 'array' } } })

    expect(r.trace_id).toBe(view.trace_id)
    expect(r.original_query).toBe(query.text)
    expect(r.sub_tasks).toEqual([
      { id: 't1', text: 'Explain how photosynthesis works', resolved: true, span_ids: [shown[0]!.span_id, shown[1]!.span_id] },
      { id: 't2', text: 'Explain why leaves change color', resolved: false, span_ids: [] },
    ])
    expect(r.coverage).toBe(0.5)
    expect(llm.usages).toEqual([{ model: 'openai:decomposer-1', inputTokens: 640, outputTokens: 55, fallback: false, engine: 'decomposition' }])
  })

  it('falls back to the deterministic split when the model returns no sub-tasks', async () => {
    llm.fake.setHandler(() => ({ object: { sub_tasks: [] } }))
    const r = await llmDecomposition(view, client())
    expect(r.sub_tasks).toEqual(addressSubTasks(view, splitSubTasks(query.text)))
  })

  it('does not call the model for a trace without a request', async () => {
    const empty: TraceView = { workspace_id: view.workspace_id, trace_id: 'abc', spans: [] }
    const r = await llmDecomposition(empty, client())
    expect(r).toEqual({ trace_id: 'abc', original_query: '', sub_tasks: [], coverage: 1 })
    expect(llm.fake.requests).toHaveLength(0)
  })

  it('surfaces a rejected call as an error', async () => {
    llm.fake.setHandler(() => ({ status: 401 }))
    await expect(llmDecomposition(view, client())).rejects.toMatchObject({ kind: 'rejected', status: 401 })
  })
})

describe('spanSummary', () => {
  it('summarises tool calls, retrievals and completions, and skips grouping spans', () => {
    const view = load('tool-choice-weather.json')
    const lines = view.spans.map(spanSummary)
    expect(lines.some((l) => l.startsWith('tool '))).toBe(true)
    expect(lines.some((l) => l.startsWith('completion '))).toBe(true)
    const root = view.spans.find((s) => s.parent_span_id === null)!
    if (root.span_type === 'agent' || root.span_type === 'chain') expect(spanSummary(root)).toBe('')
  })
})
