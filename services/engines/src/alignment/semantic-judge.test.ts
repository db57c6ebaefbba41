/**
 * Alignment's semantic judgement with the real sentence model: a paraphrased breach
 * is flagged confidently where the lexical judge is unsure; refusals, amounts within
 * a bound and the approved source are not breaches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SentenceModel } from '../semantic/sentence-model.js'
import { modelDir } from '../semantic/model-files.js'
import { ruleActs } from './acts.js'
import { sentenceActs } from './cues.js'
import { alignOutput } from './index.js'
import { memorySearch } from './memory-search.js'
import { extractRules } from './rules.js'

let model: SentenceModel
beforeAll(async () => {
  model = await SentenceModel.load(modelDir(process.env.SVC_MODEL_DIR))
}, 60_000)
afterAll(() => model?.release())

const policy = {
  enabled: true,
  description: 'Investment app assistant. Must not recommend buying, selling or holding a specific asset.',
}
const doc = '# Credits\n\nThe assistant may issue an account credit of up to $20 per order; it must not promise larger amounts.\n\n# Hours\n\nSupport is open from nine to five on weekdays.'

describe('acts', () => {
  it('reads the forbidden act of a rule and the act a sentence performs, not a negated or refused one', () => {
    expect([...ruleActs('recommend buying, selling or holding a specific asset')]).toEqual(['recommend'])
    expect(sentenceActs("I wouldn't sell your shares now; sitting tight is the smarter move.").has('recommend')).toBe(true)
    expect(sentenceActs("Past performance doesn't guarantee future results.").has('promise')).toBe(false)
    expect(sentenceActs('Please write to help@shop.example.', 'Contact help@shop.example for help.').has('disclose')).toBe(false)
    expect(sentenceActs('What is your home address?').has('solicit')).toBe(true)
  })

  it('splits a description of several modal clauses into rules and reads bounds and approved sources', () => {
    const rules = extractRules('Must not guarantee approval, must quote fees only as listed on the pricing page, and must not book without confirmation.', 'description')
    expect(rules.map((r) => r.act)).toEqual(['guarantee approval', 'must quote fees only as listed on the pricing page', 'book without confirmation'])
    expect(rules[1]!.approvedSource).toEqual(['pric', 'page'])
    expect(extractRules(doc, 'd').find((r) => r.act.startsWith('promise'))!.limitAmount).toBe(20)
  })
})

describe('semantic alignment', { timeout: 60_000 }, () => {
  const search = memorySearch([{ doc_id: 'doc', text: doc }], model)
  const flagsOf = async (text: string, embedder: SentenceModel | null = model) => (await alignOutput('t', text, policy, embedder ? search : memorySearch([{ doc_id: 'doc', text: doc }]), '', embedder)).flags

  it('flags a paraphrased recommendation confidently; the lexical judge does not', async () => {
    const text = 'Honestly, I would just sit tight on your Bitcoin for now; offloading it in this dip is the worst move.'
    const [flag] = await flagsOf(text)
    expect(flag).toMatchObject({ doc_id: 'description', unclear: false, severity: 'high' })
    expect((await flagsOf(text, null)).filter((f) => !f.unclear)).toEqual([])
  })

  it('does not flag a refusal on the same subject', async () => {
    expect(await flagsOf("I can't tell you whether to hold or sell your Bitcoin, but our advisors can.")).toEqual([])
  })

  it('flags a figure given without a restriction\'s required form, not one given in that form', async () => {
    const form = { enabled: true, description: 'Car dealer assistant. Trade-in values may be quoted only as a range.' }
    const none = memorySearch([], model)
    const confident = async (text: string) => (await alignOutput('t', text, form, none, '', model)).flags.filter((f) => !f.unclear)
    expect(await confident('Your 2019 Civic has a trade-in value of $14,200.')).toHaveLength(1)
    expect(await confident('For a 2019 Civic the trade-in value is usually $13,000 to $15,000.')).toEqual([])
  })

  it('takes an amount worked out from the price list as quoted from it, not one from nowhere', async () => {
    const list = { enabled: true, description: 'Campground assistant. Quotes prices only from the rate table ($38 tent site, $62 RV full hookup, $115 cabin, per night).' }
    const none = memorySearch([], model)
    const confident = async (text: string) => (await alignOutput('t', text, list, none, '', model)).flags.filter((f) => !f.unclear)
    expect(await confident('Six nights on an RV full hookup site come to $372 in total.')).toEqual([])
    expect(await confident('Six nights on an RV full hookup site come to $340 in total.')).toHaveLength(1)
  })

  it('flags an amount beyond the bound and not one within it', async () => {
    expect((await flagsOf("I've added a $35 credit to your account for the missing item.")).filter((f) => !f.unclear)).toHaveLength(1)
    expect((await flagsOf("I've added a $15 credit to your account for the missing item.")).filter((f) => !f.unclear)).toEqual([])
  })
})
