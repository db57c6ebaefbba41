/**
 * The policy search an alignment run uses: for each embedding model the
 * workspace's embedded documents carry and that this process can compute now (the
 * local sentence model when loaded, the lexical embedding always, the provider's
 * model when the organization's current credential names it), embed the output
 * sentences and fetch the top-k passages by cosine similarity in ClickHouse; hits of
 * several models are merged by similarity, a passage found under two models (a
 * document being re-embedded) once. Documents whose model is stale (reembed.ts)
 * are queued for re-embedding; until that is done their old vectors are searched
 * when this process can still compute them.
 */
import { embeddedDocModels, searchPassages } from '@svc/shared/store/queries/alignment'
import type { Store } from '@svc/shared/store/types'
import type { Embedder } from '../semantic/types.js'
import { lexicalEmbedder } from './embed.js'
import type { PolicyEmbedders } from './embedders.js'
import type { PolicyPassage } from './index.js'
import { isStale, type Reembedder } from './reembed.js'

export function policySearch(store: Store, ws: { workspaceId: string; orgId: string }, embedders: PolicyEmbedders, reembed?: Reembedder) {
  return async (texts: string[], k: number): Promise<PolicyPassage[][]> => {
    const out: PolicyPassage[][] = texts.map(() => [])
    if (texts.length === 0) return out
    const docs = await embeddedDocModels(store, ws.workspaceId)
    if (docs.length === 0) return out
    const local = await embedders.local()
    const target = embedders.provider(ws.orgId) ?? local
    const byModel = new Map<string, Embedder>([lexicalEmbedder, local, target].map((e) => [e.model, e]))
    reembed?.request(
      ws,
      docs.filter((d) => isStale(d.model, new Set(byModel.keys()), target.model)),
    )
    // The current model first, so a passage found under two models keeps its current vector's similarity.
    const models = [...new Set(docs.map((d) => d.model))].sort((a, b) => Number(b === target.model) - Number(a === target.model))
    const seen = texts.map(() => new Set<string>())
    for (const model of models) {
      const e = byModel.get(model)
      if (!e) continue
      const vectors = await e.embed(texts)
      for (const h of await searchPassages(store, ws.workspaceId, model, vectors, k)) {
        const key = `${h.doc_id}#${h.chunk_index}`
        if (seen[h.q]?.has(key)) continue
        seen[h.q]?.add(key)
        out[h.q]?.push({ doc_id: h.doc_id, chunk_index: h.chunk_index, text: h.text, similarity: h.similarity })
      }
    }
    return out.map((hits) => hits.sort((a, b) => b.similarity - a.similarity).slice(0, k))
  }
}
