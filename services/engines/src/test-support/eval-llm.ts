/**
 * What the LLM judge of content_reliability costs per trace: every labelled trace
 * judged through the real client against the loopback fake model server
 * (fake-openai.ts, which answers every claim "unsupported" here and counts about
 * four characters a token), with the prompt each trace sent (the user message:
 * passages and claims; the fixed instructions come on top) and the tokens the
 * server reported. Beside it, for scale, the prompt the judge would need if it
 * were shown the trace's whole evidence instead of each claim's pre-selected
 * passages (every passage up to 1,500 characters, 40 passages or 24,000
 * characters at most, as the judge before pre-selection did).
 */
import { createLlmClient, type LlmUsage } from '../llm/client.js'
import { llmContentReliability } from '../llm/reliability.js'
import { evidenceOf, finalOutput } from '../reliability/evidence.js'
import { startFakeOpenAi } from './fake-openai.js'
import { fixtureView, type Fixture } from './fixtures.js'

export interface LlmCost {
  traces: number
  calls: number
  inputTokens: number[]
  outputTokens: number[]
  promptChars: number[]
  /** The whole-evidence prompt of the same traces, in characters. */
  wholeEvidenceChars: number[]
}

const wholeEvidence = (answer: string, evidence: string[]) => {
  let chars = Math.min(answer.length, 8000)
  let n = 0
  for (const e of evidence) {
    if (n >= 40 || chars >= 24_000 + 8000) break
    chars += Math.min(e.length, 1500) + 8
    n++
  }
  return chars
}

export async function measureLlmCost(fixtures: Fixture[]): Promise<LlmCost> {
  const fake = await startFakeOpenAi((body) => {
    const text = JSON.stringify(body?.messages ?? '')
    const claims = [...text.matchAll(/\\n\[(\d+)\] [^\\]*\(passages: /g)].map((m) => Number(m[1]))
    return { object: { claims: claims.map((claim) => ({ claim, verdict: 'unsupported', confidence: 0.5, evidence: null })) } }
  })
  const usages: LlmUsage[] = []
  const client = createLlmClient({ primary: { provider: 'openai', model_id: 'judge', api_key: 'sk-eval', api_base: fake.url }, fallback: null, concurrency: 1, timeoutMs: 10_000, onUsage: (u) => usages.push(u) })
  const cost: LlmCost = { traces: 0, calls: 0, inputTokens: [], outputTokens: [], promptChars: [], wholeEvidenceChars: [] }
  try {
    for (const f of fixtures) {
      const view = fixtureView(f)
      const before = fake.requests.length
      await llmContentReliability(view, client)
      cost.traces++
      if (fake.requests.length === before) continue
      cost.calls++
      const u = usages[usages.length - 1]!
      cost.inputTokens.push(u.inputTokens)
      cost.outputTokens.push(u.outputTokens)
      const messages = (fake.requests[fake.requests.length - 1]!.body?.messages ?? []) as Array<{ role: string; content: unknown }>
      cost.promptChars.push(messages.filter((m) => m.role === 'user').reduce((n, m) => n + JSON.stringify(m.content).length, 0))
      cost.wholeEvidenceChars.push(wholeEvidence(finalOutput(view)?.text ?? '', evidenceOf(view).map((e) => e.text)))
    }
  } finally {
    await fake.close()
  }
  return cost
}
