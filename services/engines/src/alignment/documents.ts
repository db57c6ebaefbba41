/**
 * The alignment document worker: alignment.documents.v1 as the group
 * alignment-documents. Each record is one uploaded document's text: it is cut into
 * passages (chunk.ts), embedded with the organization's embedder (embedders.ts: the
 * provider's model with a credential that has one, else the local sentence model,
 * else the lexical embedding), written to
 * alignment_chunks_v1, then marked embedded in alignment_documents_v1. Only then
 * do searches see it. A document deleted before or while it is embedded stays
 * deleted ('deleted' outranks 'embedded'), and passages written after the delete
 * are deleted again. A provider that fails falls back to the local model (the
 * document's row says so in `error`), so one outage cannot stall the topic.
 */
import { alignmentDocumentV1, type AlignmentDocumentRecord } from '@svc/shared/bus/records'
import { isStorableUuid, runConsumer, type ConsumerSpec, type Rejection } from '@svc/shared/bus/run-consumer'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus, Subscription } from '@svc/shared/bus/types'
import type { Logger } from '@svc/shared/log'
import { deleteChunks, docState, insertChunks, writeDocState } from '@svc/shared/store/queries/alignment'
import type { Store } from '@svc/shared/store/types'
import { chunkText } from './chunk.js'
import { embedPassages, type PolicyEmbedders } from './embedders.js'

export interface DocumentWorkerDeps {
  bus: Bus
  store: Store
  embedders: PolicyEmbedders
  log: Logger
  now?: () => number
}

export async function embedDocument(deps: DocumentWorkerDeps, doc: AlignmentDocumentRecord): Promise<void> {
  const { store, log } = deps
  const now = deps.now ?? Date.now
  const before = await docState(store, doc.workspace_id, doc.doc_id)
  if (before?.status === 'deleted') return
  const chunks = chunkText(doc.text)
  const { embedder, vectors, error } = await embedPassages(deps.embedders, doc.org_id, chunks.map((c) => c.text))
  if (error) log.warn({ workspace_id: doc.workspace_id, doc_id: doc.doc_id, error }, 'alignment document: provider embedding failed, local model used')
  const at = now()
  await insertChunks(
    store,
    chunks.map((c, i) => ({ workspace_id: doc.workspace_id, embedding_model: embedder.model, doc_id: doc.doc_id, chunk_index: c.index, text: c.text, embedding: Array.from(vectors[i]!), embedded_at: String(at) })),
  )
  await writeDocState(store, {
    workspace_id: doc.workspace_id,
    doc_id: doc.doc_id,
    filename: doc.filename,
    content_type: doc.content_type,
    bytes: before?.bytes ?? Buffer.byteLength(doc.text),
    text_chars: doc.text.length,
    status: chunks.length ? 'embedded' : 'failed',
    chunks: chunks.length,
    embedding_model: embedder.model,
    error: chunks.length ? error : 'the document has no text to embed',
    uploaded_at_ms: doc.uploaded_at_ms,
    updated_at_ms: at,
  })
  // Deleted while we worked: its passages must not outlive it.
  if ((await docState(store, doc.workspace_id, doc.doc_id))?.status === 'deleted') await deleteChunks(store, doc.workspace_id, doc.doc_id)
  log.info({ workspace_id: doc.workspace_id, doc_id: doc.doc_id, chunks: chunks.length, model: embedder.model }, 'alignment document embedded')
}

/** The document worker as a consumer (group alignment-documents), run by runConsumer. */
export function documentConsumer(deps: DocumentWorkerDeps): ConsumerSpec<AlignmentDocumentRecord> {
  return {
    group: GROUPS.alignmentDocuments,
    topics: { [TOPICS.alignmentDocuments]: alignmentDocumentV1 },
    maxBatchRecords: 20,
    log: deps.log,
    async handle(batch) {
      const rejected: Rejection[] = []
      for (const { value: doc, record } of batch) {
        // The document tables key by a UUID workspace: any other id fails every statement about it.
        if (!isStorableUuid(doc.workspace_id) || !doc.doc_id) rejected.push({ record, reason: `not a storable document: workspace_id ${JSON.stringify(doc.workspace_id.slice(0, 64))}, doc_id ${JSON.stringify(doc.doc_id.slice(0, 64))}`, workspaceId: doc.workspace_id, orgId: doc.org_id })
        else await embedDocument(deps, doc)
      }
      return rejected
    },
  }
}

export function startDocumentWorker(deps: DocumentWorkerDeps): Promise<Subscription> {
  return runConsumer(deps.bus, documentConsumer(deps))
}
