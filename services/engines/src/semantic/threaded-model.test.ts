/**
 * The sentence model in its worker thread against the same model in the calling
 * thread: the same vectors to the bit, the cache and the deduplication on the
 * caller's side, the forward passes on the other thread, and a dead thread replaced.
 */
import { threadId } from 'node:worker_threads'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { modelPresent } from './fetch-model.js'
import { MODEL_DIMS, MODEL_LABEL, modelDir } from './model-files.js'
import { SentenceModel } from './sentence-model.js'
import { ThreadedSentenceModel } from './threaded-model.js'

let inThread: SentenceModel
let threaded: ThreadedSentenceModel
const dir = modelDir(process.env.SVC_MODEL_DIR)

beforeAll(async () => {
  if (!modelPresent(dir)) throw new Error(`the sentence model is not in ${dir}: run \`pnpm fetch:model\``)
  ;[inThread, threaded] = await Promise.all([SentenceModel.load(dir), ThreadedSentenceModel.load(dir)])
}, 120_000)
afterAll(async () => {
  await inThread?.release()
  await threaded?.release()
})

const TEXTS = [
  'Staff who work from home have to sign in to the company VPN.',
  'Refund',
  '',
  'Le remboursement est possible sous 30 jours — ¥4,800 / €29.99 ✓',
  `${Array.from({ length: 400 }, (_, i) => `word${i % 50}`).join(' ')} the parcel never arrived`,
  '{"status":"approved","amount_usd":120.5,"refundable":false}',
]

describe('sentence model in a worker thread', { timeout: 120_000 }, () => {
  it('gives exactly the vectors of in-thread inference, on the other thread', async () => {
    const [a, b] = await Promise.all([inThread.embed(TEXTS), threaded.embed(TEXTS)])
    expect(threaded.model).toBe(MODEL_LABEL)
    expect(b).toHaveLength(TEXTS.length)
    for (const [i, v] of b.entries()) {
      expect(v).toHaveLength(MODEL_DIMS)
      expect(Array.from(v)).toEqual(Array.from(a[i]!))
    }
    expect(threaded.lastThreadId).toBeGreaterThan(0)
    expect(threaded.lastThreadId).not.toBe(threadId)
  })

  it('keeps the cache on the calling side: a repeated text, within a call, across calls and across concurrent calls, is embedded once', async () => {
    threaded.cache.clear()
    const t = 'The invoice is due on the first of every month.'
    const u = 'Payments made after the fifth incur a late fee.'
    const [[x, y, z], [w]] = await Promise.all([threaded.embed([t, u, t]), threaded.embed([t])])
    expect(x).toBe(z)
    // The concurrent call waited for the same forward pass rather than asking again.
    expect(w).toBe(x)
    expect(threaded.cache.size).toBe(2)
    const hits = threaded.cache.hits
    const [again] = await threaded.embed([u])
    expect(again).toBe(y)
    expect(threaded.cache.hits).toBe(hits + 1)
    expect(await threaded.embed([])).toEqual([])
  })

  it('finishes the work asked for when released, and the next call gets a new thread and the same vectors', async () => {
    const model = await ThreadedSentenceModel.load(dir, { cacheSize: 0 })
    const [before] = await model.embed([TEXTS[0]!])
    const first = model.lastThreadId
    const inFlight = model.embed(Array.from({ length: 20 }, (_, i) => `sentence number ${i} about refunds`))
    await model.release()
    expect(await inFlight).toHaveLength(20)
    const [after] = await model.embed([TEXTS[0]!])
    expect(model.lastThreadId).not.toBe(first)
    expect(Array.from(after!)).toEqual(Array.from(before!))
    await model.release()
  })

  it('fails to load, with the reason, when the model files are missing', async () => {
    await expect(ThreadedSentenceModel.load('/nonexistent/model-dir')).rejects.toThrow(/ENOENT/)
  })
})
