/**
 * The policy search an alignment run uses: for each embedding model the
 * workspace's embedded documents were made with and that this process can compute
 * now (the local model always; the provider's model when the organization's
 * current credential names it), embed the output sentences and fetch the top-k
 * passages by cosine similarity in ClickHouse; hits of several models are merged
 * by similarity. A document embedded with a model the organization no longer has is
 * not searched until it is uploaded again.
 */
import { embeddedModels, searchPassages } from '@svc/shared/store/queries/alignment'
import type { Store } from '@svc/shared/store/types'
import { localEmbedder, type Embedder } from './embed.js'
import type { PolicyPassage } from './index.js'

export function policySearch(store: Store, workspaceId: string, embedder: Embedder) {
  return async (texts: string[], k: number): Promise<PolicyPassage[][]> => {
    const out: PolicyPassage[][] = texts.map(() => [])
    if (texts.length === 0) return out
    const models = await embeddedModels(store, workspaceId)
    for (const model of models) {
      const e = model === localEmbedder.model ? localEmbedder : model === embedder.model ? embedder : null
      if (!e) continue
      const vectors = await e.embed(texts)
      for (const h of await searchPassages(store, workspaceId, model, vectors, k)) out[h.q]?.push({ doc_id: h.doc_id, chunk_index: h.chunk_index, text: h.text, similarity: h.similarity })
    }
    return out.map((hits) => hits.sort((a, b) => b.similarity - a.similarity).slice(0, k))
  }
}
