/**
 * Who may open which page, and what the header and a section's sub-navigation list.
 * A workspace page is gated by the caller's role in the workspace (the higher of
 * organization-wide and workspace-scoped); an organization page (members,
 * credentials) by the organization-wide role alone, as the API gates its
 * organization routes (docs/api.md "Roles and scopes").
 */
import { atLeast, type Role } from './roles'

export interface Gate {
  pattern: string
  minRole?: Role
  /** minRole applies to the organization-wide role. */
  orgRole?: boolean
  /** The header's label; on a page of a section it stands for the whole section. */
  nav?: string
  /** Pages of one section share a sub-navigation and one header entry. */
  section?: string
  /** The label in the section's sub-navigation. */
  tab?: string
}

export interface Standing {
  /** The role in the workspace. */
  role: Role | null
  org: { role: Role | null }
}

/** The role that counts for this page. */
export const roleFor = (page: Gate, s: Standing | null): Role | null => (page.orgRole ? (s?.org.role ?? null) : (s?.role ?? null))

export const canOpen = (page: Gate, s: Standing | null): boolean => atLeast(roleFor(page, s), page.minRole)

/** What a page refused to a role says: which role it needs, and where. */
export const refusal = (page: Gate, s: Standing | null): string =>
  `This page needs the ${page.minRole} role ${page.orgRole ? 'in this organization' : 'in this workspace'}; you have ${roleFor(page, s) ?? 'none'}${page.orgRole && s?.role ? ` there (${s.role} in this workspace)` : ''}.`

export interface NavEntry<P extends Gate> {
  label: string
  /** The page the entry opens: for a section, the first of its pages the caller may open. */
  page: P
  active: boolean
}

/** The header's entries: pages with a nav label the caller may open; a section's entry opens its first reachable page and is active on any of them. */
export function navEntries<P extends Gate>(pages: P[], current: P | null, s: Standing | null): NavEntry<P>[] {
  const out: NavEntry<P>[] = []
  for (const p of pages) {
    if (!p.nav) continue
    if (!p.section) {
      if (canOpen(p, s)) out.push({ label: p.nav, page: p, active: current === p })
      continue
    }
    const first = pages.find((q) => q.section === p.section && canOpen(q, s))
    if (first) out.push({ label: p.nav, page: first, active: current?.section === p.section })
  }
  return out
}

/** The sub-navigation of the current page's section: its pages the caller may open. */
export const sectionPages = <P extends Gate>(pages: P[], current: P | null, s: Standing | null): P[] =>
  current?.section ? pages.filter((p) => p.section === current.section && canOpen(p, s)) : []

/** Whether a page exists in every workspace (no parameter but :org and :ws), so the workspace switcher can keep it. */
export const samePageElsewhere = (pattern: string): boolean => pattern.includes('/:ws/') && !/\/:(?!org\/|ws\/)/.test(`${pattern}/`)
