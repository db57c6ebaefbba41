import type { Cache } from '../cache/types.js'

/** Cache key holding when an API key was last used (epoch ms). */
export const lastUsedKey = (keyId: string) => `svc:api-key:last-used:${keyId}`

/**
 * Records that an API key was used, at most once per `everyMs` per process: a
 * request must not wait on (or flood) the cache for this, so last_used_at is exact
 * to about a minute. Failures are ignored; the timestamp is informational.
 */
export function keyUsageRecorder(cache: Cache, everyMs = 60_000): (keyId: string) => void {
  const recorded = new Map<string, number>()
  return (keyId) => {
    const now = Date.now()
    if (now - (recorded.get(keyId) ?? 0) < everyMs) return
    recorded.set(keyId, now)
    cache.set(lastUsedKey(keyId), String(now)).catch(() => recorded.delete(keyId))
  }
}
