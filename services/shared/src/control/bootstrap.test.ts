import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryCache } from '../cache/memory.js'
import { loadConfig } from '../config.js'
import { createLogger } from '../log.js'
import { bootstrapIdentity } from './bootstrap.js'
import { foldingWriter } from './control-plane.js'
import { ControlState } from './state.js'

const log = createLogger({ level: 'silent' })
const KEY = `dr_${'b'.repeat(40)}`
const SECOND_KEY = `dr_${'c'.repeat(40)}`

async function boot(state: ControlState, env: Record<string, string>) {
  const config = loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'bootstrap-')), SVC_QUIET_BOOTSTRAP: 'true', SVC_INIT_USER_PASSWORD: 'operator password', SVC_PASSWORD_SCRYPT_N: '1024', ...env })
  await bootstrapIdentity({ control: foldingWriter(state), cache: createMemoryCache(), config, log })
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
})
