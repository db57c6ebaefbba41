import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryCache } from '../cache/memory.js'
import type { Cache } from '../cache/types.js'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { bootstrapIdentity } from './bootstrap.js'
import { foldingWriter, type SyncedControlWriter } from './control-plane.js'
import type { ControlEvent } from './events.js'
import { verifyPassword } from './secrets.js'
import { ControlState } from './state.js'

const log = createLogger({ level: 'silent' })
const KEY = `dr_${'b'.repeat(40)}`
const SECOND_KEY = `dr_${'c'.repeat(40)}`

async function boot(state: ControlState, env: Record<string, string>) {
  const config = loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'bootstrap-')), SVC_QUIET_BOOTSTRAP: 'true', SVC_INIT_USER_PASSWORD: 'operator password', SVC_PASSWORD_SCRYPT_N: '1024', ...env })
  await bootstrapIdentity({ control: foldingWriter(state), cache: createMemoryCache(), config, log })
}

/**
 * Replicas over one totally ordered topic, each folding it only when it writes or
 * catches up (as a replica's subscription lags behind another's writes).
 */
function replicasOfOneTopic(n: number): SyncedControlWriter[] {
  const topic: ControlEvent[] = []
  return Array.from({ length: n }, () => {
    const state = new ControlState()
    let folded = 0
    const foldToEnd = () => {
      while (folded < topic.length) state.apply(topic[folded++]!)
    }
    return {
      state,
      catchUp: async () => foldToEnd(),
      async append(events, actor) {
        await new Promise((r) => setTimeout(r, 5)) // the produce's round trip
        for (const e of events) topic.push({ ...e, actor, at_ms: Date.now(), event_id: `e${topic.length}` } as ControlEvent)
        foldToEnd()
      },
    }
  })
}

async function bootReplica(control: SyncedControlWriter, cache: Cache) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bootstrap-replica-'))
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_QUIET_BOOTSTRAP: 'true', SVC_PASSWORD_SCRYPT_N: '1024' })
  return { generated: await bootstrapIdentity({ control, cache, config, log }), dataDir }
}

describe('bootstrapIdentity', () => {
  it("makes an owner and an admin key that belongs to that owner (the key's authority is the owner's)", async () => {
    const state = new ControlState()
    await boot(state, { SVC_INIT_API_KEY: KEY })
    const key = state.resolveApiKey(KEY)!
    expect(key).toMatchObject({ role: 'admin' })
    expect(state.roleFor(key, key.org_id, null)).toBe('admin')
    const owner = state.userByEmail('owner@localhost')!
    expect(state.ownersOf(key.org_id)).toEqual([owner.id])
    expect(owner.password_hash!.startsWith('scrypt$1024$8$1$')).toBe(true)
    await boot(state, { SVC_INIT_API_KEY: KEY })
    expect(state.apiKeys.size).toBe(1)
  })

  it('makes the existing bootstrap user the owner of a new organization, so its key works there too', async () => {
    const state = new ControlState()
    await boot(state, { SVC_INIT_API_KEY: KEY })
    await boot(state, { SVC_INIT_API_KEY: SECOND_KEY, SVC_INIT_ORG_SLUG: 'second' })
    const key = state.resolveApiKey(SECOND_KEY)
    expect(key).not.toBeNull()
    expect(state.ownersOf(key!.org_id)).toEqual([state.userByEmail('owner@localhost')!.id])
  })

  it('generates one owner password and one key when replicas start at once, and keeps them where it printed them', async () => {
    const replicas = replicasOfOneTopic(3)
    const cache = createMemoryCache() // the lock all replicas share (Redis in Kafka mode)
    const runs = await Promise.all(replicas.map((r) => bootReplica(r, cache)))

    const made = runs.filter((r) => r.generated !== null)
    expect(made).toHaveLength(1)
    const { generated, dataDir } = made[0]!
    expect(JSON.parse(readFileSync(join(dataDir, 'init-credentials.json'), 'utf8'))).toEqual(generated)
    for (const r of replicas) {
      await r.catchUp()
      expect(r.state.users.size).toBe(1)
      expect(r.state.apiKeys.size).toBe(1)
      expect(r.state.resolveApiKey(generated!.api_key!)).not.toBeNull()
      expect(await verifyPassword(generated!.user_password!, r.state.userByEmail('owner@localhost')!.password_hash!)).toBe(true)
    }
  })
})
