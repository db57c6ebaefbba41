/**
 * The alignment document worker on the real embedded log and embedded ClickHouse:
 * a document record it cannot read or store is dead-lettered, the documents around
 * it are embedded, and the batch is committed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { alignmentDocumentV1, deadLetterV1, type AlignmentDocumentRecord } from '@svc/shared/bus/records'
import { dlqTopic, GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { createLogger } from '@svc/shared/log'
import { docState } from '@svc/shared/store/queries/alignment'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { startDocumentWorker } from './documents.js'
import { localOnly } from './embedders.js'
import { eventually } from '@svc/shared/test-support/eventually'

const log = createLogger({ level: 'silent' })
const WS = stableUuid('ws:documents')
let dir: string
let store: Store
let bus: Bus

const doc = (id: string, over: Partial<AlignmentDocumentRecord> = {}): AlignmentDocumentRecord => ({
  org_id: stableUuid('org:documents'), workspace_id: WS, doc_id: id, filename: `${id}.txt`, content_type: 'text/plain',
  text: 'Refunds are issued within 30 days of purchase. Agents never promise more.', uploaded_at_ms: 1_700_000_000_000, ...over,
})

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'alignment-docs-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics([TOPICS.alignmentDocuments, dlqTopic(TOPICS.alignmentDocuments)].map((name) => ({ name, partitions: 1 })))
})
afterAll(async () => {
  await bus?.close()
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('alignment document worker', () => {
  it('dead-letters a document it cannot read or store, embeds the others and commits', async () => {
    await bus.produce(TOPICS.alignmentDocuments, [
      { key: `${WS}:d1`, value: alignmentDocumentV1.encode(doc('d1')) },
      { key: `${WS}:d2`, value: Buffer.from('\u0000\u0001 not a document') },
      { key: 'workspace-7:d3', value: alignmentDocumentV1.encode(doc('d3', { workspace_id: 'workspace-7' })) },
      { key: `${WS}:d4`, value: alignmentDocumentV1.encode(doc('d4')) },
    ])
    const sub = await startDocumentWorker({ bus, store, log, embedders: localOnly() })
    for (let i = 0; i < 4000 && (await bus.committedOffsets(GROUPS.alignmentDocuments, TOPICS.alignmentDocuments)).get(0) !== '4'; i++) await new Promise((r) => setTimeout(r, 5))
    expect((await bus.committedOffsets(GROUPS.alignmentDocuments, TOPICS.alignmentDocuments)).get(0)).toBe('4')
    await sub.close()

    for (const id of ['d1', 'd4']) expect((await docState(store, WS, id))?.status).toBe('embedded')
    const dead: ReturnType<typeof deadLetterV1.decode>[] = []
    const all = await bus.subscribe({ group: 'read', topics: [dlqTopic(TOPICS.alignmentDocuments)], ephemeral: true, onBatch: async (rs) => void dead.push(...rs.map((r) => deadLetterV1.decode(r.value))) })
    await eventually(async () => dead.length >= 2, 10_000, 5).finally(() => all.close())
    expect(dead.map((d) => [Number(d.original_offset), d.workspace_id, d.source])).toEqual([
      [1, WS, GROUPS.alignmentDocuments],
      [2, 'workspace-7', GROUPS.alignmentDocuments],
    ])
  })
})
