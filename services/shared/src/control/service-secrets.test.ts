/**
 * Where the service keeps its own secrets (the master key of stored credentials,
 * the JWT secret of logins): one machine keeps generated ones in its data
 * directory (0600) and says so loudly; Kafka mode, where several processes must
 * hold the same ones, requires them from the operator; nothing goes to the cache.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createMemoryCache } from '../cache/memory.js'
import type { Cache } from '../cache/types.js'
import { ConfigError, loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { jwtSecretFor, masterKeyFor } from './service-secrets.js'

/** A cache that records every write it is asked for. */
function recordingCache(preset: Record<string, string> = {}): Cache & { writes: string[] } {
  const inner = createMemoryCache()
  const writes: string[] = []
  const ready = Promise.all(Object.entries(preset).map(([k, v]) => inner.set(k, v)))
  return {
    kind: 'redis',
    writes,
    get: async (k) => (await ready, inner.get(k)),
    set: async (k) => void writes.push(`set ${k}`),
    setIfAbsent: async (k) => (writes.push(`setIfAbsent ${k}`), true),
    del: async (k) => void writes.push(`del ${k}`),
    incrBy: async (k) => (writes.push(`incrBy ${k}`), 1),
    close: () => inner.close(),
  }
}

function logCapture() {
  const lines: Array<{ level: number; msg: string }> = []
  const log = createLogger({ level: 'info' }, new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c)) as { level: number; msg: string }), cb()) }))
  return { log, warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg) }
}

const dataDir = () => mkdtempSync(join(tmpdir(), 'svc-secrets-'))
const kafka = (dir: string, env: Record<string, string> = {}) => loadConfig({ SVC_BUS: 'kafka', KAFKA_BROKERS: '127.0.0.1:9092', REDIS_URL: 'redis://127.0.0.1:6379', SVC_DATA_DIR: dir, ...env })

describe('one machine (embedded bus)', () => {
  it('generates each secret once into the data directory, mode 0600, and warns loudly at every start how to set it', async () => {
    const dir = dataDir()
    const cache = recordingCache()
    const { log, warnings } = logCapture()
    const key = await masterKeyFor(loadConfig({ SVC_DATA_DIR: dir }), cache, log)
    const jwt = await jwtSecretFor(loadConfig({ SVC_DATA_DIR: dir }), cache, log)
    for (const f of ['master.key', 'jwt-secret']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(key.key.toString('hex'))
    // The next start reads the same ones back, and warns again.
    expect((await masterKeyFor(loadConfig({ SVC_DATA_DIR: dir }), cache, log)).key).toEqual(key.key)
    expect(await jwtSecretFor(loadConfig({ SVC_DATA_DIR: dir }), cache, log)).toBe(jwt)
    const w = warnings()
    expect(w).toHaveLength(4)
    expect(w.filter((m) => m.includes('SVC_MASTER_KEY is not set') && m.includes(join(dir, 'master.key')) && m.includes('openssl rand'))).toHaveLength(2)
    expect(w.filter((m) => m.includes('SVC_JWT_SECRET is not set') && m.includes(join(dir, 'jwt-secret')) && m.includes('openssl rand'))).toHaveLength(2)
    expect(cache.writes).toEqual([])
  })

  it('uses the environment when set: no file, no warning', async () => {
    const dir = dataDir()
    const raw = randomBytes(32)
    const { log, warnings } = logCapture()
    const config = loadConfig({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: raw.toString('base64'), SVC_JWT_SECRET: 'a-jwt-secret-from-the-operator' })
    expect((await masterKeyFor(config, recordingCache(), log)).key).toEqual(raw)
    expect(await jwtSecretFor(config, recordingCache(), log)).toBe('a-jwt-secret-from-the-operator')
    expect(existsSync(join(dir, 'master.key')) || existsSync(join(dir, 'jwt-secret'))).toBe(false)
    expect(warnings()).toEqual([])
  })
})

describe('Kafka mode', () => {
  it('refuses to start without them, saying how to generate them, and writes nothing anywhere', async () => {
    const dir = dataDir()
    const cache = recordingCache()
    const { log } = logCapture()
    const master = await masterKeyFor(kafka(dir), cache, log).catch((e: unknown) => e)
    expect(master).toBeInstanceOf(ConfigError)
    expect((master as Error).message).toMatch(/SVC_MASTER_KEY is required when SVC_BUS=kafka/)
    expect((master as Error).message).toContain('openssl rand -base64 32')
    const jwt = await jwtSecretFor(kafka(dir), cache, log).catch((e: unknown) => e)
    expect(jwt).toBeInstanceOf(ConfigError)
    expect((jwt as Error).message).toMatch(/SVC_JWT_SECRET is required when SVC_BUS=kafka/)
    expect((jwt as Error).message).toContain('openssl rand -base64 32')
    expect(cache.writes).toEqual([])
    expect(existsSync(join(dir, 'master.key')) || existsSync(join(dir, 'jwt-secret'))).toBe(false)
  })

  it('uses the environment, never the cache', async () => {
    const raw = randomBytes(32)
    const cache = recordingCache()
    const { log, warnings } = logCapture()
    const config = kafka(dataDir(), { SVC_MASTER_KEY: raw.toString('hex'), SVC_JWT_SECRET: 'shared-by-every-api-replica' })
    expect((await masterKeyFor(config, cache, log)).key).toEqual(raw)
    expect(await jwtSecretFor(config, cache, log)).toBe('shared-by-every-api-replica')
    expect(cache.writes).toEqual([])
    expect(warnings()).toEqual([])
  })

  it('a plain-text key left in Redis by an earlier version: refuses to start and says how to move it into the environment, without printing it', async () => {
    const legacyMaster = randomBytes(32).toString('hex')
    const cache = recordingCache({ 'svc:master-key': legacyMaster, 'svc:jwt-secret': 'legacy-jwt-secret-in-redis' })
    const { log, warnings } = logCapture()
    const master = (await masterKeyFor(kafka(dataDir()), cache, log).catch((e: unknown) => e)) as Error
    expect(master).toBeInstanceOf(ConfigError)
    expect(master.message).toContain('svc:master-key')
    expect(master.message).toContain('SVC_MASTER_KEY="$(redis-cli -u "$REDIS_URL" GET svc:master-key)"')
    expect(master.message).toContain('DEL svc:master-key')
    expect(master.message).not.toContain(legacyMaster)
    const jwt = (await jwtSecretFor(kafka(dataDir()), cache, log).catch((e: unknown) => e)) as Error
    expect(jwt).toBeInstanceOf(ConfigError)
    expect(jwt.message).toContain('svc:jwt-secret')
    expect(jwt.message).not.toContain('legacy-jwt-secret-in-redis')
    expect(cache.writes).toEqual([])

    // Once moved into the environment, the process starts and asks for the copy in Redis to be deleted.
    const moved = kafka(dataDir(), { SVC_MASTER_KEY: legacyMaster, SVC_JWT_SECRET: 'legacy-jwt-secret-in-redis' })
    expect((await masterKeyFor(moved, cache, log)).key.toString('hex')).toBe(legacyMaster)
    expect(await jwtSecretFor(moved, cache, log)).toBe('legacy-jwt-secret-in-redis')
    expect(warnings().filter((m) => /DEL svc:(master-key|jwt-secret)/.test(m))).toHaveLength(2)
    expect(cache.writes).toEqual([])
  })
})
