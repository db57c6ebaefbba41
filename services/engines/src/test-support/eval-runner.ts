/** The engines as the evaluation runs them: content_reliability, then sources on its claims, with a neutral prior. */
import { contentReliability, reliabilityOf } from '../reliability/index.js'
import type { CombinerWeights } from '../reliability/combiner.js'
import { judgeTrace, withCombiner } from '../reliability/judgement.js'
import type { Embedder } from '../semantic/types.js'
import { finalOutput } from '../reliability/evidence.js'
import { sourcesMatrix } from '../sources/index.js'
import type { ReliabilityRunner } from './eval-reliability.js'

/**
 * With `rulesOnly`, the rules' verdicts without the combiner; with `weights` (and the model), the rules' judgement
 * combined by that fit instead of the shipped one (pnpm eval:combiner's comparison out of sample).
 */
export function reliabilityRunner(embedder: Embedder | null = null, options: { rulesOnly?: boolean; weights?: CombinerWeights } = {}): ReliabilityRunner {
  return async (view) => {
    const { weights } = options
    const reliability =
      weights && embedder ? reliabilityOf(view, (await withCombiner(await judgeTrace(view, embedder, true), embedder, weights)).claims) : await contentReliability(view, embedder, options.rulesOnly)
    // A neutral prior: the evaluation judges the matrix, not a workspace's history.
    return { reliability, sources: sourcesMatrix(view, reliability, () => 0.5), answer: finalOutput(view) }
  }
}
