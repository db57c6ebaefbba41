import { z } from 'zod'
import { SealedSecretSchema } from './envelope.js'

export const ROLES = ['viewer', 'dev', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]
export const ROLE_RANK: Record<Role, number> = { viewer: 0, dev: 1, admin: 2, owner: 3 }
export const RoleSchema = z.enum(ROLES)

const uuid = z.string().uuid()

/**
 * The control topic's event catalogue: type name -> payload schema. Every change to
 * organizations, workspaces, users, memberships and keys is one of these, so the
 * state can be rebuilt anywhere by folding the topic from the start.
 */
export const ControlEventPayloads = {
  'org.created': z.object({ org_id: uuid, slug: z.string(), name: z.string() }),
  /** Only the fields present change; null clears contact_email or team_count. */
  'org.updated': z.object({ org_id: uuid, name: z.string().optional(), contact_email: z.string().nullable().optional(), team_count: z.string().nullable().optional(), engine_gates: z.record(z.boolean()).optional() }),
  /** Ignored by the fold when the slug is taken in the organization: the first writer wins. */
  'workspace.created': z.object({ workspace_id: uuid, org_id: uuid, slug: z.string(), name: z.string() }),
  /** Ignored as a whole when the new slug is taken by another active workspace of the organization. */
  'workspace.updated': z.object({ workspace_id: uuid, name: z.string().optional(), slug: z.string().optional() }),
  'workspace.deleted': z.object({ workspace_id: uuid }),
  'user.created': z.object({ user_id: uuid, email: z.string(), password_hash: z.string().nullable() }),
  /** A login renewed the hash of the password it just checked (newer scrypt parameters); ignored for an account without a password. */
  'user.password_rehashed': z.object({ user_id: uuid, password_hash: z.string() }),
  'member.role_set': z.object({ org_id: uuid, user_id: uuid, role: RoleSchema, workspace_id: uuid.nullable() }),
  /** Every role of the user in the organization, organization-wide and scoped; cancels a pending invitation there too. */
  'member.removed': z.object({ org_id: uuid, user_id: uuid }),
  /**
   * A membership offered to an account, active only once redeemed with the token (its
   * SHA-256 here; the token itself went to the caller only). Replaces a pending
   * invitation of the same account to the same organization.
   */
  'member.invited': z.object({ invitation_id: uuid, org_id: uuid, user_id: uuid, role: RoleSchema, workspace_id: uuid.nullable(), token_hash: z.string(), expires_at_ms: z.number().int() }),
  /**
   * The invited account redeemed the invitation. password_hash: the password chosen by
   * a new account; the fold ignores the whole event when the account has a password by
   * then, or holds roles in another organization, or the invitation is no longer pending.
   */
  'member.invitation_accepted': z.object({ invitation_id: uuid, user_id: uuid, password_hash: z.string().nullable() }),
  'api_key.created': z.object({
    key_id: z.string(),
    org_id: uuid,
    workspace_id: uuid,
    project_id: z.string(),
    role: RoleSchema,
    name: z.string(),
    key_hash: z.string(),
    key_last4: z.string(),
  }),
  'api_key.revoked': z.object({ key_id: z.string() }),
  'workspace.setting_set': z.object({ workspace_id: uuid, name: z.string(), value: z.unknown() }),
  /** secret and api_key_last4 null: keep the stored key. Secrets travel sealed (envelope.ts), never in clear. */
  'credential.llm_set': z.object({
    org_id: uuid,
    provider: z.string(),
    model_id: z.string(),
    api_base: z.string().nullable(),
    provider_config: z.record(z.unknown()),
    secret: SealedSecretSchema.nullable(),
    api_key_last4: z.string().nullable(),
  }),
  'credential.llm_deleted': z.object({ org_id: uuid }),
  'credential.llm_fallback_set': z.object({ org_id: uuid, enabled: z.boolean() }),
  'credential.search_set': z.object({ org_id: uuid, secret: SealedSecretSchema, api_key_last4: z.string() }),
  'credential.search_deleted': z.object({ org_id: uuid }),
} as const

export type ControlEventType = keyof typeof ControlEventPayloads
export type ControlEventPayload<T extends ControlEventType> = z.infer<(typeof ControlEventPayloads)[T]>

export type ControlEvent = {
  [T in ControlEventType]: { type: T; payload: ControlEventPayload<T>; actor: string; at_ms: number; event_id: string }
}[ControlEventType]

export function parseControlEvent(raw: { type: string; payload_json: string; actor: string; at_ms: number; event_id: string }): ControlEvent | null {
  const schema = (ControlEventPayloads as Record<string, z.ZodTypeAny>)[raw.type]
  if (!schema) return null
  const payload = schema.safeParse(JSON.parse(raw.payload_json))
  if (!payload.success) return null
  return { type: raw.type, payload: payload.data, actor: raw.actor, at_ms: raw.at_ms, event_id: raw.event_id } as ControlEvent
}
