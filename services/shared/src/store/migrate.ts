import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '../log.js'
import { renderForCluster } from './cluster.js'
import type { Store } from './types.js'

/** <repo>/clickhouse, found from this file so migrations run the same from any cwd. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../clickhouse/', import.meta.url))

const FILE_RE = /^(\d{4})_([A-Za-z0-9_]+)\.sql$/

export interface MigrationFile {
  version: number
  name: string
  file: string
  checksum: string
  statements: string[]
}

/**
 * Statements of one migration file. Whole-line `--` comments go first; statements
 * then end at a `;` that closes a line, so a `;` inside a COMMENT string or
 * mid-line cannot split one.
 */
export function splitStatements(sql: string): string[] {
  const body = sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
  return body
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
}

export function readMigrations(dir: string = MIGRATIONS_DIR): MigrationFile[] {
  const files: MigrationFile[] = []
  for (const file of readdirSync(dir).sort()) {
    const m = FILE_RE.exec(file)
    if (!m) continue
    const text = readFileSync(join(dir, file), 'utf8')
    files.push({
      version: Number(m[1]),
      name: m[2]!,
      file,
      checksum: createHash('sha256').update(text).digest('hex'),
      statements: splitStatements(text),
    })
  }
  const seen = new Set<number>()
  for (const f of files) {
    if (seen.has(f.version)) throw new Error(`two migrations numbered ${f.version} in ${dir}`)
    seen.add(f.version)
  }
  return files
}

/**
 * Applies the numbered NNNN_name.sql files of `dir` that schema_migrations does not
 * list yet, in order, and returns the files applied. Every DDL statement in them is
 * IF NOT EXISTS, so two processes migrating at once (or a crash between a file's
 * statements and its record) just repeat harmless work.
 */
export async function migrate(store: Store, log: Logger, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  // On a cluster every statement is rendered for it (store/cluster.ts); the files and their checksums stay the same.
  const render = (sql: string) => (store.cluster ? renderForCluster(sql, store.cluster) : [sql])
  for (const sql of render(
    `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32               COMMENT 'Number prefix of the migration file',
    name       String               COMMENT 'File name without number and extension',
    checksum   String               COMMENT 'sha256 of the file text when applied',
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version
COMMENT 'Applied clickhouse/ migration files, one row per version.'`,
  ))
    await store.command(sql, {}, { tag: 'migrate' })
  const applied = await store.query<{ version: number; checksum: string }>(
    'SELECT version, argMax(checksum, applied_at) AS checksum FROM schema_migrations GROUP BY version',
    {},
    { tag: 'migrate' },
  )
  const checksums = new Map(applied.map((r) => [Number(r.version), r.checksum]))
  const done: string[] = []
  for (const m of readMigrations(dir)) {
    const previous = checksums.get(m.version)
    if (previous !== undefined) {
      // An applied migration is never re-run; a changed file needs a new numbered one.
      if (previous !== m.checksum) log.warn({ file: m.file }, 'applied migration file changed since it ran; add a new migration instead')
      continue
    }
    for (const sql of m.statements.flatMap(render)) await store.command(sql, {}, { tag: `migrate.${m.file}` })
    await store.insert(
      'schema_migrations',
      [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: String(Date.now()) }],
      { tag: 'migrate' },
    )
    log.info({ file: m.file, statements: m.statements.length }, 'migration applied')
    done.push(m.file)
  }
  return done
}
