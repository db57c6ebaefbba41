/**
 * The local sentence model for real: the pinned all-MiniLM-L6-v2 files that
 * `pnpm install` fetched (fetch-model.ts). CI fetches them too; a checkout without
 * them fails here with the command that fetches them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modelPresent } from './fetch-model.js'
import { MAX_TOKENS, MODEL_DIMS, MODEL_LABEL, modelDir } from './model-files.js'
import { SentenceModel } from './sentence-model.js'
import { dot } from './types.js'

let model: SentenceModel

beforeAll(async () => {
  const dir = modelDir(process.env.SVC_MODEL_DIR)
  if (!modelPresent(dir)) throw new Error(`the sentence model is not in ${dir}: run \`pnpm fetch:model\``)
  model = await SentenceModel.load(dir)
}, 60_000)
afterAll(() => model?.release())

const norm = (v: Float32Array) => Math.sqrt(dot(v, v))

describe('sentence model', { timeout: 60_000 }, () => {
  it('scores a paraphrase far above an unrelated sentence, with unit vectors of its dimension', async () => {
    const [a, para, other] = await model.embed([
      'Staff who work from home have to sign in to the company VPN.',
      'Employees working remotely must connect through the corporate VPN.',
      'The bakery on the corner sells sourdough on Saturdays.',
    ])
    expect(model.model).toBe(MODEL_LABEL)
    expect(a).toHaveLength(MODEL_DIMS)
    for (const v of [a!, para!, other!]) expect(norm(v)).toBeCloseTo(1, 5)
    expect(dot(a!, para!)).toBeGreaterThan(0.5)
    expect(dot(a!, other!)).toBeLessThan(0.2)
    expect(dot(a!, para!) - dot(a!, other!)).toBeGreaterThan(0.4)
  })

  it('gives a text exactly the same vector in a batch of texts of other lengths as alone', async () => {
    const texts = ['Refund', 'Refunds are available within 30 days of purchase when the item is unused and in its box.', 'Do not share another customer’s address.']
    model.cache.clear()
    const batch = await model.embed(texts)
    for (const [i, t] of texts.entries()) {
      model.cache.clear()
      const [alone] = await model.embed([t])
      expect(Array.from(alone!)).toEqual(Array.from(batch[i]!))
    }
  })

  it(`reads at most ${MAX_TOKENS} tokens: what follows them does not change the vector`, async () => {
    const head = Array.from({ length: 400 }, (_, i) => `word${i % 50}`).join(' ')
    const ids = model.tokens(head)
    expect(ids).toHaveLength(MAX_TOKENS)
    expect(ids[0]).toBe(model.tokens('')[0]) // [CLS]
    expect(ids.at(-1)).toBe(model.tokens('').at(-1)) // [SEP]
    const [a, b] = await model.embed([`${head} the refund was approved`, `${head} the parcel never arrived`])
    expect(dot(a!, b!)).toBeCloseTo(1, 5)
  })

  it('embeds a repeated text once (LRU cache by text), within a call and across calls', async () => {
    model.cache.clear()
    const t = 'The invoice is due on the first of every month.'
    const [x, y] = await model.embed([t, t])
    expect(x).toBe(y)
    expect(model.cache.size).toBe(1)
    const hits = model.cache.hits
    const [z] = await model.embed([t])
    expect(z).toBe(x)
    expect(model.cache.hits).toBe(hits + 1)
    expect(await model.embed([])).toEqual([])
  })
})
