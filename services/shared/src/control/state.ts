import { ROLE_RANK, type ControlEvent, type Role } from './events.js'
import type { SealedSecret } from './envelope.js'
import { hashApiKey } from './secrets.js'
import type { Logger } from '../log.js'

export interface Org {
  id: string
  slug: string
  name: string
  contact_email: string | null
  team_count: string | null
  /** Organization-level engine gates: an engine set false here runs in none of its workspaces. */
  engine_gates: Record<string, boolean>
  created_at_ms: number
  updated_at_ms: number
}
export interface Workspace { id: string; org_id: string; slug: string; name: string; created_at_ms: number; updated_at_ms: number; deleted_at_ms: number | null }
export interface User { id: string; email: string; password_hash: string | null; created_at_ms: number }
export interface Membership { org_id: string; user_id: string; role: Role; workspace_id: string | null }
/** A membership offered to an account; it gives no role until the account redeems it (accepted). */
export interface Invitation {
  id: string
  org_id: string
  user_id: string
  role: Role
  workspace_id: string | null
  token_hash: string
  expires_at_ms: number
  created_at_ms: number
  status: 'pending' | 'accepted' | 'cancelled'
  /** From the event's actor, like a key's creator: the role offered must still be theirs to give when redeemed. */
  invited_by: KeyCreator | null
}
/** Who created an API key: its authority never exceeds what that creator holds now. */
export type KeyCreator = { kind: 'user'; user_id: string } | { kind: 'api_key'; key_id: string }
export interface ApiKey {
  id: string
  org_id: string
  workspace_id: string
  project_id: string
  role: Role
  name: string
  key_hash: string
  key_last4: string
  created_at_ms: number
  revoked_at_ms: number | null
  /** From the creating event's actor; null when unknown (the key then holds nothing). */
  created_by: KeyCreator | null
}

export interface LlmCredential {
  provider: string
  model_id: string
  api_base: string | null
  provider_config: Record<string, unknown>
  secret: SealedSecret | null
  api_key_last4: string
  updated_at_ms: number
}

/**
 * Whether a credential update without a new key (`secret` null: keep the stored
 * one) would send the stored key to another provider or endpoint than the one it
 * was entered for. A key is bound to its provider and api_base; moving it takes
 * entering it again. A credential without a stored key has nothing to move.
 */
export function movesKeptKey(kept: LlmCredential | null, next: { provider: string; api_base: string | null }): boolean {
  return !!kept?.secret && (kept.provider !== next.provider || kept.api_base !== next.api_base)
}

export interface SearchCredential { secret: SealedSecret; api_key_last4: string; updated_at_ms: number }
export interface OrgCredentials { llm: LlmCredential | null; llm_fallback: boolean; search: SearchCredential | null }

/** Who is calling, once a credential has been checked. */
export type Principal =
  | { kind: 'api_key'; key_id: string; org_id: string; workspace_id: string; project_id: string; role: Role }
  | { kind: 'user'; user_id: string; email: string }

const lower = (a: Role, b: Role): Role => (ROLE_RANK[b] < ROLE_RANK[a] ? b : a)

/**
 * The folded control state. `apply` is the only writer and is pure with respect to
 * the event (no clock, no I/O), so every process that folds the same topic ends in
 * the same state. Applying an event twice is harmless: every event either creates
 * something keyed by a stable id or sets a value.
 */
export class ControlState {
  readonly orgs = new Map<string, Org>()
  readonly workspaces = new Map<string, Workspace>()
  readonly users = new Map<string, User>()
  readonly apiKeys = new Map<string, ApiKey>()
  /** key: `${org_id}|${user_id}|${workspace_id ?? ''}` */
  readonly memberships = new Map<string, Membership>()
  readonly invitations = new Map<string, Invitation>()
  /** Workspace settings as stored; read them through control/settings.ts (settingOf), which validates. */
  readonly settings = new Map<string, Map<string, unknown>>()
  /** Per organization; secrets stay sealed here, only engines that call a provider open them. */
  readonly credentials = new Map<string, OrgCredentials>()
  private readonly keysByHash = new Map<string, ApiKey>()
  private readonly usersByEmail = new Map<string, User>()
  private readonly invitationsByHash = new Map<string, Invitation>()
  /** org id -> the owner the bootstrap (actor 'bootstrap') made there: the creator of the bootstrap key. */
  private readonly bootstrapOwners = new Map<string, string>()

  /** `log` receives what reads find wrong in the state (an invalid stored setting, control/settings.ts). */
  constructor(readonly log: Pick<Logger, 'warn'> | null = null) {}

  apply(e: ControlEvent): void {
    switch (e.type) {
      case 'org.created': {
        const p = e.payload
        if (!this.orgs.has(p.org_id))
          this.orgs.set(p.org_id, { id: p.org_id, slug: p.slug, name: p.name, contact_email: null, team_count: null, engine_gates: {}, created_at_ms: e.at_ms, updated_at_ms: e.at_ms })
        return
      }
      case 'org.updated': {
        const p = e.payload
        const org = this.orgs.get(p.org_id)
        if (!org) return
        if (p.name !== undefined) org.name = p.name
        if (p.contact_email !== undefined) org.contact_email = p.contact_email
        if (p.team_count !== undefined) org.team_count = p.team_count
        if (p.engine_gates !== undefined) org.engine_gates = { ...org.engine_gates, ...p.engine_gates }
        org.updated_at_ms = e.at_ms
        return
      }
      case 'workspace.created': {
        const p = e.payload
        // Slugs are unique per organization. The control topic is totally ordered, so
        // every process agrees which of two racing creations came first; the writer
        // of the other one finds its workspace missing and answers 409.
        if (this.workspaces.has(p.workspace_id) || this.workspaceBySlug(p.org_id, p.slug)) return
        this.workspaces.set(p.workspace_id, { id: p.workspace_id, org_id: p.org_id, slug: p.slug, name: p.name, created_at_ms: e.at_ms, updated_at_ms: e.at_ms, deleted_at_ms: null })
        return
      }
      case 'workspace.updated': {
        const p = e.payload
        const ws = this.workspaces.get(p.workspace_id)
        if (!ws || ws.deleted_at_ms !== null) return
        if (p.slug !== undefined && p.slug !== ws.slug && this.workspaceBySlug(ws.org_id, p.slug)) return
        if (p.slug !== undefined) ws.slug = p.slug
        if (p.name !== undefined) ws.name = p.name
        ws.updated_at_ms = e.at_ms
        return
      }
      case 'workspace.deleted': {
        const ws = this.workspaces.get(e.payload.workspace_id)
        if (ws && ws.deleted_at_ms === null) ws.deleted_at_ms = e.at_ms
        return
      }
      case 'user.created': {
        const p = e.payload
        const email = p.email.toLowerCase()
        if (this.users.has(p.user_id) || this.usersByEmail.has(email)) return
        const user = { id: p.user_id, email, password_hash: p.password_hash, created_at_ms: e.at_ms }
        this.users.set(user.id, user)
        this.usersByEmail.set(email, user)
        return
      }
      case 'user.password_rehashed': {
        // Renews a hash, never sets a first password: that is an invitation's redemption.
        const user = this.users.get(e.payload.user_id)
        if (user?.password_hash) user.password_hash = e.payload.password_hash
        return
      }
      case 'member.role_set': {
        const p = e.payload
        this.memberships.set(`${p.org_id}|${p.user_id}|${p.workspace_id ?? ''}`, { ...p })
        if (e.actor === 'bootstrap' && p.role === 'owner' && p.workspace_id === null && !this.bootstrapOwners.has(p.org_id)) this.bootstrapOwners.set(p.org_id, p.user_id)
        return
      }
      case 'member.removed': {
        const p = e.payload
        for (const [k, m] of this.memberships) if (m.org_id === p.org_id && m.user_id === p.user_id) this.memberships.delete(k)
        this.cancelInvitations(p.org_id, p.user_id)
        return
      }
      case 'member.invited': {
        const p = e.payload
        if (this.invitations.has(p.invitation_id) || !this.users.has(p.user_id)) return
        this.cancelInvitations(p.org_id, p.user_id)
        const inv: Invitation = {
          id: p.invitation_id,
          org_id: p.org_id,
          user_id: p.user_id,
          role: p.role,
          workspace_id: p.workspace_id,
          token_hash: p.token_hash,
          expires_at_ms: p.expires_at_ms,
          created_at_ms: e.at_ms,
          status: 'pending',
          invited_by: this.keyCreator(e.actor, p.org_id),
        }
        this.invitations.set(inv.id, inv)
        this.invitationsByHash.set(inv.token_hash, inv)
        return
      }
      case 'member.invitation_accepted': {
        const p = e.payload
        const inv = this.invitations.get(p.invitation_id)
        const user = this.users.get(p.user_id)
        // Decided here, in topic order, so two replicas redeeming at once cannot both win,
        // and a password is never set on an account that got one meanwhile.
        if (!inv || !user || inv.status !== 'pending' || inv.user_id !== user.id || e.at_ms > inv.expires_at_ms || !this.invitationBacked(inv)) return
        if (p.password_hash !== null) {
          if (user.password_hash !== null || this.holdsRolesOutside(user.id, inv.org_id)) return
          user.password_hash = p.password_hash
        }
        inv.status = 'accepted'
        this.memberships.set(`${inv.org_id}|${inv.user_id}|${inv.workspace_id ?? ''}`, { org_id: inv.org_id, user_id: inv.user_id, role: inv.role, workspace_id: inv.workspace_id })
        return
      }
      case 'api_key.created': {
        const p = e.payload
        if (this.apiKeys.has(p.key_id)) return
        const key: ApiKey = { id: p.key_id, org_id: p.org_id, workspace_id: p.workspace_id, project_id: p.project_id, role: p.role, name: p.name, key_hash: p.key_hash, key_last4: p.key_last4, created_at_ms: e.at_ms, revoked_at_ms: null, created_by: this.keyCreator(e.actor, p.org_id) }
        this.apiKeys.set(key.id, key)
        this.keysByHash.set(key.key_hash, key)
        return
      }
      case 'api_key.revoked': {
        const key = this.apiKeys.get(e.payload.key_id)
        if (key && key.revoked_at_ms === null) key.revoked_at_ms = e.at_ms
        return
      }
      case 'credential.llm_set': {
        const p = e.payload
        const c = this.credentialsOf(p.org_id)
        const kept = c.llm
        // Decided here, in topic order, not only by the writer's check: a replayed
        // event or the loser of two racing PUTs must not move a key either.
        if (p.secret === null && movesKeptKey(kept, p)) return
        c.llm = {
          provider: p.provider,
          model_id: p.model_id,
          api_base: p.api_base,
          provider_config: p.provider_config,
          secret: p.secret ?? kept?.secret ?? null,
          api_key_last4: p.api_key_last4 ?? kept?.api_key_last4 ?? '',
          updated_at_ms: e.at_ms,
        }
        return
      }
      case 'credential.llm_deleted':
        this.credentialsOf(e.payload.org_id).llm = null
        return
      case 'credential.llm_fallback_set':
        this.credentialsOf(e.payload.org_id).llm_fallback = e.payload.enabled
        return
      case 'credential.search_set':
        this.credentialsOf(e.payload.org_id).search = { secret: e.payload.secret, api_key_last4: e.payload.api_key_last4, updated_at_ms: e.at_ms }
        return
      case 'credential.search_deleted':
        this.credentialsOf(e.payload.org_id).search = null
        return
      case 'workspace.setting_set': {
        const p = e.payload
        let m = this.settings.get(p.workspace_id)
        if (!m) this.settings.set(p.workspace_id, (m = new Map()))
        m.set(p.name, p.value)
        return
      }
    }
  }

  private cancelInvitations(orgId: string, userId: string): void {
    for (const inv of this.invitations.values()) if (inv.org_id === orgId && inv.user_id === userId && inv.status === 'pending') inv.status = 'cancelled'
  }

  /**
   * Whether whoever made the invitation still holds, now, the role it offers where it
   * offers it: an admin removed or demoted since cannot come back in through an
   * invitation of their own second address.
   */
  invitationBacked(inv: Invitation): boolean {
    const by = inv.invited_by
    const key = by?.kind === 'api_key' ? this.apiKeys.get(by.key_id) : undefined
    const role = by?.kind === 'user' ? this.userRole(by.user_id, inv.org_id, inv.workspace_id) : key ? this.keyRole(key, inv.org_id, inv.workspace_id) : null
    return role !== null && ROLE_RANK[role] >= ROLE_RANK[inv.role]
  }

  /** The invitation a token's hash names (whatever its status). */
  invitationByTokenHash(hash: string): Invitation | undefined {
    return this.invitationsByHash.get(hash)
  }

  /** Pending (not yet redeemed, maybe expired) invitations of an organization. */
  pendingInvitationsOf(orgId: string): Invitation[] {
    return [...this.invitations.values()].filter((i) => i.org_id === orgId && i.status === 'pending')
  }

  /**
   * Whether an account holds a role in any organization but this one: another
   * organization relies on it, so nobody acting for this one may give it a password.
   */
  holdsRolesOutside(userId: string, orgId: string): boolean {
    for (const m of this.memberships.values()) if (m.user_id === userId && m.org_id !== orgId) return true
    return false
  }

  /** An organization's credentials (an empty record when it has none). */
  credentialsOf(orgId: string): OrgCredentials {
    let c = this.credentials.get(orgId)
    if (!c) this.credentials.set(orgId, (c = { llm: null, llm_fallback: false, search: null }))
    return c
  }

  /**
   * The principal for a raw API key, with the role it holds in its own workspace now;
   * null when unknown, revoked, its workspace is gone, or its creator holds no role
   * there any more (removed from the organization, say).
   */
  resolveApiKey(raw: string): Extract<Principal, { kind: 'api_key' }> | null {
    const key = this.keysByHash.get(hashApiKey(raw))
    if (!key) return null
    const role = this.keyRole(key, key.org_id, key.workspace_id)
    if (role === null) return null
    return { kind: 'api_key', key_id: key.id, org_id: key.org_id, workspace_id: key.workspace_id, project_id: key.project_id, role }
  }

  /** The creator an event's actor names: "user:<id>", "api_key:<id>", or the bootstrap, whose keys belong to the owner it made. */
  private keyCreator(actor: string, orgId: string): KeyCreator | null {
    const [kind, id] = actor.split(':', 2)
    if (kind === 'user' && id) return { kind: 'user', user_id: id }
    if (kind === 'api_key' && id) return { kind: 'api_key', key_id: id }
    const owner = actor === 'bootstrap' ? this.bootstrapOwners.get(orgId) : undefined
    return owner ? { kind: 'user', user_id: owner } : null
  }

  /**
   * A key's role on an organization (and one of its workspaces, when given): its own
   * role capped by what its creator holds there now, following a chain of keys made
   * by keys up to a user. Every key on the chain must still work (a revoked key's
   * descendants stop with it); a key acts only in its own organization and workspace.
   */
  private keyRole(key: ApiKey, orgId: string, workspaceId: string | null): Role | null {
    let role: Role = key.role
    const seen = new Set<string>()
    for (let k: ApiKey | undefined = key; k && !seen.has(k.id); ) {
      seen.add(k.id)
      if (k.revoked_at_ms !== null || k.org_id !== orgId || (workspaceId !== null && k.workspace_id !== workspaceId)) return null
      const ws = this.workspaces.get(k.workspace_id)
      if (!ws || ws.deleted_at_ms !== null) return null
      role = lower(role, k.role)
      const by: KeyCreator | null = k.created_by
      if (by?.kind === 'user') {
        const creator = this.userRole(by.user_id, orgId, workspaceId)
        return creator === null ? null : lower(role, creator)
      }
      k = by ? this.apiKeys.get(by.key_id) : undefined
    }
    return null
  }

  orgBySlug(slug: string): Org | undefined {
    for (const o of this.orgs.values()) if (o.slug === slug) return o
    return undefined
  }

  /** Active (not soft-deleted) workspace by slug within an organization. */
  workspaceBySlug(orgId: string, slug: string): Workspace | undefined {
    for (const w of this.workspaces.values()) if (w.org_id === orgId && w.slug === slug && w.deleted_at_ms === null) return w
    return undefined
  }

  /** Active (not soft-deleted) workspaces of an organization, or of every organization. */
  activeWorkspaces(orgId?: string): Workspace[] {
    return [...this.workspaces.values()].filter((w) => (orgId === undefined || w.org_id === orgId) && w.deleted_at_ms === null)
  }

  userByEmail(email: string): User | undefined {
    return this.usersByEmail.get(email.toLowerCase())
  }

  membershipsOf(userId: string): Membership[] {
    return [...this.memberships.values()].filter((m) => m.user_id === userId)
  }

  /** Memberships of an organization, organization-wide and scoped to its workspaces. */
  membersOf(orgId: string): Membership[] {
    return [...this.memberships.values()].filter((m) => m.org_id === orgId)
  }

  /** Users holding the owner role organization-wide. */
  ownersOf(orgId: string): string[] {
    return this.membersOf(orgId).filter((m) => m.role === 'owner' && m.workspace_id === null).map((m) => m.user_id)
  }

  /** Keys of a workspace that still work. */
  activeKeysOf(workspaceId: string): ApiKey[] {
    return [...this.apiKeys.values()].filter((k) => k.workspace_id === workspaceId && k.revoked_at_ms === null)
  }

  /**
   * The role a principal holds for an organization, and for one of its workspaces
   * when given: the higher of the organization-wide role and a role scoped to that
   * workspace. An API key holds a role only in its own organization and workspace,
   * never above what its creator holds on the same target now (keyRole).
   */
  roleFor(p: Principal, orgId: string, workspaceId: string | null): Role | null {
    if (p.kind === 'user') return this.userRole(p.user_id, orgId, workspaceId)
    const key = this.apiKeys.get(p.key_id)
    return key ? this.keyRole(key, orgId, workspaceId) : null
  }

  private userRole(userId: string, orgId: string, workspaceId: string | null): Role | null {
    let best: Role | null = null
    for (const m of this.memberships.values()) {
      if (m.user_id !== userId || m.org_id !== orgId) continue
      if (m.workspace_id !== null && m.workspace_id !== workspaceId) continue
      if (best === null || ROLE_RANK[m.role] > ROLE_RANK[best]) best = m.role
    }
    return best
  }
}
