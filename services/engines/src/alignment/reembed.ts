/**
 * Re-embedding of policy documents whose passages carry a model that is no longer
 * the one to search with: vectors of the lexical hash embedding once the local
 * sentence model is loaded (documents uploaded before it, or while it could not
 * load), and vectors of a provider model the organization no longer has. The trigger
 * is lazy: a policy search that meets such a document (search.ts) asks for it, and the
 * re-embedding runs in the background, one workspace at a time per process, while the
 * search goes on reading the old vectors. Per document: the stored passage texts are
 * embedded with the organization's current model (embedders.ts), written, the old
 * model's passages deleted, and the document's row records the new model. A document
 * deleted meanwhile keeps no passages. Two processes re-embedding the same document
 * write the same rows, which ReplacingMergeTree collapses.
 */
import type { Logger } from '@svc/shared/log'
import { chunksOf, deleteChunks, deleteChunksOfModel, docState, insertChunks, writeDocState } from '@svc/shared/store/queries/alignment'
import type { Store } from '@svc/shared/store/types'
import { LEXICAL_EMBEDDING_MODEL } from './embed.js'
import { embedPassages, type PolicyEmbedders } from './embedders.js'

/**
 * Whether a document embedded with `model` should be embedded again, given the
 * models this process can compute now and the one documents are embedded with now.
 */
export function isStale(model: string, computable: ReadonlySet<string>, target: string): boolean {
  if (model === target) return false
  return !computable.has(model) || model === LEXICAL_EMBEDDING_MODEL
}

export async function reembedDocument(deps: { store: Store; embedders: PolicyEmbedders; now?: () => number }, ws: { workspaceId: string; orgId: string }, docId: string, fromModel: string): Promise<string | null> {
  const { store } = deps
  const before = await docState(store, ws.workspaceId, docId)
  if (!before || before.status !== 'embedded') return null
  const chunks = await chunksOf(store, ws.workspaceId, docId, fromModel)
  if (chunks.length === 0) return null
  const { embedder, vectors, error } = await embedPassages(deps.embedders, ws.orgId, chunks.map((c) => c.text))
  if (embedder.model === fromModel) return null
  const at = (deps.now ?? Date.now)()
  await insertChunks(
    store,
    chunks.map((c, i) => ({ workspace_id: ws.workspaceId, embedding_model: embedder.model, doc_id: docId, chunk_index: c.chunk_index, text: c.text, embedding: Array.from(vectors[i]!), embedded_at: String(at) })),
  )
  await deleteChunksOfModel(store, ws.workspaceId, docId, fromModel)
  await writeDocState(store, { ...before, embedding_model: embedder.model, error, updated_at_ms: Math.max(at, before.updated_at_ms + 1) })
  if ((await docState(store, ws.workspaceId, docId))?.status === 'deleted') await deleteChunks(store, ws.workspaceId, docId)
  return embedder.model
}

/** One background re-embedding per workspace at a time; `request` never waits for it and never throws. */
export function reembedder(deps: { store: Store; embedders: PolicyEmbedders; log: Logger }) {
  const running = new Map<string, Promise<void>>()
  return {
    request(ws: { workspaceId: string; orgId: string }, docs: Array<{ doc_id: string; model: string }>): void {
      if (docs.length === 0 || running.has(ws.workspaceId)) return
      const job = (async () => {
        for (const d of docs) {
          const to = await reembedDocument(deps, ws, d.doc_id, d.model)
          if (to) deps.log.info({ workspace_id: ws.workspaceId, doc_id: d.doc_id, from: d.model, to }, 'alignment document re-embedded')
        }
      })()
        .catch((err: unknown) => deps.log.warn({ err, workspace_id: ws.workspaceId }, 'alignment: re-embedding failed; the next search tries again'))
        .finally(() => running.delete(ws.workspaceId))
      running.set(ws.workspaceId, job)
    },
    /** Settles once the workspace's running re-embedding has (tests). */
    idle: (workspaceId: string): Promise<void> => running.get(workspaceId) ?? Promise.resolve(),
  }
}

export type Reembedder = ReturnType<typeof reembedder>
