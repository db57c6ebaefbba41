/**
 * The source list over embedded ClickHouse: each trace counted once, as its newest
 * analysis saw it, on top of what sources_v1 counted before migration 0021.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../config.js'
import { createLogger } from '../../log.js'
import { createStore } from '../index.js'
import { migrate, MIGRATIONS_DIR } from '../migrate.js'
import type { Store } from '../types.js'
import { listSources, recordTraceSources, traceSources } from './sources.js'

const log = createLogger({ level: 'silent' })
const WS = '7e57a0c1-5e1d-4b2a-9c3d-1f0e2d3c4b5a'
const AT = 1_700_000_000_000
let dir: string
let store: Store

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sources-'))
  // The migrations before trace_sources_v1, then a sources_v1 that already counted something.
  const before = join(dir, 'migrations')
  mkdirSync(before)
  for (const f of readdirSync(MIGRATIONS_DIR)) if (/^\d{4}_/.test(f) && Number(f.slice(0, 4)) < 21) copyFileSync(join(MIGRATIONS_DIR, f), join(before, f))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
  await migrate(store, log, before)
  await store.insert('sources_v1', [
    { workspace_id: WS, domain: 'kb', kind: 'internal_kb', citations: 3, supported: 0, unsupported: 0, last_seen: String(AT) },
    { workspace_id: WS, domain: 'kb', kind: 'internal_kb', citations: 0, supported: 4, unsupported: 1 },
  ])
  await migrate(store, log)
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('sources', () => {
  it("merges a result's citations and verdicts into one entry per source", () => {
    const row = traceSources({ workspace_id: WS, trace_id: 't', analysed_at_ms: AT, expires_at_s: 1 }, [{ workspace_id: WS, domain: 'kb', kind: 'internal_kb', seen_at_ms: AT - 5 }], [
      { workspace_id: WS, domain: 'kb', kind: 'internal_kb', supported: 2, unsupported: 1 },
    ])
    expect(row.sources).toEqual([{ domain: 'kb', kind: 'internal_kb', citations: 1, supported: 2, unsupported: 1, seen_at_ms: AT - 5 }])
  })

  it('keeps what sources_v1 counted before the migration, and adds traces analysed since, each once', async () => {
    expect(await listSources(store, WS)).toEqual([{ domain: 'kb', kind: 'internal_kb', citation_count: 3, authority_prior: 0.714286, last_seen: new Date(AT).toISOString() }])
    const trace = (analysedAt: number, supported: number, unsupported: number) =>
      traceSources({ workspace_id: WS, trace_id: 'a'.repeat(32), analysed_at_ms: analysedAt, expires_at_s: Math.floor(Date.now() / 1000) + 3600 }, [{ workspace_id: WS, domain: 'kb', kind: 'internal_kb', seen_at_ms: analysedAt }], [
        { workspace_id: WS, domain: 'kb', kind: 'internal_kb', supported, unsupported },
      ])
    await recordTraceSources(store, [trace(AT + 1, 1, 0)])
    await recordTraceSources(store, [trace(AT + 1, 1, 0)])
    expect(await listSources(store, WS)).toEqual([{ domain: 'kb', kind: 'internal_kb', citation_count: 4, authority_prior: 0.75, last_seen: new Date(AT + 1).toISOString() }])
    await recordTraceSources(store, [trace(AT + 2, 0, 3)])
    expect(await listSources(store, WS)).toEqual([{ domain: 'kb', kind: 'internal_kb', citation_count: 4, authority_prior: 0.5, last_seen: new Date(AT + 2).toISOString() }])
  })
})
