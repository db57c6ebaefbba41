import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { createStore } from './index.js'
import { MIGRATIONS_DIR, migrate, splitStatements } from './migrate.js'
import type { Store } from './types.js'

const log = createLogger({ level: 'silent' })
let dir: string
let store: Store

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'))
  store = await createStore(loadConfig({ SVC_DATA_DIR: dir }), log)
})

afterAll(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('splitStatements', () => {
  it('drops comment lines and splits only at a semicolon ending a line', () => {
    const sql = "-- a comment; with a semicolon;\nCREATE TABLE a (x String COMMENT 'one; two')\nENGINE = Memory;\n\n-- next\nCREATE TABLE b (y UInt8) ENGINE = Memory;\n"
    expect(splitStatements(sql)).toEqual(["CREATE TABLE a (x String COMMENT 'one; two')\nENGINE = Memory", 'CREATE TABLE b (y UInt8) ENGINE = Memory'])
  })

  it('keeps a file with one unterminated statement whole', () => {
    expect(splitStatements('SELECT 1\n')).toEqual(['SELECT 1'])
  })
})

describe('migrate', () => {
  it('applies every numbered file once, in order', async () => {
    const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort()
    expect(files.length).toBeGreaterThanOrEqual(6)
    expect(await migrate(store, log)).toEqual(files)
    expect(await migrate(store, log)).toEqual([])
    const recorded = await store.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations FINAL ORDER BY version')
    expect(recorded.map((r) => r.version)).toEqual(files.map((f) => Number(f.slice(0, 4))))
  })

  it('creates the tables with their comments', async () => {
    const tables = await store.query<{ name: string; comment: string }>(
      `SELECT name, comment FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)} ORDER BY name`,
      { names: ['spans_v1', 'traces_v1', 'traces_v1_mv', 'trace_scores_v1', 'trace_completions_v1', 'dead_letters_v1'] },
    )
    expect(tables.map((t) => t.name)).toEqual(['dead_letters_v1', 'spans_v1', 'trace_completions_v1', 'trace_scores_v1', 'traces_v1', 'traces_v1_mv'])
    for (const t of tables) if (t.name !== 'traces_v1_mv') expect(t.comment, t.name).not.toBe('')
    const cols = await store.query<{ comment: string }>(
      `SELECT comment FROM system.columns WHERE database = currentDatabase() AND table = 'spans_v1' AND name = 'trace_id'`,
    )
    expect(cols[0]?.comment).toBe('32 hex characters')
  })

  it('applies a new file from another directory and warns, without failing, about an edited one', async () => {
    const extra = mkdtempSync(join(tmpdir(), 'svc-migrations-'))
    try {
      mkdirSync(extra, { recursive: true })
      writeFileSync(join(extra, '0100_t_extra.sql'), 'CREATE TABLE IF NOT EXISTS t_extra (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE IF NOT EXISTS t_extra2 (y UInt8) ENGINE = MergeTree ORDER BY y;\n')
      expect(await migrate(store, log, extra)).toEqual(['0100_t_extra.sql'])
      writeFileSync(join(extra, '0100_t_extra.sql'), 'CREATE TABLE IF NOT EXISTS t_extra (x UInt16) ENGINE = MergeTree ORDER BY x\n')
      const warnings: string[] = []
      const spy = createLogger({ level: 'warn' }, { write: (line: string) => void warnings.push(line) })
      expect(await migrate(store, spy, extra)).toEqual([])
      expect(warnings.join('')).toContain('0100_t_extra.sql')
      const n = await store.query<{ c: number }>(`SELECT count() AS c FROM system.tables WHERE database = currentDatabase() AND name IN ('t_extra', 't_extra2')`)
      expect(Number(n[0]?.c)).toBe(2)
    } finally {
      rmSync(extra, { recursive: true, force: true })
    }
  })
})
