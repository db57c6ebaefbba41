import { describe, expect, it } from 'vitest'
import type { ControlEvent, Role } from './events.js'
import { hashApiKey, stableUuid } from './secrets.js'
import { ControlState } from './state.js'

const ORG = stableUuid('org:acme')
const OTHER_ORG = stableUuid('org:globex')
const WS = stableUuid('ws:agents')
const OTHER_WS = stableUuid('ws:other')
const user = (name: string) => stableUuid(`user:${name}`)
const raw = (name: string) => `dr_${name.padEnd(40, '0')}`

/** A state with acme (workspaces agents, other) and globex, folded from events with the given actors. */
function world() {
  let n = 0
  const s = new ControlState()
  const apply = (type: ControlEvent['type'], payload: unknown, actor = 'test') => s.apply({ type, payload, actor, at_ms: 1, event_id: String(n++) } as ControlEvent)
  apply('org.created', { org_id: ORG, slug: 'acme', name: 'Acme' })
  apply('org.created', { org_id: OTHER_ORG, slug: 'globex', name: 'Globex' })
  apply('workspace.created', { workspace_id: WS, org_id: ORG, slug: 'agents', name: 'Agents' })
  apply('workspace.created', { workspace_id: OTHER_WS, org_id: ORG, slug: 'other', name: 'Other' })
  const member = (name: string, role: Role, workspace: string | null, org = ORG) => {
    if (!s.users.has(user(name))) apply('user.created', { user_id: user(name), email: `${name}@test`, password_hash: null })
    apply('member.role_set', { org_id: org, user_id: user(name), role, workspace_id: workspace })
  }
  /** A key of acme/agents (or `ws`), created by `actor`. */
  const key = (name: string, role: Role, actor: string, ws = WS) =>
    apply('api_key.created', { key_id: name, org_id: ORG, workspace_id: ws, project_id: 'p', role, name, key_hash: hashApiKey(raw(name)), key_last4: '0000' }, actor)
  const principal = (name: string) => s.resolveApiKey(raw(name))
  const role = (name: string, workspace: string | null) => {
    const p = principal(name)
    return p ? s.roleFor(p, ORG, workspace) : 'unresolved'
  }
  return { s, apply, member, key, principal, role }
}

describe('API key authority: never more than its creator holds now', () => {
  it('a key made by a workspace-scoped admin has no role on organization routes, and admin in its workspace', () => {
    const w = world()
    w.member('scoped', 'admin', WS)
    w.key('k', 'admin', `user:${user('scoped')}`)
    expect(w.role('k', null)).toBeNull()
    expect(w.role('k', WS)).toBe('admin')
    expect(w.role('k', OTHER_WS)).toBeNull()
  })

  it('a key made by an organization-wide admin keeps its role on organization routes', () => {
    const w = world()
    w.member('admin', 'admin', null)
    w.key('k', 'dev', `user:${user('admin')}`)
    expect(w.role('k', null)).toBe('dev')
    expect(w.role('k', WS)).toBe('dev')
  })

  it("follows the creator's demotion and promotion at once", () => {
    const w = world()
    w.member('adam', 'admin', null)
    w.key('k', 'admin', `user:${user('adam')}`)
    w.member('adam', 'viewer', null)
    expect(w.role('k', null)).toBe('viewer')
    expect(w.principal('k')?.role).toBe('viewer')
    w.member('adam', 'admin', WS) // admin again, but only in the key's workspace
    expect(w.role('k', WS)).toBe('admin')
    expect(w.role('k', null)).toBe('viewer')
  })

  it("stops resolving once its creator is removed from the organization, or holds no role in the key's workspace", () => {
    const w = world()
    w.member('adam', 'admin', null)
    w.member('adam', 'owner', null, OTHER_ORG)
    w.key('k', 'admin', `user:${user('adam')}`)
    w.apply('member.removed', { org_id: ORG, user_id: user('adam') })
    expect(w.principal('k')).toBeNull()
    w.member('adam', 'admin', OTHER_WS)
    expect(w.principal('k')).toBeNull()
  })

  it("a key made by a key is capped by that key's chain, and stops with it", () => {
    const w = world()
    w.member('adam', 'admin', null)
    w.member('dora', 'dev', null)
    w.key('parent', 'admin', `user:${user('adam')}`)
    w.key('child', 'admin', 'api_key:parent')
    w.key('low-parent', 'dev', `user:${user('dora')}`)
    w.key('capped-child', 'admin', 'api_key:low-parent')
    expect(w.role('child', null)).toBe('admin')
    expect(w.role('capped-child', WS)).toBe('dev')
    w.member('adam', 'dev', null)
    expect(w.role('child', null)).toBe('dev')
    w.apply('api_key.revoked', { key_id: 'parent' })
    expect(w.principal('child')).toBeNull()
    w.apply('member.removed', { org_id: ORG, user_id: user('dora') })
    expect(w.principal('capped-child')).toBeNull()
  })

  it("the bootstrap key belongs to the bootstrap owner; a key whose creator is unknown holds nothing", () => {
    const w = world()
    w.apply('user.created', { user_id: user('root'), email: 'root@test', password_hash: null }, 'bootstrap')
    w.apply('member.role_set', { org_id: ORG, user_id: user('root'), role: 'owner', workspace_id: null }, 'bootstrap')
    w.key('boot', 'admin', 'bootstrap')
    w.key('orphan', 'admin', 'someone')
    expect(w.role('boot', null)).toBe('admin')
    expect(w.principal('orphan')).toBeNull()
    w.member('heir', 'owner', null)
    w.member('root', 'viewer', null)
    expect(w.role('boot', WS)).toBe('viewer')
    w.apply('member.removed', { org_id: ORG, user_id: user('root') })
    expect(w.principal('boot')).toBeNull()
  })

  it('a key of another organization or workspace still holds nothing here', () => {
    const w = world()
    w.member('adam', 'owner', null)
    w.key('k', 'admin', `user:${user('adam')}`, OTHER_WS)
    const p = w.principal('k')!
    expect(w.s.roleFor(p, ORG, WS)).toBeNull()
    expect(w.s.roleFor(p, OTHER_ORG, null)).toBeNull()
    expect(w.s.roleFor(p, ORG, OTHER_WS)).toBe('admin')
  })
})

describe('invitations: a membership waits for its invitation to be redeemed', () => {
  const HASH = 'token-hash'
  /** A state where acme invites `name` (an account with this password hash) as admin, the invitation expiring at 1000. */
  function invited(name: string, passwordHash: string | null = null) {
    const w = world()
    w.apply('user.created', { user_id: user(name), email: `${name}@test`, password_hash: passwordHash })
    w.member('inviter', 'admin', null)
    w.apply('member.invited', { invitation_id: stableUuid(`inv:${name}`), org_id: ORG, user_id: user(name), role: 'admin', workspace_id: null, token_hash: HASH, expires_at_ms: 1000 }, `user:${user('inviter')}`)
    const accept = (password_hash: string | null, at_ms = 500) =>
      w.s.apply({ type: 'member.invitation_accepted', payload: { invitation_id: stableUuid(`inv:${name}`), user_id: user(name), password_hash }, actor: `user:${user(name)}`, at_ms, event_id: `acc-${at_ms}` })
    return { ...w, accept, inv: () => w.s.invitationByTokenHash(HASH) }
  }
  const asUser = (name: string) => ({ kind: 'user' as const, user_id: user(name), email: `${name}@test` })

  it('gives no role while pending; redeeming sets the password of a new account and activates the role, once', () => {
    const w = invited('vera')
    expect(w.s.roleFor(asUser('vera'), ORG, null)).toBeNull()
    expect(w.inv()).toMatchObject({ status: 'pending', org_id: ORG, role: 'admin' })
    w.accept('scrypt$new')
    expect(w.s.users.get(user('vera'))!.password_hash).toBe('scrypt$new')
    expect(w.s.roleFor(asUser('vera'), ORG, null)).toBe('admin')
    expect(w.inv()?.status).toBe('accepted')
    w.apply('member.role_set', { org_id: ORG, user_id: user('vera'), role: 'viewer', workspace_id: null })
    w.accept('scrypt$again')
    expect(w.s.users.get(user('vera'))!.password_hash).toBe('scrypt$new')
    expect(w.s.roleFor(asUser('vera'), ORG, null)).toBe('viewer')
  })

  it('never changes the password of an account that has one (a racing redemption is ignored whole)', () => {
    const w2 = invited('pat', 'scrypt$pats')
    w2.accept('scrypt$attacker')
    expect(w2.s.users.get(user('pat'))!.password_hash).toBe('scrypt$pats')
    expect(w2.inv()?.status).toBe('pending')
    expect(w2.s.roleFor(asUser('pat'), ORG, null)).toBeNull()
    w2.accept(null)
    expect(w2.s.roleFor(asUser('pat'), ORG, null)).toBe('admin')
  })

  it('gives no password to an account another organization relies on', () => {
    const w = invited('legacy')
    w.apply('member.role_set', { org_id: OTHER_ORG, user_id: user('legacy'), role: 'owner', workspace_id: null })
    w.accept('scrypt$planted')
    expect(w.s.users.get(user('legacy'))!.password_hash).toBeNull()
    expect(w.inv()?.status).toBe('pending')
  })

  it('is redeemable only while its inviter still holds the role it offers there', () => {
    const demoted = invited('ivy')
    demoted.member('inviter', 'dev', null)
    demoted.accept('scrypt$x')
    expect(demoted.inv()?.status).toBe('pending')
    expect(demoted.s.roleFor(asUser('ivy'), ORG, null)).toBeNull()
    expect(demoted.s.invitationBacked(demoted.inv()!)).toBe(false)
    demoted.member('inviter', 'owner', null)
    demoted.accept('scrypt$x')
    expect(demoted.s.roleFor(asUser('ivy'), ORG, null)).toBe('admin')

    const removed = invited('rex')
    removed.apply('member.removed', { org_id: ORG, user_id: user('inviter') })
    removed.accept('scrypt$x')
    expect(removed.inv()?.status).toBe('pending')
  })

  it('ignores a redemption after expiry, and a superseded or cancelled invitation', () => {
    const late = invited('late')
    late.accept('scrypt$x', 1001)
    expect(late.inv()?.status).toBe('pending')
    expect(late.s.roleFor(asUser('late'), ORG, null)).toBeNull()

    const again = invited('again')
    again.apply('member.invited', { invitation_id: stableUuid('inv:again-2'), org_id: ORG, user_id: user('again'), role: 'dev', workspace_id: WS, token_hash: 'second', expires_at_ms: 1000 }, `user:${user('inviter')}`)
    expect(again.inv()?.status).toBe('cancelled')
    again.accept('scrypt$x')
    expect(again.s.users.get(user('again'))!.password_hash).toBeNull()
    expect(again.s.invitationByTokenHash('second')?.status).toBe('pending')

    const gone = invited('gone')
    gone.apply('member.removed', { org_id: ORG, user_id: user('gone') })
    expect(gone.inv()?.status).toBe('cancelled')
  })
})

describe('user.password_rehashed', () => {
  it('renews the hash of an account with a password, and never gives one to an account without', () => {
    const w = world()
    w.apply('user.created', { user_id: user('has'), email: 'has@test', password_hash: 'scrypt$16384$old' })
    w.apply('user.created', { user_id: user('none'), email: 'none@test', password_hash: null })
    w.apply('user.password_rehashed', { user_id: user('has'), password_hash: 'scrypt$131072$new' })
    w.apply('user.password_rehashed', { user_id: user('none'), password_hash: 'scrypt$131072$planted' })
    expect(w.s.users.get(user('has'))!.password_hash).toBe('scrypt$131072$new')
    expect(w.s.users.get(user('none'))!.password_hash).toBeNull()
  })
})
