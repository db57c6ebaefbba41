import type { Logger } from '../log.js'
import type { Cache } from '../cache/types.js'
import { scryptParamsFrom, type Config } from '../config.js'
import type { ControlWriter, NewControlEvent, SyncedControlWriter } from './control-plane.js'
import { initCredentialsPath, writeInitCredentials } from './init-credentials.js'
import { hashApiKey, hashPassword, newApiKey, randomToken, stableUuid } from './secrets.js'

export interface GeneratedCredentials {
  org_slug: string
  workspace_slug: string
  project_id: string
  user_email?: string
  user_password?: string
  api_key?: string
}

/**
 * Creates the first organization, workspace, owner and API key, idempotently: the
 * all-in-one process and every standalone api process (each replica) call it at
 * start. SVC_INIT_* variables name them; whatever is not given gets a default slug
 * ('default') or, for secrets, a random value that is printed once and written to
 * <data dir>/init-credentials.json (mode 0600) of the process that made it. Ids are
 * derived from names, so a restart (or a second replica) appends nothing new. The
 * Redis/in-process lock, with the fold caught up to the control topic's end once it
 * is held, stops two replicas from generating two different random secrets: the
 * topic is totally ordered, so whoever holds the lock second folds everything the
 * first appended before deciding.
 */
export async function bootstrapIdentity(deps: { control: SyncedControlWriter; cache: Cache; config: Config; log: Logger }): Promise<GeneratedCredentials | null> {
  const { control, cache, config, log } = deps
  const lockKey = 'svc:bootstrap:lock'
  for (let i = 0; !(await cache.setIfAbsent(lockKey, String(process.pid), 30_000)); i++) {
    if (i > 300) throw new Error('bootstrap lock held for over 30 s')
    await new Promise((r) => setTimeout(r, 100))
  }
  try {
    await control.catchUp()
    return await ensureInitialEntities(control, config, log)
  } finally {
    await cache.del(lockKey)
  }
}

async function ensureInitialEntities(control: ControlWriter, config: Config, log: Logger): Promise<GeneratedCredentials | null> {
  const s = control.state
  const orgSlug = config.SVC_INIT_ORG_SLUG ?? 'default'
  const wsSlug = config.SVC_INIT_WORKSPACE_SLUG ?? 'default'
  const projectId = config.SVC_INIT_PROJECT_ID ?? 'default'
  const email = (config.SVC_INIT_USER_EMAIL ?? 'owner@localhost').toLowerCase()
  const orgId = stableUuid(`org:${orgSlug}`)
  const wsId = stableUuid(`workspace:${orgId}:${wsSlug}`)
  const userId = s.userByEmail(email)?.id ?? stableUuid(`user:${email}`)
  const events: NewControlEvent[] = []
  const generated: GeneratedCredentials = { org_slug: orgSlug, workspace_slug: wsSlug, project_id: projectId }
  let generatedAny = false

  if (!s.orgs.has(orgId)) events.push({ type: 'org.created', payload: { org_id: orgId, slug: orgSlug, name: orgSlug } })
  if (!s.workspaces.has(wsId)) events.push({ type: 'workspace.created', payload: { workspace_id: wsId, org_id: orgId, slug: wsSlug, name: wsSlug } })
  if (!s.users.has(userId) && !s.userByEmail(email)) {
    const password = config.SVC_INIT_USER_PASSWORD ?? randomToken(24)
    if (!config.SVC_INIT_USER_PASSWORD) {
      generated.user_email = email
      generated.user_password = password
      generatedAny = true
    }
    events.push({ type: 'user.created', payload: { user_id: userId, email, password_hash: await hashPassword(password, scryptParamsFrom(config)) } })
  }
  // The bootstrap key belongs to the owner made here (the fold caps it by that owner's
  // role), so an organization this bootstrap creates always gets one. Only while it has
  // none: an owner removed or demoted later is not reinstated by a restart.
  if (s.ownersOf(orgId).length === 0) events.push({ type: 'member.role_set', payload: { org_id: orgId, user_id: userId, role: 'owner', workspace_id: null } })
  const key = config.SVC_INIT_API_KEY ?? (hasKeys(control, wsId) ? null : newApiKey())
  if (key && !s.apiKeys.has(stableUuid(`key:${hashApiKey(key)}`))) {
    if (!config.SVC_INIT_API_KEY) {
      generated.api_key = key
      generatedAny = true
    }
    events.push({
      type: 'api_key.created',
      payload: { key_id: stableUuid(`key:${hashApiKey(key)}`), org_id: orgId, workspace_id: wsId, project_id: projectId, role: 'admin', name: 'bootstrap', key_hash: hashApiKey(key), key_last4: key.slice(-4) },
    })
  }
  // Kept before they are appended: a crash in between must not leave an owner and a
  // key on the topic that nobody has the secrets of (there would be no way in).
  const file = initCredentialsPath(config.SVC_DATA_DIR)
  if (generatedAny) writeInitCredentials(config.SVC_DATA_DIR, { ...generated })
  await control.append(events, 'bootstrap')
  if (events.length) log.info({ org: orgSlug, workspace: wsSlug, events: events.length }, 'bootstrap identity created')
  if (!generatedAny) return null

  if (!config.SVC_QUIET_BOOTSTRAP) {
    // Printed once, on the start that created them; the file keeps them afterwards.
    process.stdout.write(
      `\n  First start: generated credentials (also in ${file}, mode 0600)\n` +
        (generated.user_password ? `    owner login   ${generated.user_email} / ${generated.user_password}   (the web console: ${consoleUrl(config)})\n` : '') +
        (generated.api_key ? `    API key       ${generated.api_key}   (org ${orgSlug}, workspace ${wsSlug}, project ${projectId})\n` : '') +
        '\n',
    )
  }
  return generated
}

/** Where a browser on this machine opens the console (the api's port; a wildcard host is reached on loopback). */
function consoleUrl(config: Config): string {
  const host = config.SVC_HOST === '0.0.0.0' || config.SVC_HOST === '::' ? '127.0.0.1' : config.SVC_HOST
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.SVC_API_PORT}/`
}

function hasKeys(control: ControlWriter, wsId: string): boolean {
  for (const k of control.state.apiKeys.values()) if (k.workspace_id === wsId) return true
  return false
}
