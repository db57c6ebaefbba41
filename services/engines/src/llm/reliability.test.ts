import { describe, expect, it } from 'vitest'
import { SCORER_VERSION } from '@svc/shared/domain/versions'
import { scoreClaims } from '../reliability/index.js'
import { judgeTrace, rankedStatements } from '../reliability/judgement.js'
import { fixtureView, loadFixture } from '../test-support/fixtures.js'
import { requestedSchema } from '../test-support/fake-openai.js'
import { useFakeLlm } from '../test-support/fake-llm.js'
import type { TraceView } from '../trace-view.js'
import { oneLine } from './prompt.js'
import { claimsFromAnswer, llmContentReliability, LLM_SCORER_VERSION, RELIABILITY_LIMITS, reliabilityPrompt } from './reliability.js'

const load = (file: string): TraceView => fixtureView(loadFixture(file))

const llm = useFakeLlm({ model_id: 'judge-7', api_key: 'sk-judge' })
const client = llm.client

describe('llmContentReliability', () => {
  const view = load('task-research-full.json')

  it('sends each local claim with its pre-selected passages, and uses the answer with checked passage numbers', async () => {
    const j = await judgeTrace(view, null)
    expect(j.claims.length).toBeGreaterThanOrEqual(3)
    const first = rankedStatements(j, 0, RELIABILITY_LIMITS.perClaim)
    expect(first.length).toBeGreaterThanOrEqual(1)
    llm.fake.setHandler(() => ({
      object: {
        claims: [
          { claim: 1, verdict: 'supported', confidence: 0.92, evidence: 1 },
          // Passage 42 was never shown: no evidence, and "contradicted" cannot stand without it.
          { claim: 2, verdict: 'contradicted', confidence: 1.7, evidence: 42 },
          // Claim 99 does not exist.
          { claim: 99, verdict: 'supported', confidence: 0.9, evidence: 1 },
        ],
      },
      usage: { prompt_tokens: 600, completion_tokens: 80 },
    }))
    const r = await llmContentReliability(view, client())

    const sent = llm.fake.requests[0]!
    expect(sent.body.model).toBe('judge-7')
    expect(sent.headers.authorization).toBe('Bearer sk-judge')
    const text = llm.fake.promptText()
    expect(text).toContain(`[1] ${oneLine(j.claims[0]!.claim)} (passages: 1`)
    expect(text).toContain(`[1] (${first[0]!.evidence.kind}`)
    expect(requestedSchema(sent.body)).toMatchObject({ properties: { claims: { type: 'array' } } })

    expect(r.trace_id).toBe(view.trace_id)
    expect(r.scorer_version).toBe(`${SCORER_VERSION}+llm`)
    expect(r.claims).toHaveLength(j.claims.length)
    expect(r.claims[0]).toEqual({ claim: j.claims[0]!.claim, supported: true, confidence: 0.92, evidence_span_id: first[0]!.evidence.span_id, verdict: 'supported', source: first[0]!.evidence.source })
    expect(r.claims[1]).toMatchObject({ verdict: 'unsupported', evidence_span_id: null, confidence: 1 })
    // A claim the model skipped keeps the local judgement.
    expect(r.claims[2]!.verdict).toBe(j.claims[2]!.judgement.verdict)
    const expected = scoreClaims(r.claims)
    expect(r.score).toBe(expected.score)
    expect(llm.usages).toEqual([{ model: 'openai:judge-7', inputTokens: 600, outputTokens: 80, fallback: false, engine: 'content_reliability' }])
  })

  it('fails on an answer that does not match the schema', async () => {
    llm.fake.setHandler(() => ({ object: { claims: [{ claim: 1, verdict: 'probably', confidence: 0.5, evidence: null }] } }))
    await expect(llmContentReliability(view, client())).rejects.toMatchObject({ kind: 'invalid_output' })
  })

  it('is ungradeable without calling the model when there is no final output', async () => {
    const r = await llmContentReliability({ workspace_id: view.workspace_id, trace_id: 'abc', spans: [] }, client())
    expect(r).toEqual({ trace_id: 'abc', grade: '', score: null, claims: [], scorer_version: LLM_SCORER_VERSION })
    expect(llm.fake.requests).toHaveLength(0)
  })
})

describe('reliability prompt', () => {
  it('grows with the claims, not with the evidence: each pre-selected passage once, clipped', async () => {
    const j = await judgeTrace(view0, null)
    const selected = j.claims.map((c, i) => ({ claim: c.claim, passages: rankedStatements(j, i, RELIABILITY_LIMITS.perClaim) }))
    const { prompt, shown, judged } = reliabilityPrompt(selected)
    expect(selected.every((c) => c.passages.length <= RELIABILITY_LIMITS.perClaim)).toBe(true)
    expect(new Set(shown).size).toBe(shown.length)
    expect(shown.length).toBeLessThanOrEqual(selected.length * RELIABILITY_LIMITS.perClaim)
    expect(prompt.length).toBeLessThan(100 + shown.length * (RELIABILITY_LIMITS.passageChars + 10) + judged.reduce((n, c) => n + c.claim.length + 40, 0))
  })

  it('never trusts a passage number the claim was not given', () => {
    const st = (text: string, span_id: string) => ({ evidence: { span_id, text, source: null, kind: 'document' as const }, text, terms: new Map(), pol: new Map(), quantities: [], owner: new Set<string>(), ambiguousOwner: false })
    const a = st('Passage A.', 'sa')
    const b = st('Passage B.', 'sb')
    const { shown, judged } = reliabilityPrompt([{ claim: 'x', passages: [a] }, { claim: 'y', passages: [b] }])
    const local = judged.map((c) => ({ claim: c.claim, supported: false, confidence: 0.5, evidence_span_id: null, verdict: 'unsupported' as const, source: null }))
    const out = claimsFromAnswer({ claims: [{ claim: 1, verdict: 'supported', confidence: 0.9, evidence: 2 }, { claim: 2, verdict: 'supported', confidence: 0.9, evidence: 2 }] }, shown, judged, local)
    expect(out.map((c) => [c.verdict, c.evidence_span_id])).toEqual([['unsupported', null], ['supported', 'sb']])
  })
})

const view0 = load('rag-finance-figures.json')
