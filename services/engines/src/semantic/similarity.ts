/**
 * Meaning-level matching on top of an Embedder, for every engine that reads meaning
 * (alignment's rules, decomposition's sub-tasks, content reliability's claims and
 * evidence): embed both sides in one call (cached by text) and compare.
 */
import { dot, type Embedder } from './types.js'

/** Cosine similarity of every query to every candidate: `m[q][c]`. */
export async function similarityMatrix(embedder: Embedder, queries: string[], candidates: string[]): Promise<number[][]> {
  if (queries.length === 0) return []
  const vectors = await embedder.embed([...queries, ...candidates])
  const cv = vectors.slice(queries.length)
  return vectors.slice(0, queries.length).map((q) => cv.map((c) => dot(q, c)))
}
