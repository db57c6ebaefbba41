/**
 * The read API over embedded ClickHouse and a folding control writer, for route
 * tests: organization `acme` with workspace `agents`, its owner, and API keys of the
 * given roles in it, created by that owner.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryCache } from '@svc/shared/cache/memory'
import type { Cache } from '@svc/shared/cache/types'
import { loadConfig } from '@svc/shared/config'
import { foldingWriter, type ControlWriter } from '@svc/shared/control/control-plane'
import { masterKeyFrom, type MasterKey } from '@svc/shared/control/envelope'
import type { ControlEvent, Role } from '@svc/shared/control/events'
import { passwordHasher, type PasswordHasher } from '@svc/shared/control/passwords'
import { hashApiKey, stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger, type Logger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Bus } from '@svc/shared/bus/types'
import type { Store } from '@svc/shared/store/types'
import { createApiApp } from '../app.js'
import type { LoginLimits } from '../login-throttle.js'

export const ORG = stableUuid('org:acme')
export const WS = stableUuid('ws:agents')
/** A scrypt cost for tests: hashes in about a millisecond (the default takes ~128 MiB and far longer). */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 }
/** acme's owner (owner@acme.test), the creator of the harness's keys. */
export const OWNER = stableUuid('user:harness-owner')

/** Control events for ControlState.apply, numbered in the order made; `actor` as recorded on the event (who created a key). */
export function eventMaker() {
  let n = 0
  return (type: ControlEvent['type'], payload: unknown, actor = 'test') => ({ type, payload, actor, at_ms: 1, event_id: String(n++) }) as ControlEvent
}

export interface Harness {
  app: ReturnType<typeof createApiApp>
  store: Store
  state: ControlState
  masterKey: MasterKey
  cache: Cache
  close(): Promise<void>
}

export async function apiHarness(opts: {
  /** API key -> its role in acme/agents. */
  keys: Record<string, Role>
  defaultRetentionHours?: number
  defaultCostProvider?: string
  /** A bus for routes that produce (alignment document uploads). */
  bus?: Bus
  log?: Logger
  /** SVC_EGRESS_ALLOW_PRIVATE (default false, as in production). */
  egressAllowPrivate?: boolean
  /** Another harness's store, for a second app in the same test file (chdb opens one data directory per process). */
  store?: Store
  /** Wraps the folding writer, e.g. to land a racing event just before a route's own. */
  wrapWriter?: (w: ControlWriter) => ControlWriter
  /** SVC_API_MAX_BODY_BYTES and SVC_ALIGNMENT_MAX_DOC_BYTES (the defaults otherwise). */
  maxBodyBytes?: number
  alignmentMaxDocBytes?: number
  /** Password hashing (TEST_SCRYPT's low cost by default, to stay fast) and login limits (the defaults otherwise). */
  passwords?: PasswordHasher
  loginLimits?: LoginLimits
  trustedProxyHops?: number
}): Promise<Harness> {
  const ev = eventMaker()
  const state = new ControlState()
  state.apply(ev('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' }))
  state.apply(ev('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'agents', name: 'Agents' }))
  state.apply(ev('user.created', { user_id: OWNER, email: 'owner@acme.test', password_hash: null }))
  state.apply(ev('member.role_set', { org_id: ORG, user_id: OWNER, role: 'owner', workspace_id: null }))
  for (const [key, role] of Object.entries(opts.keys))
    state.apply(ev('api_key.created', { key_id: `key-${role}-${key.slice(-4)}`, org_id: ORG, workspace_id: WS, project_id: 'p', role, name: role, key_hash: hashApiKey(key), key_last4: key.slice(-4) }, `user:${OWNER}`))
  const quiet = createLogger({ level: 'silent' })
  const store = opts.store ?? (await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'api-harness-')) }), quiet))
  if (!opts.store) await migrate(store, quiet)
  const masterKey = masterKeyFrom(randomBytes(32))
  const cache = createMemoryCache()
  const app = createApiApp({
    store,
    cache,
    control: opts.wrapWriter ? opts.wrapWriter(foldingWriter(state)) : foldingWriter(state),
    jwtSecret: 'test-secret',
    jwtTtlSeconds: 600,
    defaultRetentionHours: opts.defaultRetentionHours ?? 720,
    defaultCostProvider: opts.defaultCostProvider ?? 'openai',
    driftBaselineDays: 7,
    engineStallMs: 15 * 60_000,
    masterKey,
    bus: opts.bus,
    egressAllowPrivate: opts.egressAllowPrivate,
    maxBodyBytes: opts.maxBodyBytes,
    alignmentMaxDocBytes: opts.alignmentMaxDocBytes,
    passwords: opts.passwords ?? passwordHasher(TEST_SCRYPT),
    loginLimits: opts.loginLimits,
    trustedProxyHops: opts.trustedProxyHops,
    log: opts.log ?? quiet,
  })
  return { app, store, state, masterKey, cache, close: () => (opts.store ? Promise.resolve() : store.close()) }
}
