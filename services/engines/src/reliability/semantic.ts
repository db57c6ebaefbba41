/**
 * The sentence model's part in the claim judgement: for each claim the structured
 * checks could not settle by figures, the few evidence statements that share most
 * of its words (PRESELECT) are compared with it by meaning. Only those are
 * embedded, claims and statements together in one call, and the model caches
 * vectors by text, so a document or tool result repeated across traces is embedded
 * once. Without the model every similarity is 0 and the judge stays lexical.
 */
import type { Embedder } from '../semantic/types.js'
import { dot } from '../semantic/types.js'
import type { Statement } from './statements.js'
import { analyze } from './text.js'

/** Statements compared by meaning per claim. */
export const PRESELECT = 4

/** Stems a statement shares with a claim, weighted: the cheap first cut. */
function overlap(claim: Set<string>, s: Statement): number {
  let n = 0
  for (const t of s.terms.keys()) if (claim.has(t) || (t.length >= 5 && [...claim].some((c) => c.length >= 5 && (c.startsWith(t) || t.startsWith(c))))) n++
  return n
}

/** Statements worth embedding: sentences and facts, not the two-sentence windows (their sentences are there). */
export const embeddable = (s: Statement) => !s.request && s.text.length <= 600

export interface SemanticScores {
  /** One function per claim: its cosine to a statement (0 for statements not preselected). */
  similarity: Array<(s: Statement) => number>
  /** Texts embedded for this trace (claims and statements), for the throughput figures. */
  embedded: number
}

export async function semanticScores(embedder: Embedder | null, claims: string[], statements: Statement[], needs: boolean[]): Promise<SemanticScores> {
  const none = () => 0
  if (!embedder || !claims.length) return { similarity: claims.map(() => none), embedded: 0 }
  const pool = statements.filter(embeddable)
  const picks = claims.map((claim, i) => {
    if (!needs[i]) return []
    const terms = new Set([...analyze(claim).terms.keys()].filter((t) => !t.startsWith('#')))
    return pool
      .map((s) => ({ s, n: overlap(terms, s) }))
      .filter((x) => x.n > 0)
      .sort((a, b) => b.n - a.n)
      .slice(0, PRESELECT)
      .map((x) => x.s)
  })
  const texts = new Map<string, number>()
  const index = (t: string) => texts.get(t) ?? (texts.set(t, texts.size), texts.size - 1)
  const claimAt = claims.map((c, i) => (picks[i]!.length ? index(c) : -1))
  const stmtAt = picks.map((ss) => ss.map((s) => index(s.text)))
  if (!texts.size) return { similarity: claims.map(() => none), embedded: 0 }
  const vectors = await embedder.embed([...texts.keys()])
  const similarity = claims.map((_, i) => {
    if (claimAt[i]! < 0) return none
    const cv = vectors[claimAt[i]!]!
    const scores = new Map(picks[i]!.map((s, j) => [s, dot(cv, vectors[stmtAt[i]![j]!]!)]))
    return (s: Statement) => scores.get(s) ?? 0
  })
  return { similarity, embedded: texts.size }
}
