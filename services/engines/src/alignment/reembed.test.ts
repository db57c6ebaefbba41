/**
 * Re-embedding over the real embedded ClickHouse and the real sentence model: a
 * document embedded with the lexical model is found by a search, queued, embedded
 * again with the sentence model (old vectors deleted, the document row updated),
 * and searched with the model from then on.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { createLogger } from '@svc/shared/log'
import { docState, embeddedDocModels, insertChunks, writeDocState } from '@svc/shared/store/queries/alignment'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { SentenceModel } from '../semantic/sentence-model.js'
import { MODEL_LABEL, modelDir } from '../semantic/model-files.js'
import { chunkText } from './chunk.js'
import { LEXICAL_EMBEDDING_MODEL, lexicalEmbedding } from './embed.js'
import { localOnly } from './embedders.js'
import { isStale, reembedder } from './reembed.js'
import { policySearch } from './search.js'

const log = createLogger({ level: 'silent' })
const ws = { workspaceId: stableUuid('ws:reembed'), orgId: stableUuid('org:reembed') }
let dir: string
let store: Store
let model: SentenceModel

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'alignment-reembed-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  model = await SentenceModel.load(modelDir(process.env.SVC_MODEL_DIR))
}, 60_000)
afterAll(async () => {
  await model?.release()
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('isStale', () => {
  it('re-embeds lexical vectors once another model is current, and vectors no model here can compute', () => {
    const computable = new Set([LEXICAL_EMBEDDING_MODEL, MODEL_LABEL])
    expect(isStale(LEXICAL_EMBEDDING_MODEL, computable, MODEL_LABEL)).toBe(true)
    expect(isStale(LEXICAL_EMBEDDING_MODEL, new Set([LEXICAL_EMBEDDING_MODEL]), LEXICAL_EMBEDDING_MODEL)).toBe(false)
    expect(isStale('openai:text-embedding-3-small', computable, MODEL_LABEL)).toBe(true)
    expect(isStale(MODEL_LABEL, new Set([...computable, 'openai:x']), 'openai:x')).toBe(false)
  })
})

describe('re-embedding on search', () => {
  it('moves a lexically embedded document to the sentence model and searches it by meaning', async () => {
    const text = '# Refunds\n\nReimbursements are possible within thirty days of purchase.\n\n# Hours\n\nOur stores open at nine in the morning.'
    const chunks = chunkText(text)
    await insertChunks(store, chunks.map((c) => ({ workspace_id: ws.workspaceId, embedding_model: LEXICAL_EMBEDDING_MODEL, doc_id: 'd1', chunk_index: c.index, text: c.text, embedding: Array.from(lexicalEmbedding(c.text)), embedded_at: '1700000000000' })))
    await writeDocState(store, { workspace_id: ws.workspaceId, doc_id: 'd1', filename: 'p.md', content_type: 'text/markdown', bytes: text.length, text_chars: text.length, status: 'embedded', chunks: chunks.length, embedding_model: LEXICAL_EMBEDDING_MODEL, error: '', uploaded_at_ms: 1_700_000_000_000, updated_at_ms: 1_700_000_000_000 })

    const embedders = localOnly(model)
    const reembed = reembedder({ store, embedders, log })
    const search = policySearch(store, ws, embedders, reembed)
    // The first search reads the lexical vectors and queues the document.
    const first = await search(['Can I get my money back?'], 1)
    expect(first[0]).toHaveLength(1)
    await reembed.idle(ws.workspaceId)

    expect(await embeddedDocModels(store, ws.workspaceId)).toEqual([{ doc_id: 'd1', model: MODEL_LABEL }])
    expect(await docState(store, ws.workspaceId, 'd1')).toMatchObject({ status: 'embedded', embedding_model: MODEL_LABEL, chunks: chunks.length })
    const [hits] = await search(['Can I get my money back?'], 1)
    expect(hits![0]!.text).toContain('Reimbursements')
  }, 60_000)
})
