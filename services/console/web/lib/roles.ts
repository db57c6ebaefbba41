/**
 * Roles as the API ranks them (shared/control/events.ts ROLE_RANK, which the
 * bundle does not import: that module brings zod; roles.test.ts keeps them equal).
 */
export type Role = 'viewer' | 'dev' | 'admin' | 'owner'

export const ROLE_RANK: Record<Role, number> = { viewer: 0, dev: 1, admin: 2, owner: 3 }

/** Whether `role` (null: none) reaches `min` (null or undefined: anyone signed in). */
export function atLeast(role: Role | null, min: Role | null | undefined): boolean {
  if (!min) return true
  return role !== null && ROLE_RANK[role] >= ROLE_RANK[min]
}
