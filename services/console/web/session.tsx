/**
 * Who is signed in (GET /v1/auth/me) and where they are: the organization and
 * workspace the URL names, with the caller's role there, for pages to decide
 * which controls to show (a viewer sees none it cannot use).
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Me, MeWorkspace, Membership } from './api/types'
import { atLeast, type Role } from './lib/roles'

export interface SessionValue {
  me: Me
  signOut(): Promise<void>
}

export const SessionContext = createContext<SessionValue | null>(null)

export function useSession(): SessionValue {
  const s = useContext(SessionContext)
  if (!s) throw new Error('useSession outside a signed-in page')
  return s
}

export interface WorkspaceScope {
  org: Membership
  ws: MeWorkspace
  /** The caller's role in this workspace (the higher of organization-wide and workspace-scoped). */
  role: Role | null
  can(min: Role): boolean
}

export const WorkspaceContext = createContext<WorkspaceScope | null>(null)

/** The workspace of a workspace page (its route is under /o/:org/w/:ws). */
export function useWorkspace(): WorkspaceScope {
  const w = useContext(WorkspaceContext)
  if (!w) throw new Error('useWorkspace outside a workspace page')
  return w
}

export function findWorkspace(me: Me, orgSlug: string, wsSlug: string): WorkspaceScope | null {
  const org = me.memberships.find((m) => m.org_slug === orgSlug)
  const ws = org?.workspaces.find((w) => w.slug === wsSlug)
  if (!org || !ws) return null
  return { org, ws, role: ws.role, can: (min) => atLeast(ws.role, min) }
}

/** Where a signed-in person starts: the first workspace they can reach. */
export function firstWorkspace(me: Me): { org: string; ws: string } | null {
  for (const m of me.memberships) if (m.workspaces[0]) return { org: m.org_slug, ws: m.workspaces[0].slug }
  return null
}
