/**
 * Alignment's reads and writes (clickhouse/0015_create_alignment_documents.sql,
 * 0016_create_alignment_flags_v1.sql): document states, embedded passages and
 * their top-k search by cosine distance, and the flags the API serves.
 */
import { mutationTarget } from '../cluster.js'
import type { Store } from '../types.js'
import { tracesWithinRetention } from './retention.js'

export type DocStatus = 'uploaded' | 'embedded' | 'failed' | 'deleted'
const RANK: Record<DocStatus, number> = { uploaded: 0, embedded: 1, failed: 1, deleted: 2 }
/** The table's version: a later state always wins, deleted over everything. */
export const docVersion = (status: DocStatus, atMs: number) => RANK[status] * 10_000_000_000_000 + atMs

export interface DocStateRow {
  workspace_id: string
  doc_id: string
  filename: string
  content_type: string
  bytes: number
  text_chars: number
  status: DocStatus
  chunks: number
  embedding_model: string
  error: string
  uploaded_at_ms: number
  updated_at_ms: number
}

export async function writeDocState(store: Store, d: DocStateRow): Promise<void> {
  await store.insert(
    'alignment_documents_v1',
    [
      {
        workspace_id: d.workspace_id,
        doc_id: d.doc_id,
        filename: d.filename,
        content_type: d.content_type,
        bytes: d.bytes,
        text_chars: d.text_chars,
        status: d.status,
        version: docVersion(d.status, d.updated_at_ms),
        chunks: d.chunks,
        embedding_model: d.embedding_model,
        error: d.error,
        uploaded_at: String(d.uploaded_at_ms),
        updated_at: String(d.updated_at_ms),
      },
    ],
    { tag: 'alignment.doc-state' },
  )
}

/** A document's newest state, or null when the workspace never had it. */
export async function docState(store: Store, workspaceId: string, docId: string): Promise<DocStateRow | null> {
  const rows = await store.query<DocStateRow>(
    `SELECT workspace_id, doc_id,
    argMax(filename, version) AS filename, argMax(content_type, version) AS content_type,
    argMax(bytes, version) AS bytes, argMax(text_chars, version) AS text_chars,
    argMax(status, version) AS status, argMax(chunks, version) AS chunks,
    argMax(embedding_model, version) AS embedding_model, argMax(error, version) AS error,
    toUnixTimestamp64Milli(min(uploaded_at)) AS uploaded_at_ms, toUnixTimestamp64Milli(argMax(updated_at, version)) AS updated_at_ms
FROM alignment_documents_v1
WHERE workspace_id = {ws:UUID} AND doc_id = {doc:String}
GROUP BY workspace_id, doc_id`,
    { ws: workspaceId, doc: docId },
    { tag: 'alignment.doc-state-read' },
  )
  const r = rows[0]
  return r ? { ...r, bytes: Number(r.bytes), text_chars: Number(r.text_chars), chunks: Number(r.chunks), uploaded_at_ms: Number(r.uploaded_at_ms), updated_at_ms: Number(r.updated_at_ms) } : null
}

/** The workspace's documents that are not deleted, newest upload first, each in its newest state (at most 1,000: policies are a handful of files). */
export async function listDocs(store: Store, workspaceId: string): Promise<DocStateRow[]> {
  const rows = await store.query<DocStateRow>(
    `SELECT workspace_id, doc_id,
    argMax(filename, version) AS filename, argMax(content_type, version) AS content_type,
    argMax(bytes, version) AS bytes, argMax(text_chars, version) AS text_chars,
    argMax(status, version) AS status, argMax(chunks, version) AS chunks,
    argMax(embedding_model, version) AS embedding_model, argMax(error, version) AS error,
    toUnixTimestamp64Milli(min(uploaded_at)) AS uploaded_at_ms, toUnixTimestamp64Milli(argMax(updated_at, version)) AS updated_at_ms
FROM alignment_documents_v1
WHERE workspace_id = {ws:UUID}
GROUP BY workspace_id, doc_id
HAVING status != 'deleted'
ORDER BY uploaded_at_ms DESC, doc_id
LIMIT 1000`,
    { ws: workspaceId },
    { tag: 'alignment.doc-list' },
  )
  return rows.map((r) => ({ ...r, bytes: Number(r.bytes), text_chars: Number(r.text_chars), chunks: Number(r.chunks), uploaded_at_ms: Number(r.uploaded_at_ms), updated_at_ms: Number(r.updated_at_ms) }))
}

export interface ChunkRow {
  workspace_id: string
  embedding_model: string
  doc_id: string
  chunk_index: number
  text: string
  embedding: number[]
  /** Epoch ms. */
  embedded_at: string
  [column: string]: unknown
}

export async function insertChunks(store: Store, rows: ChunkRow[]): Promise<void> {
  if (rows.length) await store.insert('alignment_chunks_v1', rows, { tag: 'alignment.chunks' })
}

/** Deletes a document's passages (a mutation; searches already ignore a deleted document). */
export async function deleteChunks(store: Store, workspaceId: string, docId: string): Promise<void> {
  await store.command(`ALTER TABLE ${mutationTarget('alignment_chunks_v1', store.cluster)} DELETE WHERE workspace_id = {ws:UUID} AND doc_id = {doc:String}`, { ws: workspaceId, doc: docId }, { tag: 'alignment.delete-chunks' })
}

const EMBEDDED_DOCS = `SELECT doc_id FROM alignment_documents_v1 WHERE workspace_id = {ws:UUID} GROUP BY doc_id HAVING argMax(status, version) = 'embedded'`

/** Each embedded document of the workspace with the model(s) its passages carry (two only while it is re-embedded). */
export async function embeddedDocModels(store: Store, workspaceId: string): Promise<Array<{ doc_id: string; model: string }>> {
  return store.query<{ doc_id: string; model: string }>(
    `SELECT DISTINCT doc_id, embedding_model AS model FROM alignment_chunks_v1 WHERE workspace_id = {ws:UUID} AND doc_id IN (${EMBEDDED_DOCS}) ORDER BY doc_id, model`,
    { ws: workspaceId },
    { tag: 'alignment.doc-models' },
  )
}

/** A document's passages as one model embedded them (the text is what gets re-embedded). */
export async function chunksOf(store: Store, workspaceId: string, docId: string, model: string): Promise<Array<{ chunk_index: number; text: string }>> {
  const rows = await store.query<{ chunk_index: number; text: string }>(
    `SELECT chunk_index, any(text) AS text FROM alignment_chunks_v1
WHERE workspace_id = {ws:UUID} AND doc_id = {doc:String} AND embedding_model = {model:String}
GROUP BY chunk_index ORDER BY chunk_index`,
    { ws: workspaceId, doc: docId, model },
    { tag: 'alignment.chunks-of' },
  )
  return rows.map((r) => ({ chunk_index: Number(r.chunk_index), text: r.text }))
}

/** Deletes the passages one model made of a document (after it was re-embedded with another). */
export async function deleteChunksOfModel(store: Store, workspaceId: string, docId: string, model: string): Promise<void> {
  await store.command(
    `ALTER TABLE ${mutationTarget('alignment_chunks_v1', store.cluster)} DELETE WHERE workspace_id = {ws:UUID} AND doc_id = {doc:String} AND embedding_model = {model:String}`,
    { ws: workspaceId, doc: docId, model },
    { tag: 'alignment.delete-model-chunks' },
  )
}

export interface PassageHit {
  /** Index of the query vector (0-based). */
  q: number
  doc_id: string
  chunk_index: number
  text: string
  similarity: number
}

/**
 * The k passages nearest to each query vector (cosine), among the embedded
 * documents' vectors of one model. One statement for all queries.
 */
export async function searchPassages(store: Store, workspaceId: string, model: string, queries: ArrayLike<number>[], k: number): Promise<PassageHit[]> {
  if (queries.length === 0) return []
  const rows = await store.query<PassageHit>(
    `SELECT q - 1 AS q, doc_id, chunk_index, text, 1 - cosineDistance(embedding, qv) AS similarity
FROM alignment_chunks_v1
ARRAY JOIN {qs:Array(Array(Float32))} AS qv, arrayEnumerate({qs:Array(Array(Float32))}) AS q
WHERE workspace_id = {ws:UUID} AND embedding_model = {model:String} AND doc_id IN (${EMBEDDED_DOCS})
ORDER BY q, similarity DESC, doc_id, chunk_index
LIMIT {k:UInt32} BY q`,
    { ws: workspaceId, model, qs: queries.map((q) => Array.from(q)), k },
    { tag: 'alignment.search' },
  )
  return rows.map((r) => ({ ...r, q: Number(r.q), chunk_index: Number(r.chunk_index), similarity: Number(r.similarity) }))
}

export interface FlagRow {
  workspace_id: string
  trace_id: string
  flag_id: string
  doc_id: string
  policy_excerpt: string
  agent_output: string
  severity: string
  confidence: number
  unclear: number
  end_user: string
  mode: string
  /** Epoch ms. */
  computed_at: string
  /** Unix seconds. */
  expires_at: number
  [column: string]: unknown
}

export async function insertFlags(store: Store, rows: FlagRow[]): Promise<void> {
  if (rows.length) await store.insert('alignment_flags_v1', rows, { tag: 'alignment.flags' })
}

/** Flags of each trace's newest alignment run, one row per flag, of traces inside the retention window. */
const CURRENT_FLAGS = `SELECT trace_id, flag_id, any(policy_excerpt) AS policy_excerpt, any(agent_output) AS agent_output, any(severity) AS severity,
    any(confidence) AS confidence, any(unclear) AS is_unclear, any(end_user) AS end_user, max(computed_at) AS created_at
FROM alignment_flags_v1
WHERE workspace_id = {ws:UUID} AND expires_at > now()
  AND trace_id IN (${tracesWithinRetention('SELECT trace_id FROM alignment_flags_v1 WHERE workspace_id = {ws:UUID}')})
  AND (trace_id, computed_at) IN (
    SELECT trace_id, max(computed_at) FROM engine_results_v1
    WHERE workspace_id = {ws:UUID} AND engine = 'alignment' AND expires_at > now() GROUP BY trace_id)
  AND (unclear = 0 OR {unclear:UInt8} = 1)
GROUP BY trace_id, flag_id`

export interface ApiFlag {
  flag_id: string
  trace_id: string
  policy_excerpt: string
  agent_output: string
  severity: string
  confidence: number
  created_at: string
  unclear: boolean
}

export async function listFlags(
  store: Store,
  workspaceId: string,
  opts: { limit: number; offset: number; includeUnclear: boolean; retentionFloorNs: bigint },
): Promise<{ flags: ApiFlag[]; total: number }> {
  const params = { ws: workspaceId, unclear: opts.includeUnclear ? 1 : 0, limit: opts.limit, offset: opts.offset, floorNs: opts.retentionFloorNs.toString() }
  const [rows, count] = await Promise.all([
    store.query<{ flag_id: string; trace_id: string; policy_excerpt: string; agent_output: string; severity: string; confidence: number; unclear: number; created_at_ms: number }>(
      `SELECT flag_id, trace_id, policy_excerpt, agent_output, severity, confidence, is_unclear AS unclear, toUnixTimestamp64Milli(created_at) AS created_at_ms
FROM (${CURRENT_FLAGS})
ORDER BY created_at DESC, trace_id, flag_id
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params,
      { tag: 'alignment.flags-page' },
    ),
    store.query<{ n: number }>(`SELECT count() AS n FROM (${CURRENT_FLAGS})`, params, { tag: 'alignment.flags-total' }),
  ])
  return {
    total: Number(count[0]?.n ?? 0),
    flags: rows.map((r) => ({
      flag_id: r.flag_id,
      trace_id: r.trace_id,
      policy_excerpt: r.policy_excerpt,
      agent_output: r.agent_output,
      severity: r.severity,
      confidence: Math.round(Number(r.confidence) * 1000) / 1000,
      created_at: new Date(Number(r.created_at_ms)).toISOString(),
      unclear: Number(r.unclear) === 1,
    })),
  }
}

export interface UserFlags {
  end_user: string
  flags: number
  traces: number
  high: number
  medium: number
  low: number
  last_flag_at: string
}

/** Confident flags per svc.end_user (traces without one are left out), of traces inside the retention window. */
export async function flagsByUser(store: Store, workspaceId: string, retentionFloorNs: bigint): Promise<UserFlags[]> {
  const rows = await store.query<{ end_user: string; flags: number; traces: number; high: number; medium: number; low: number; last_ms: number }>(
    `SELECT end_user, count() AS flags, uniqExact(trace_id) AS traces,
    countIf(severity = 'high') AS high, countIf(severity = 'medium') AS medium, countIf(severity = 'low') AS low,
    toUnixTimestamp64Milli(max(created_at)) AS last_ms
FROM (${CURRENT_FLAGS})
WHERE end_user != ''
GROUP BY end_user
ORDER BY flags DESC, end_user
LIMIT 1000`,
    { ws: workspaceId, unclear: 0, floorNs: retentionFloorNs.toString() },
    { tag: 'alignment.by-user' },
  )
  return rows.map((r) => ({ end_user: r.end_user, flags: Number(r.flags), traces: Number(r.traces), high: Number(r.high), medium: Number(r.medium), low: Number(r.low), last_flag_at: new Date(Number(r.last_ms)).toISOString() }))
}
