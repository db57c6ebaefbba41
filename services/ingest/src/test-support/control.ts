/** A ControlState folded from events, as every process builds it, for unit tests. */
import type { ControlEvent } from '@svc/shared/control/events'
import { hashApiKey, stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'

export const ORG = { id: stableUuid('org:acme'), slug: 'acme', name: 'Acme' }
export const WS = { id: stableUuid('ws:acme:prod'), slug: 'prod', name: 'Production' }
export const OTHER_WS = { id: stableUuid('ws:acme:staging'), slug: 'staging', name: 'Staging' }
export const OTHER_ORG = { id: stableUuid('org:globex'), slug: 'globex', name: 'Globex' }
export const OTHER_ORG_WS = { id: stableUuid('ws:globex:main'), slug: 'main', name: 'Main' }

/**
 * Raw keys: KEY writes into ORG/WS project "web"; OTHER_KEY into OTHER_WS; REVOKED_KEY
 * was revoked; FORMER_MEMBER_KEY was made by a member since removed from ORG. The
 * others were made by ORG's owner.
 */
export const KEY = 'dr_' + 'k'.repeat(40)
export const OTHER_KEY = 'dr_' + 'o'.repeat(40)
export const REVOKED_KEY = 'dr_' + 'r'.repeat(40)
export const FORMER_MEMBER_KEY = 'dr_' + 'f'.repeat(40)
const OWNER = stableUuid('user:acme-owner')
const FORMER = stableUuid('user:acme-former')

let n = 0
const ev = <E extends ControlEvent>(type: E['type'], payload: E['payload'], actor = 'test'): ControlEvent =>
  ({ type, payload, actor, at_ms: 1_700_000_000_000 + n, event_id: `e${++n}` }) as ControlEvent

const keyEvent = (raw: string, id: string, ws: string, project: string, creator = OWNER) =>
  ev('api_key.created', { key_id: id, org_id: ORG.id, workspace_id: ws, project_id: project, role: 'dev', name: id, key_hash: hashApiKey(raw), key_last4: raw.slice(-4) }, `user:${creator}`)
const member = (user: string, email: string, role: 'owner' | 'dev') => [
  ev('user.created', { user_id: user, email, password_hash: null }),
  ev('member.role_set', { org_id: ORG.id, user_id: user, role, workspace_id: null }),
]

export function testControlState(): ControlState {
  const s = new ControlState()
  for (const e of [
    ev('org.created', { org_id: ORG.id, slug: ORG.slug, name: ORG.name }),
    ev('org.created', { org_id: OTHER_ORG.id, slug: OTHER_ORG.slug, name: OTHER_ORG.name }),
    ev('workspace.created', { workspace_id: WS.id, org_id: ORG.id, slug: WS.slug, name: WS.name }),
    ev('workspace.created', { workspace_id: OTHER_WS.id, org_id: ORG.id, slug: OTHER_WS.slug, name: OTHER_WS.name }),
    ev('workspace.created', { workspace_id: OTHER_ORG_WS.id, org_id: OTHER_ORG.id, slug: OTHER_ORG_WS.slug, name: OTHER_ORG_WS.name }),
    ...member(OWNER, 'owner@acme.test', 'owner'),
    ...member(FORMER, 'former@acme.test', 'dev'),
    keyEvent(FORMER_MEMBER_KEY, 'key-former', WS.id, 'web', FORMER),
    ev('member.removed', { org_id: ORG.id, user_id: FORMER }),
    keyEvent(KEY, 'key-main', WS.id, 'web'),
    keyEvent(OTHER_KEY, 'key-other', OTHER_WS.id, 'default'),
    keyEvent(REVOKED_KEY, 'key-revoked', WS.id, 'web'),
    ev('api_key.revoked', { key_id: 'key-revoked' }),
    ev('workspace.setting_set', { workspace_id: WS.id, name: 'capture_text', value: true }),
  ])
    s.apply(e)
  return s
}
