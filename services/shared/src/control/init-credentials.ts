/**
 * <data dir>/init-credentials.json: what a first start generated and printed once
 * (the bootstrap's owner login and API key, the ClickHouse interface's passwords),
 * kept for the operator, mode 0600. Each writer adds its own keys and keeps the
 * others'; the file is replaced whole (write, fsync, rename), never half written.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const initCredentialsPath = (dataDir: string) => join(dataDir, 'init-credentials.json')

/** The file's content; {} when there is none (or it is not a JSON object). */
export function readInitCredentials(dataDir: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(initCredentialsPath(dataDir), 'utf8'))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** Adds (or replaces) `entries` in the file, keeping every other key. */
export function writeInitCredentials(dataDir: string, entries: Record<string, unknown>): string {
  mkdirSync(dataDir, { recursive: true })
  const file = initCredentialsPath(dataDir)
  const tmp = `${file}.${process.pid}.tmp`
  const fd = openSync(tmp, 'w', 0o600)
  try {
    writeSync(fd, JSON.stringify({ ...readInitCredentials(dataDir), ...entries }, null, 2) + '\n')
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  return file
}
