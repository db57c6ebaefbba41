import type { Cache } from './types.js'

interface Entry {
  value: string
  /** ms since epoch; undefined = no expiry. */
  expiresAt: number | undefined
}

const SWEEP_INTERVAL_MS = 30_000

/**
 * In-process cache for the single-machine (embedded) mode. Expired keys are treated
 * as absent when read and swept periodically so keys nobody reads again still go.
 */
export function createMemoryCache(): Cache {
  const entries = new Map<string, Entry>()

  const live = (key: string): Entry | undefined => {
    const e = entries.get(key)
    if (!e) return undefined
    if (e.expiresAt !== undefined && e.expiresAt <= Date.now()) {
      entries.delete(key)
      return undefined
    }
    return e
  }
  const expiry = (ttlMs: number | undefined) => (ttlMs !== undefined && ttlMs > 0 ? Date.now() + ttlMs : undefined)

  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [k, e] of entries) if (e.expiresAt !== undefined && e.expiresAt <= now) entries.delete(k)
  }, SWEEP_INTERVAL_MS)
  // The sweep is housekeeping; it must not keep a finished process alive.
  sweep.unref()

  return {
    kind: 'memory',
    async get(key) {
      return live(key)?.value ?? null
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: expiry(ttlMs) })
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false
      entries.set(key, { value, expiresAt: expiry(ttlMs) })
      return true
    },
    async del(key) {
      entries.delete(key)
    },
    async incrBy(key, by, ttlMs) {
      const e = live(key)
      const current = e ? Number.parseInt(e.value, 10) : 0
      if (Number.isNaN(current)) throw new Error(`cache value of ${key} is not an integer`)
      const next = current + by
      // Matches Redis: INCRBY keeps an existing expiry; PEXPIRE (when ttlMs is given) resets it.
      entries.set(key, { value: String(next), expiresAt: ttlMs !== undefined ? expiry(ttlMs) : e?.expiresAt })
      return next
    },
    async close() {
      clearInterval(sweep)
      entries.clear()
    },
  }
}
