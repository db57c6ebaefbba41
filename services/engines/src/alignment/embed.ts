/**
 * Embeddings of policy passages and agent output. The default is a deterministic
 * local embedding: feature hashing of normalised word unigrams and bigrams (stop
 * words dropped, light stemming) into 256 dimensions, L2-normalised. It is lexical,
 * not semantic: two texts are close when they share words, and paraphrase
 * ("reimbursement" for "refund") is not close. It needs no model, no network and
 * gives the same vector for the same text on every machine, forever (the model name
 * carries a version so a change of the hashing would not mix with old vectors).
 *
 * With an organization LLM credential whose provider has an embedding model, the
 * provider's model is used instead (provider-embedder.ts); every stored vector
 * records which model made it and a search compares only vectors of one model.
 */
import { isStopword, stem } from '../reliability/text.js'

export const LOCAL_EMBEDDING_MODEL = 'local:hash-uni-bigram-256-v1'
export const LOCAL_DIMENSIONS = 256

export interface Embedder {
  /** Stored with each vector: `local:...` or `provider:model`. */
  readonly model: string
  embed(texts: string[]): Promise<number[][]>
}

/** FNV-1a, 32-bit: stable across platforms and Node versions. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** Lower-cased, stemmed content words in order (numbers kept as written). */
export function normalisedWords(text: string): string[] {
  const out: string[] = []
  for (const m of text.toLowerCase().matchAll(/[a-z0-9][a-z0-9'-]*/g)) {
    const w = m[0].replace(/'s$/, '').replace(/['-]+$/, '')
    if (w.length < 2 || isStopword(w)) continue
    out.push(/^\d/.test(w) ? w : stem(w))
  }
  return out
}

export function localEmbedding(text: string): number[] {
  const v = new Array<number>(LOCAL_DIMENSIONS).fill(0)
  const words = normalisedWords(text)
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature)
    // The sign bit spreads collisions around zero instead of piling them up.
    v[h % LOCAL_DIMENSIONS]! += (h & 0x80000000 ? -1 : 1) * weight
  }
  for (let i = 0; i < words.length; i++) {
    add(words[i]!, 1)
    if (i + 1 < words.length) add(`${words[i]} ${words[i + 1]}`, 0.5)
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return norm === 0 ? v : v.map((x) => x / norm)
}

export const localEmbedder: Embedder = {
  model: LOCAL_EMBEDDING_MODEL,
  embed: async (texts) => texts.map(localEmbedding),
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
