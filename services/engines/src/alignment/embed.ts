/**
 * The lexical embedding: feature hashing of normalised word unigrams and bigrams (stop
 * words dropped, light stemming) into 256 dimensions, L2-normalised. Two texts are
 * close when they share words; paraphrase ("reimbursement" for "refund") is not
 * close. It needs no model and gives the same vector for the same text on every
 * machine, forever (the model name carries a version so a change of the hashing would
 * not mix with old vectors).
 *
 * It was the default of policy document search until the local sentence model
 * (semantic/sentence-model.ts) took over; it remains what alignment searches with
 * when that model cannot load, and what reads documents embedded before it, until
 * they are re-embedded (reembed.ts). Every stored vector records which model made it
 * and a search compares only vectors of one model.
 */
import { isStopword, stem } from '../reliability/text.js'
import type { Embedder } from '../semantic/types.js'

export const LEXICAL_EMBEDDING_MODEL = 'local:hash-uni-bigram-256-v1'
export const LEXICAL_DIMENSIONS = 256

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

export function lexicalEmbedding(text: string): Float32Array {
  const v = new Float32Array(LEXICAL_DIMENSIONS)
  const words = normalisedWords(text)
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature)
    // The sign bit spreads collisions around zero instead of piling them up.
    v[h % LEXICAL_DIMENSIONS]! += (h & 0x80000000 ? -1 : 1) * weight
  }
  for (let i = 0; i < words.length; i++) {
    add(words[i]!, 1)
    if (i + 1 < words.length) add(`${words[i]} ${words[i + 1]}`, 0.5)
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return norm === 0 ? v : v.map((x) => x / norm)
}

export const lexicalEmbedder: Embedder = {
  model: LEXICAL_EMBEDDING_MODEL,
  dims: LEXICAL_DIMENSIONS,
  embed: async (texts) => texts.map(lexicalEmbedding),
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
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
