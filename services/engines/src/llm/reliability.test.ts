import { describe, expect, it } from 'vitest'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import { evidenceOf, finalOutput } from '../reliability/evidence.js'
import { scoreClaims } from '../reliability/index.js'
import { fixtureView, loadFixture } from '../test-support/fixtures.js'
import { requestedSchema } from '../test-support/fake-openai.js'
import { useFakeLlm } from '../test-support/fake-llm.js'
import type { TraceView } from '../trace-view.js'
import { oneLine } from './prompt.js'
import { claimsFromAnswer, llmContentReliability, LLM_SCORER_VERSION, reliabilityPrompt } from './reliability.js'

const load = (file: string): TraceView => fixtureView(loadFixture(file))

const llm = useFakeLlm({ model_id: 'judge-7', api_key: 'sk-judge' })
const client = llm.client

describe('llmContentReliability', () => {
  const view = load('task-research-full.json')
  const out = finalOutput(view)!
  const evidence = evidenceOf(view)

  it('sends the final output and numbered evidence, and uses the answer with checked evidence numbers', async () => {
    expect(evidence.length).toBeGreaterThanOrEqual(2)
    llm.fake.setHandler(() => ({
      object: {
        claims: [
          { claim: 'Photosynthesis happens in chloroplasts.', verdict: 'supported', confidence: 0.92, evidence: 1 },
          { claim: 'Leaves turn red because of frost.', verdict: 'contradicted', confidence: 0.8, evidence: 2 },
          // Passage 42 was never shown: no evidence, and "supported" cannot stand without it.
          { claim: 'Chlorophyll is green.', verdict: 'supported', confidence: 1.7, evidence: 42 },
          { claim: 'Autumn is a season.', verdict: 'unsupported', confidence: 0.6, evidence: null },
        ],
      },
      usage: { prompt_tokens: 1200, completion_tokens: 140 },
    }))
    const r = await llmContentReliability(view, client())

    const sent = llm.fake.requests[0]!
    expect(sent.body.model).toBe('judge-7')
    expect(sent.headers.authorization).toBe('Bearer sk-judge')
    const text = llm.fake.promptText()
    expect(text).toContain(out.text.trim().slice(0, 60))
    expect(text).toContain(`[1] (${evidence[0]!.kind}`)
    expect(text).toContain(oneLine(evidence[0]!.text).slice(0, 60))
    expect(text).toContain(oneLine(evidence[1]!.text).slice(0, 60))
    expect(requestedSchema(sent.body)).toMatchObject({ properties: { claims: { type: 'array' } } })

    expect(r.trace_id).toBe(view.trace_id)
    expect(r.scorer_version).toBe(`${SCORER_VERSION}+llm`)
    expect(r.claims).toEqual([
      { claim: 'Photosynthesis happens in chloroplasts.', supported: true, confidence: 0.92, evidence_span_id: evidence[0]!.span_id, verdict: 'supported', source: evidence[0]!.source },
      { claim: 'Leaves turn red because of frost.', supported: false, confidence: 0.8, evidence_span_id: evidence[1]!.span_id, verdict: 'contradicted', source: evidence[1]!.source },
      { claim: 'Chlorophyll is green.', supported: false, confidence: 1, evidence_span_id: null, verdict: 'unsupported', source: null },
      { claim: 'Autumn is a season.', supported: false, confidence: 0.6, evidence_span_id: null, verdict: 'unsupported', source: null },
    ])
    const expected = scoreClaims(r.claims)
    expect(r.score).toBe(expected.score)
    expect(r.grade).toBe(expected.grade)
    expect(llm.usages).toEqual([{ model: 'openai:judge-7', inputTokens: 1200, outputTokens: 140, fallback: false, engine: 'content_reliability' }])
  })

  it('fails on an answer that does not match the schema', async () => {
    llm.fake.setHandler(() => ({ object: { claims: [{ claim: 'x', verdict: 'probably', confidence: 0.5, evidence: null }] } }))
    await expect(llmContentReliability(view, client())).rejects.toMatchObject({ kind: 'invalid_output' })
  })

  it('is ungradeable without calling the model when there is no final output', async () => {
    const r = await llmContentReliability({ workspace_id: view.workspace_id, trace_id: 'abc', spans: [] }, client())
    expect(r).toEqual({ trace_id: 'abc', grade: '', score: null, claims: [], scorer_version: LLM_SCORER_VERSION })
    expect(llm.fake.requests).toHaveLength(0)
  })
})

describe('reliability prompt and answer mapping', () => {
  const ev = (i: number) => ({ span_id: `s${i}`, text: `passage ${i} `.repeat(200), source: `https://e.org/${i}`, kind: 'document' as const })

  it('keeps to the evidence budget and numbers only what it shows', () => {
    const { prompt, shown } = reliabilityPrompt('The answer.', Array.from({ length: 100 }, (_, i) => ev(i)))
    expect(shown.length).toBeLessThan(100)
    expect(prompt.length).toBeLessThan(30_000)
    expect(prompt).toContain(`[${shown.length}] `)
    expect(prompt).not.toContain(`[${shown.length + 1}] `)
  })

  it('never trusts a passage number it did not show', () => {
    const shown = [ev(0), ev(1)]
    const claims = claimsFromAnswer(
      {
        claims: [
          { claim: 'a', verdict: 'supported', confidence: 0.9, evidence: 0 },
          { claim: 'b', verdict: 'supported', confidence: 0.9, evidence: 1.5 },
          { claim: 'c', verdict: 'supported', confidence: -3, evidence: 2 },
          { claim: ' ', verdict: 'supported', confidence: 0.9, evidence: 1 },
        ],
      },
      shown,
    )
    expect(claims.map((c) => [c.claim, c.verdict, c.evidence_span_id, c.confidence])).toEqual([
      ['a', 'unsupported', null, 0.9],
      ['b', 'unsupported', null, 0.9],
      ['c', 'supported', 's1', 0],
    ])
  })
})
