/**
 * The page table: every console page, its URL pattern, title, the minimum role it
 * needs in its workspace, and whether the top navigation lists it. Adding a page is
 * adding a line here and a module under pages/ (README.md).
 */
import type { JSX } from 'preact'
import type { Params } from './lib/paths'
import type { Role } from './lib/roles'
import { HomePage } from './pages/home'
import { TracePage } from './pages/trace/trace-page'
import { TracesPage } from './pages/traces'

export interface PageProps { params: Params }

export interface PageDef {
  pattern: string
  title: string
  page: (props: PageProps) => JSX.Element | null
  /** Workspace pages (pattern under /o/:org/w/:ws/) get the workspace and the caller's role there. */
  minRole?: Role
  /** The label in the top navigation; the nav link is the pattern with :org and :ws filled in. */
  nav?: string
}

export const PAGES: PageDef[] = [
  { pattern: '/', title: 'Home', page: HomePage },
  { pattern: '/o/:org/w/:ws/traces', title: 'Traces', page: TracesPage, minRole: 'viewer', nav: 'Traces' },
  { pattern: '/o/:org/w/:ws/traces/:trace_id', title: 'Trace', page: TracePage, minRole: 'viewer' },
]
