import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { SHARDING, renderForCluster, type ClusterTarget } from './cluster.js'
import { createStore } from './index.js'
import { migrate, readMigrations } from './migrate.js'
import { deleteChunks, deleteChunksOfModel } from './queries/alignment.js'
import { deleteExpired } from './queries/retention.js'
import type { Store } from './types.js'

const log = createLogger({ level: 'silent' })
const C: ClusterTarget = { cluster: 'svc_cluster', database: 'svc' }
let dir: string
let store: Store

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
})

afterAll(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

const rendered = () => readMigrations().flatMap((m) => m.statements.map((sql) => ({ file: m.file, sql, out: renderForCluster(sql, C) })))

/** ClickHouse's parser over a statement: its AST as EXPLAIN AST prints it. */
const ast = async (sql: string) =>
  (await store.query<string | Record<string, string>>(`EXPLAIN AST ${sql}`)).map((r) => (typeof r === 'string' ? r : String(Object.values(r)[0])).trim())

describe('clustered migrations', () => {
  it('every statement of every migration renders to statements ClickHouse parses (formatQuery)', async () => {
    const all = rendered().flatMap((r) => r.out.map((sql) => ({ file: r.file, sql })))
    expect(all.length).toBeGreaterThan(60)
    for (const { file, sql } of all) {
      const [row] = await store.query<{ f: string }>('SELECT formatQuery({q:String}) AS f', { q: sql })
      expect(row!.f.length, `${file}: ${sql.slice(0, 80)}`).toBeGreaterThan(0)
    }
  })

  it('sharded tables: a Replicated local per shard ON CLUSTER and a Distributed table with the sharding key under the old name', () => {
    const creates = rendered().filter((r) => /^CREATE TABLE IF NOT EXISTS /.test(r.sql))
    const names = creates.map((r) => /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(r.sql)![1]!)
    expect(new Set(names)).toEqual(new Set(Object.keys(SHARDING).filter((t) => t !== 'schema_migrations')))
    for (const { sql, out } of creates) {
      const t = /^CREATE TABLE IF NOT EXISTS (\w+)/.exec(sql)![1]!
      const engine = /ENGINE = (\w*)MergeTree/.exec(sql)![1]!
      if (SHARDING[t] === 'global') {
        expect(out).toHaveLength(1)
        expect(out[0]).toContain(`CREATE TABLE IF NOT EXISTS ${t} ON CLUSTER 'svc_cluster'`)
        expect(out[0]).toContain(`ENGINE = Replicated${engine}MergeTree('/clickhouse/tables/{database}/${t}', '{replica}'`)
        continue
      }
      expect(out).toHaveLength(2)
      expect(out[0]).toContain(`CREATE TABLE IF NOT EXISTS ${t}_local ON CLUSTER 'svc_cluster'`)
      expect(out[0]).toContain(`ENGINE = Replicated${engine}MergeTree('/clickhouse/tables/{shard}/{database}/${t}_local', '{replica}'`)
      expect(out[1]).toBe(`CREATE TABLE IF NOT EXISTS ${t} ON CLUSTER 'svc_cluster' AS svc.${t}_local ENGINE = Distributed('svc_cluster', 'svc', '${t}_local', ${SHARDING[t]})`)
    }
  })

  it('materialized views read and write the locals (checked on their ASTs), ON CLUSTER', async () => {
    const views = rendered().filter((r) => /^CREATE MATERIALIZED VIEW|^ALTER TABLE \w+_mv /.test(r.sql))
    expect(views.length).toBeGreaterThanOrEqual(5)
    for (const v of views) {
      expect(v.out).toHaveLength(1)
      expect(v.out[0]).toMatch(/^(CREATE MATERIALIZED VIEW IF NOT EXISTS|ALTER TABLE) \w+_mv ON CLUSTER 'svc_cluster'/)
      const tables = (await ast(v.out[0]!)).filter((l) => l.startsWith('TableIdentifier ')).map((l) => l.split(' ')[1])
      expect(tables.length, v.sql.slice(0, 60)).toBeGreaterThan(0)
      for (const t of tables) expect(t).toMatch(/_local$/)
      if (v.out[0]!.startsWith('CREATE')) expect(v.out[0]).toMatch(/ TO \w+_local AS/)
    }
  })

  it('ALTERs change the locals ON CLUSTER, then rebuild the Distributed table from them; INSERTs and views go through the Distributed names', () => {
    for (const r of rendered()) {
      if (/^ALTER TABLE (\w+)/.test(r.sql) && !/^ALTER TABLE \w+_mv /.test(r.sql)) {
        const t = /^ALTER TABLE (\w+)/.exec(r.sql)![1]!
        expect(r.out[0]).toMatch(new RegExp(`^ALTER TABLE ${t}_local ON CLUSTER 'svc_cluster'`))
        expect(r.out[1]).toBe(`CREATE OR REPLACE TABLE ${t} ON CLUSTER 'svc_cluster' AS svc.${t}_local ENGINE = Distributed('svc_cluster', 'svc', '${t}_local', ${SHARDING[t]})`)
      }
      if (r.sql.startsWith('INSERT INTO')) expect(r.out).toEqual([r.sql])
      if (/^CREATE OR REPLACE VIEW analytics\.\w+/.test(r.sql)) {
        expect(r.out[0]).toMatch(/^CREATE OR REPLACE VIEW analytics\.\w+ ON CLUSTER 'svc_cluster'/)
        expect(r.out[0]).not.toContain('_local')
      }
    }
  })

  it('refuses a table without a sharding key, and a statement it cannot render', () => {
    expect(() => renderForCluster('CREATE TABLE IF NOT EXISTS mystery_v1 (x UInt8) ENGINE = MergeTree ORDER BY x', C)).toThrow(/no sharding key for table mystery_v1/)
    expect(() => renderForCluster('OPTIMIZE TABLE spans_v1 FINAL', C)).toThrow(/no rendering/)
  })

  it('migrate runs the rendered statements when the store is on a cluster', async () => {
    const ran: string[] = []
    const fake: Store = {
      kind: 'server',
      cluster: C,
      query: async <Row>() => [] as Row[],
      command: async (sql: string) => void ran.push(sql),
      insert: async () => {},
      insertEncoded: async () => {},
      rowEncoding: async () => null,
      close: async () => {},
    }
    const applied = await migrate(fake, log)
    expect(applied.length).toBe(readMigrations().length)
    expect(ran[0]).toContain("CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER 'svc_cluster'")
    expect(ran.slice(1)).toEqual(rendered().flatMap((r) => r.out))
  })
  it('deletes (retention sweep, alignment passages) mutate the local tables ON CLUSTER, and ClickHouse parses them', async () => {
    const ran: string[] = []
    const fake: Store = {
      kind: 'server',
      cluster: C,
      query: async <Row>() => [] as Row[],
      command: async (sql: string) => void ran.push(sql),
      insert: async () => {},
      insertEncoded: async () => {},
      rowEncoding: async () => null,
      close: async () => {},
    }
    const ws = '00000000-0000-4000-8000-000000000001'
    await deleteExpired(fake, ws, Date.UTC(2026, 0, 1))
    await deleteChunks(fake, ws, 'doc-1')
    await deleteChunksOfModel(fake, ws, 'doc-1', 'hash-uni-bigram-256')
    expect(ran.length).toBeGreaterThan(5)
    for (const sql of ran) {
      expect(sql).toMatch(/^(?:DELETE FROM|ALTER TABLE) \w+_local ON CLUSTER 'svc_cluster' (?:WHERE|DELETE WHERE)/)
      const [row] = await store.query<{ f: string }>('SELECT formatQuery({q:String}) AS f', { q: sql })
      expect(row!.f).toMatch(/_local ON CLUSTER '?svc_cluster'?\s/)
    }
  })
})
