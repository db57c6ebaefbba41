import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { createStore } from './index.js'
import type { Store } from './types.js'

let dir: string
let store: Store
const rowsOf = (t: string) => store.query<{ id: number; name: string; tags: Record<string, string>; n: number }>(`SELECT id, name, tags, n FROM {t:Identifier} ORDER BY id`, { t })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-client-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), createLogger({ level: 'silent' }))
  for (const t of ['positional', 'defaults'])
    await store.command(`CREATE TABLE {t:Identifier} (id UInt32, name String, tags Map(String, String), n UInt8 DEFAULT 7) ENGINE = MergeTree ORDER BY id`, { t })
})
afterAll(async () => {
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('store.insert (chdb: through INFILE)', () => {
  it('maps positional rows by name, whatever order each row lists its keys in, and quotes text exactly', async () => {
    await store.insert('positional', [
      { id: 1, name: "it's \\ \"quoted\"\nnewline", tags: { a: '1' }, n: 1 },
      { n: 2, tags: {}, name: 'ünïcødé 漢', id: 2 },
    ])
    expect(await rowsOf('positional')).toEqual([
      { id: 1, name: "it's \\ \"quoted\"\nnewline", tags: { a: '1' }, n: 1 },
      { id: 2, name: 'ünïcødé 漢', tags: {}, n: 2 },
    ])
  })

  it('gives a column its DEFAULT only where a row leaves it out, whichever row comes first', async () => {
    await store.insert('defaults', [
      { id: 1, name: 'missing n', tags: {} },
      { id: 2, name: 'all', tags: {}, n: 1 },
      { id: 3, name: 'undefined n', tags: {}, n: undefined },
      { id: 4, name: 'all again', tags: {}, n: 3 },
    ])
    expect((await rowsOf('defaults')).map((r) => r.n)).toEqual([7, 1, 7, 3])
  })

  it('records each insert\'s rows and duration per table in the process metrics', async () => {
    const { processRegistry } = await import('../metrics.js')
    const rows = await processRegistry.getSingleMetricAsString('svc_clickhouse_insert_rows')
    expect(rows).toContain('svc_clickhouse_insert_rows_count{table="positional"} 1')
    expect(rows).toContain('svc_clickhouse_insert_rows_sum{table="positional"} 2')
    expect(await processRegistry.getSingleMetricAsString('svc_clickhouse_insert_duration_seconds')).toContain('svc_clickhouse_insert_duration_seconds_count{table="defaults"} 1')
  })

  it('leaves no insert files behind, also when the insert fails', async () => {
    await expect(store.insert('positional', [{ id: 'not a number', name: 'x', tags: {}, n: 1 }])).rejects.toThrow()
    expect(readdirSync(join(dir, 'clickhouse-inserts'))).toEqual([])
  })
})
