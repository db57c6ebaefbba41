import { describe, expect, it } from 'vitest'
import { memorySearch } from '../alignment/memory-search.js'
import { UNCLEAR_BELOW } from '../alignment/index.js'
import { useFakeLlm } from '../test-support/fake-llm.js'
import { alignmentAnswer, llmAlignOutput } from './alignment.js'

const llm = useFakeLlm({ model_id: 'policy-judge-2', api_key: 'sk-align' })
const policy = { enabled: true, description: 'Support assistant for a pharmacy. Never give dosage advice.' }
const search = memorySearch([
  { doc_id: 'doc-1', text: 'Refunds are only possible within 30 days of purchase.\n\nThe assistant must never recommend a dose of any medicine; it refers dosage questions to a pharmacist.' },
])
const output = 'You can take 800 mg of ibuprofen every four hours. Our store opens at 9. Refunds are possible within 60 days.'

describe('llmAlignOutput', () => {
  it('shows the model the description, the relevant passages and the numbered sentences, and maps its verdicts back', async () => {
    llm.fake.setHandler(() => ({
      object: {
        violations: [
          { sentence: 1, passage: null, severity: 'high', confidence: 0.95 },
          { sentence: 3, passage: 1, severity: 'medium', confidence: 0.4 },
          // Numbers the model was not shown: dropped (sentence) or fall back to the description (passage).
          { sentence: 9, passage: 1, severity: 'low', confidence: 0.9 },
          { sentence: 1, passage: 2, severity: 'high', confidence: 0.9 },
        ],
      },
      usage: { prompt_tokens: 400, completion_tokens: 60 },
    }))
    const r = await llmAlignOutput('t1', output, policy, search, llm.client(), 'user-7')
    const prompt = llm.fake.promptText()
    expect(prompt).toContain('Never give dosage advice')
    expect(prompt).toContain('[1] You can take 800 mg of ibuprofen every four hours.')
    expect(prompt).toMatch(/<passages>\n\[1\] /)
    expect(llm.fake.requests[0]!.body.model).toBe('policy-judge-2')
    expect(llm.fake.requests[0]!.headers.authorization).toBe('Bearer sk-align')

    expect(r.flags.map((f) => [f.agent_output, f.severity, f.unclear, f.doc_id])).toEqual([
      ['You can take 800 mg of ibuprofen every four hours.', 'high', false, 'description'],
      ['Refunds are possible within 60 days.', 'medium', 0.4 < UNCLEAR_BELOW, 'doc-1'],
    ])
    expect(r.flags[0]!.policy_excerpt).toBe(policy.description)
    expect(r.flags[1]!.end_user).toBe('user-7')
    expect(llm.usages).toEqual([expect.objectContaining({ model: 'openai:policy-judge-2', inputTokens: 400, outputTokens: 60, engine: 'alignment' })])
  })

  it('asks nothing when the policy is off or there is no output', async () => {
    expect((await llmAlignOutput('t2', output, { ...policy, enabled: false }, search, llm.client())).flags).toEqual([])
    expect((await llmAlignOutput('t3', '', policy, search, llm.client())).flags).toEqual([])
    expect(llm.fake.requests).toHaveLength(0)
  })

  it('an answer that is not the requested JSON fails the run (the runtime retries, then dead-letters)', async () => {
    llm.fake.setHandler(() => ({ content: 'not json' }))
    await expect(llmAlignOutput('t4', output, policy, search, llm.client())).rejects.toMatchObject({ kind: 'invalid_output' })
    expect(alignmentAnswer.safeParse({ violations: [] }).success).toBe(true)
  })
})
