/** The engines as the evaluation runs them: content_reliability, then sources on its claims, with a neutral prior. */
import { contentReliability } from '../reliability/index.js'
import type { Embedder } from '../semantic/types.js'
import { finalOutput } from '../reliability/evidence.js'
import { sourcesMatrix } from '../sources/index.js'
import type { ReliabilityRunner } from './eval-reliability.js'

export function reliabilityRunner(embedder: Embedder | null = null): ReliabilityRunner {
  return async (view) => {
    const reliability = await contentReliability(view, embedder)
    // A neutral prior: the evaluation judges the matrix, not a workspace's history.
    return { reliability, sources: sourcesMatrix(view, reliability, () => 0.5), answer: finalOutput(view) }
  }
}
