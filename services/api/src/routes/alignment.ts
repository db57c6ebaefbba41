/**
 * Alignment: the workspace's policy (a workspace.setting_set control event named
 * alignment_policy), its policy documents and the alignment engine's flags.
 *
 * POST /docs extracts the text of the upload (text/plain, text/markdown, text/html,
 * application/pdf through unpdf; anything else is 415), records the document as
 * `uploaded` in alignment_documents_v1 and produces it on alignment.documents.v1;
 * the engines' document worker chunks and embeds it and marks it `embedded`, and
 * only then does it influence flags. 202 with the doc_id. DELETE /docs/{doc_id}
 * marks it deleted (searches stop seeing it at once) and deletes its passages;
 * GET /docs lists the others with their status (the console's document list).
 * GET /flags and /by-user read alignment_flags_v1 (each trace's newest run), only
 * of traces inside the workspace's retention window.
 */
import { randomUUID } from 'node:crypto'
import { Hono } from 'hono'
import { z } from 'zod'
import { alignmentDocumentV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import type { ControlWriter } from '@svc/shared/control/control-plane'
import { SETTINGS, settingOf, writeSetting } from '@svc/shared/control/settings'
import { badRequest, HttpError, notFound, payloadTooLarge } from '@svc/shared/http/errors'
import { deleteChunks, docState, flagsByUser, listDocs, listFlags, writeDocState, type DocStateRow } from '@svc/shared/store/queries/alignment'
import type { Store } from '@svc/shared/store/types'
import { mount, ROUTES, targetWorkspace } from '../access.js'
import { actorOf } from '../actor.js'
import { htmlToText } from '@svc/shared/domain/html-text'
import { retentionFloorNs } from '@svc/shared/domain/retention'
import { describeRoute } from '../openapi/registry.js'
import { IsoTime } from '../openapi/schemas.js'
import { parseQuery, queryEnum, queryInt } from '../params.js'
import { jsonBody } from './auth.js'

/** Extracted text per document: keeps one record under Kafka's default 1 MB message limit. */
export const DOC_TEXT_MAX = 750_000
export const FLAGS_LIMIT_MAX = 500
/** SVC_ALIGNMENT_MAX_DOC_BYTES's default, and what an upload may add around the document (multipart framing). */
export const DEFAULT_MAX_DOC_BYTES = 10 * 1024 * 1024
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024

const Policy = z.object({ enabled: z.boolean(), description: z.string() })
const PolicyBody = SETTINGS.alignment_policy.schema.strict()
const DocParams = z.object({ doc_id: z.string().describe('As returned by POST .../alignment/docs') })
const UploadForm = z.object({ file: z.any().describe('The policy document (binary): text, Markdown, HTML or PDF') })
const Uploaded = z.object({
  doc_id: z.string(),
  status: z.literal('uploaded'),
  filename: z.string(),
  content_type: z.string(),
  bytes: z.number().int(),
  text_chars: z.number().int(),
})
const Doc = z.object({
  doc_id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  bytes: z.number().int(),
  text_chars: z.number().int(),
  status: z.enum(['uploaded', 'embedded', 'failed']).describe('uploaded: waiting to be chunked and embedded; embedded: influences flags; failed: see error'),
  chunks: z.number().int().describe('Passages embedded (0 until embedded)'),
  embedding_model: z.string(),
  error: z.string().describe('Why embedding failed, or why the local model stood in for the provider\'s; empty otherwise'),
  uploaded_at: IsoTime,
  updated_at: IsoTime,
})
const FlagsQuery = z.object({
  limit: queryInt('limit', 1, FLAGS_LIMIT_MAX, 50),
  offset: queryInt('offset', 0, 1_000_000, 0),
  include_unclear: queryEnum('include_unclear', ['true', 'false'], 'false', 'Also list low-confidence ("unclear") flags'),
})
const Flag = z.object({
  flag_id: z.string(),
  trace_id: z.string(),
  policy_excerpt: z.string(),
  agent_output: z.string(),
  severity: z.enum(['high', 'medium', 'low']),
  confidence: z.number().describe('0-1'),
  created_at: IsoTime,
  unclear: z.boolean().describe('Confidence below the engine threshold (beyond the spec)'),
})
const UserRow = z.object({
  end_user: z.string(),
  flags: z.number().int(),
  traces: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  last_flag_at: IsoTime,
})

describeRoute({ route: ROUTES.getAlignmentPolicy, summary: 'Alignment policy', tags: ['Alignment'], responses: { 200: { description: 'The policy', schema: Policy } } })
describeRoute({
  route: ROUTES.putAlignmentPolicy,
  summary: 'Set the alignment policy',
  description: 'Replaces the policy; omitted fields take their defaults (description empty, enabled false).',
  tags: ['Alignment'],
  body: PolicyBody,
  responses: { 200: { description: 'The stored policy', schema: Policy } },
})
describeRoute({
  route: ROUTES.listAlignmentDocs,
  summary: 'Policy documents',
  description: 'The documents not deleted, newest upload first, each with its embedding status.',
  tags: ['Alignment'],
  responses: { 200: { description: 'The documents', schema: z.object({ documents: z.array(Doc) }) } },
})
describeRoute({
  route: ROUTES.uploadAlignmentDoc,
  summary: 'Upload a policy document',
  description:
    'multipart/form-data with `file`: text/plain, text/markdown, text/html or application/pdf (else 415). The text is extracted now; chunking and embedding happen asynchronously, and the document influences flags only once embedded.',
  tags: ['Alignment'],
  body: UploadForm,
  bodyContentType: 'multipart/form-data',
  responses: { 202: { description: 'Accepted: the document id; embedding follows asynchronously', schema: Uploaded } },
})
describeRoute({
  route: ROUTES.deleteAlignmentDoc,
  summary: 'Delete a policy document',
  description: 'Removes the document and its embeddings; it stops influencing flags at once.',
  tags: ['Alignment'],
  params: DocParams,
  responses: { 204: { description: 'Deleted' } },
})
describeRoute({
  route: ROUTES.listAlignmentFlags,
  summary: 'Alignment flags',
  description: 'Newest first, offset paging. Low-confidence flags only with include_unclear=true.',
  tags: ['Alignment'],
  query: FlagsQuery,
  responses: { 200: { description: 'A page of flags', schema: z.object({ flags: z.array(Flag), total: z.number().int() }) } },
})
describeRoute({
  route: ROUTES.alignmentByUser,
  summary: 'Alignment flags per end user',
  description: 'Confident flags aggregated per svc.end_user; traces without the attribute are left out (empty list when it was never set).',
  tags: ['Alignment'],
  responses: { 200: { description: 'Per user, most flags first', schema: z.object({ users: z.array(UserRow), total: z.number().int() }) } },
})

const unsupported = (type: string) =>
  new HttpError(415, 'unsupported_media_type', `cannot read a document of type ${JSON.stringify(type || 'unknown')}`, { accepted: ['text/plain', 'text/markdown', 'text/html', 'application/pdf'] })

/** The document's kind from its declared type, else from its file name. */
function kindOf(file: File): 'text' | 'markdown' | 'html' | 'pdf' | null {
  const type = (file.type || '').split(';')[0]!.trim().toLowerCase()
  if (type === 'text/plain') return 'text'
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown'
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html'
  if (type === 'application/pdf') return 'pdf'
  if (type && type !== 'application/octet-stream') return null
  const ext = /\.([a-z0-9]+)$/i.exec(file.name ?? '')?.[1]?.toLowerCase()
  return ext === 'txt' || ext === 'text' ? 'text' : ext === 'md' || ext === 'markdown' ? 'markdown' : ext === 'html' || ext === 'htm' ? 'html' : ext === 'pdf' ? 'pdf' : null
}

const docView = (d: DocStateRow) => ({
  doc_id: d.doc_id,
  filename: d.filename,
  content_type: d.content_type,
  bytes: d.bytes,
  text_chars: d.text_chars,
  status: d.status,
  chunks: d.chunks,
  embedding_model: d.embedding_model,
  error: d.error,
  uploaded_at: new Date(d.uploaded_at_ms).toISOString(),
  updated_at: new Date(d.updated_at_ms).toISOString(),
})

const CONTENT_TYPES = { text: 'text/plain', markdown: 'text/markdown', html: 'text/html', pdf: 'application/pdf' } as const

async function extract(kind: 'text' | 'markdown' | 'html' | 'pdf', bytes: Uint8Array): Promise<string> {
  if (kind === 'pdf') {
    const { extractText, getDocumentProxy } = await import('unpdf')
    try {
      const pdf = await getDocumentProxy(bytes)
      const { text } = await extractText(pdf, { mergePages: true })
      return (Array.isArray(text) ? text.join('\n\n') : text).trim()
    } catch (err) {
      throw badRequest(`the PDF could not be read: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const text = new TextDecoder('utf-8').decode(bytes)
  return (kind === 'html' ? htmlToText(text) : text).trim()
}

export function alignmentRoutes(deps: { store: Store; control: ControlWriter; defaultRetentionHours: number; bus?: Bus; maxDocBytes?: number }): Hono {
  const app = new Hono()
  const { store, control } = deps
  const { state } = control
  const maxBytes = deps.maxDocBytes ?? DEFAULT_MAX_DOC_BYTES

  const policyOf = (wsId: string) => settingOf(state, wsId, 'alignment_policy')
  mount(app, ROUTES.getAlignmentPolicy, state, (c) => c.json(policyOf(targetWorkspace(c).id)))
  mount(app, ROUTES.putAlignmentPolicy, state, async (c) => {
    const ws = targetWorkspace(c)
    const body = await jsonBody(c, PolicyBody)
    await writeSetting(control, actorOf(c), ws.id, 'alignment_policy', body)
    return c.json(policyOf(ws.id))
  })

  mount(app, ROUTES.listAlignmentDocs, state, async (c) => {
    const docs = await listDocs(store, targetWorkspace(c).id)
    return c.json({ documents: docs.map(docView) })
  })

  mount(app, ROUTES.uploadAlignmentDoc, state, async (c) => {
    const ws = targetWorkspace(c)
    const type = (c.req.header('content-type') ?? '').toLowerCase()
    if (!type.startsWith('multipart/form-data')) throw new HttpError(415, 'unsupported_media_type', 'send the document as multipart/form-data with a `file` field')
    // The body as a whole was limited (maxBytes + MULTIPART_OVERHEAD_BYTES) while it streamed in: middleware/body-limit.ts.
    let form: Record<string, unknown>
    try {
      form = await c.req.parseBody()
    } catch {
      throw badRequest('the multipart body could not be read')
    }
    const file = form.file
    if (!(file instanceof File)) throw badRequest('a `file` field with the document is required', { field: 'file' })
    if (file.size > maxBytes) throw payloadTooLarge(`documents are limited to ${maxBytes} bytes`, maxBytes)
    const kind = kindOf(file)
    if (!kind) throw unsupported(file.type)
    if (!deps.bus) throw new HttpError(503, 'unavailable', 'document uploads need the bus, which this API process was started without')
    const text = await extract(kind, new Uint8Array(await file.arrayBuffer()))
    if (!text) throw badRequest('the document contains no text')
    if (text.length > DOC_TEXT_MAX) throw new HttpError(413, 'payload_too_large', `the document's text is limited to ${DOC_TEXT_MAX} characters; split it into several documents`)
    const docId = randomUUID()
    const now = Date.now()
    const filename = (file.name ?? '').slice(0, 256)
    await writeDocState(store, {
      workspace_id: ws.id, doc_id: docId, filename, content_type: CONTENT_TYPES[kind], bytes: file.size, text_chars: text.length,
      status: 'uploaded', chunks: 0, embedding_model: '', error: '', uploaded_at_ms: now, updated_at_ms: now,
    })
    await deps.bus.produce(TOPICS.alignmentDocuments, [
      { key: `${ws.id}:${docId}`, value: alignmentDocumentV1.encode({ org_id: ws.org_id, workspace_id: ws.id, doc_id: docId, filename, content_type: CONTENT_TYPES[kind], text, uploaded_at_ms: now }) },
    ])
    return c.json({ doc_id: docId, status: 'uploaded' as const, filename, content_type: CONTENT_TYPES[kind], bytes: file.size, text_chars: text.length }, 202)
  })

  mount(app, ROUTES.deleteAlignmentDoc, state, async (c) => {
    const ws = targetWorkspace(c)
    const docId = c.req.param('doc_id') ?? ''
    const doc = docId.length <= 64 ? await docState(store, ws.id, docId) : null
    if (!doc || doc.status === 'deleted') throw notFound(`document ${docId} not found`)
    await writeDocState(store, { ...doc, status: 'deleted', updated_at_ms: Date.now() })
    await deleteChunks(store, ws.id, docId)
    return c.body(null, 204)
  })

  mount(app, ROUTES.listAlignmentFlags, state, async (c) => {
    const q = parseQuery(FlagsQuery, c.req.query())
    const ws = targetWorkspace(c)
    const floor = retentionFloorNs(state, ws.id, deps.defaultRetentionHours)
    return c.json(await listFlags(store, ws.id, { limit: q.limit, offset: q.offset, includeUnclear: q.include_unclear === 'true', retentionFloorNs: floor }))
  })

  mount(app, ROUTES.alignmentByUser, state, async (c) => {
    const ws = targetWorkspace(c)
    const users = await flagsByUser(store, ws.id, retentionFloorNs(state, ws.id, deps.defaultRetentionHours))
    return c.json({ users, total: users.length })
  })

  return app
}
