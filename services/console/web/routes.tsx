/**
 * The page table: every console page, its URL pattern, title, the minimum role it
 * needs in its workspace, and whether the top navigation lists it. Adding a page is
 * adding a line here and a module under pages/ (README.md).
 */
import type { JSX } from 'preact'
import type { Gate } from './lib/page-access'
import type { Params } from './lib/paths'
import { AlignmentFlagsPage } from './pages/dashboards/alignment'
import { CodingAgentPage } from './pages/dashboards/coding-agent'
import { DriftPage } from './pages/dashboards/drift'
import { HealthPage } from './pages/dashboards/health'
import { LatencyPage } from './pages/dashboards/latency'
import { SourcesPage } from './pages/dashboards/sources'
import { UsagePage } from './pages/dashboards/usage'
import { HomePage } from './pages/home'
import { AlignmentSettingsPage } from './pages/settings/alignment'
import { ApiKeysPage } from './pages/settings/api-keys'
import { BudgetsPage } from './pages/settings/budgets'
import { CredentialsPage } from './pages/settings/credentials'
import { EnginesPage } from './pages/settings/engines'
import { MembersPage } from './pages/settings/members'
import { RetentionPage } from './pages/settings/retention'
import { WorkspaceSettingsPage } from './pages/settings/workspace'
import { TracePage } from './pages/trace/trace-page'
import { TracesPage } from './pages/traces'

export interface PageProps { params: Params }

/**
 * Gate (lib/page-access.ts) holds the access fields: minRole (workspace pages under
 * /o/:org/w/:ws/ get the workspace and the caller's role there; orgRole: the
 * organization-wide role counts instead), nav (the label in the top navigation; the
 * link is the pattern with :org and :ws filled in), section and tab (pages of a
 * section share one header entry and a sub-navigation of their tabs).
 */
export interface PageDef extends Gate {
  title: string
  page: (props: PageProps) => JSX.Element | null
}

export const PAGES: PageDef[] = [
  { pattern: '/', title: 'Home', page: HomePage },
  { pattern: '/o/:org/w/:ws/traces', title: 'Traces', page: TracesPage, minRole: 'viewer', nav: 'Traces' },
  { pattern: '/o/:org/w/:ws/traces/:trace_id', title: 'Trace', page: TracePage, minRole: 'viewer' },
  // Dashboards: one header entry, a sub-navigation of these tabs (pages/dashboards/).
  { pattern: '/o/:org/w/:ws/dashboards/usage', title: 'Usage', page: UsagePage, minRole: 'viewer', nav: 'Dashboards', section: 'dashboards', tab: 'Usage' },
  { pattern: '/o/:org/w/:ws/dashboards/latency', title: 'Latency', page: LatencyPage, minRole: 'viewer', section: 'dashboards', tab: 'Latency' },
  { pattern: '/o/:org/w/:ws/dashboards/drift', title: 'Drift', page: DriftPage, minRole: 'viewer', section: 'dashboards', tab: 'Drift' },
  { pattern: '/o/:org/w/:ws/dashboards/sources', title: 'Sources', page: SourcesPage, minRole: 'viewer', section: 'dashboards', tab: 'Sources' },
  { pattern: '/o/:org/w/:ws/dashboards/alignment', title: 'Alignment flags', page: AlignmentFlagsPage, minRole: 'viewer', section: 'dashboards', tab: 'Alignment' },
  { pattern: '/o/:org/w/:ws/dashboards/coding-agent', title: 'Coding agents', page: CodingAgentPage, minRole: 'viewer', section: 'dashboards', tab: 'Coding agents' },
  { pattern: '/o/:org/w/:ws/dashboards/health', title: 'Ingestion health', page: HealthPage, minRole: 'admin', section: 'dashboards', tab: 'Health' },
  // Settings (pages/settings/): workspace pages for admins; members and credentials go by the organization-wide role, as their API routes do.
  { pattern: '/o/:org/w/:ws/settings/api-keys', title: 'API keys', page: ApiKeysPage, minRole: 'admin', nav: 'Settings', section: 'settings', tab: 'API keys' },
  { pattern: '/o/:org/w/:ws/settings/members', title: 'Members', page: MembersPage, minRole: 'dev', orgRole: true, section: 'settings', tab: 'Members' },
  { pattern: '/o/:org/w/:ws/settings/workspace', title: 'Workspace settings', page: WorkspaceSettingsPage, minRole: 'admin', section: 'settings', tab: 'Workspace' },
  { pattern: '/o/:org/w/:ws/settings/engines', title: 'Engines', page: EnginesPage, minRole: 'admin', section: 'settings', tab: 'Engines' },
  { pattern: '/o/:org/w/:ws/settings/retention', title: 'Retention', page: RetentionPage, minRole: 'admin', section: 'settings', tab: 'Retention' },
  { pattern: '/o/:org/w/:ws/settings/budgets', title: 'Cost budgets', page: BudgetsPage, minRole: 'admin', section: 'settings', tab: 'Budgets' },
  { pattern: '/o/:org/w/:ws/settings/credentials', title: 'Credentials', page: CredentialsPage, minRole: 'dev', orgRole: true, section: 'settings', tab: 'Credentials' },
  { pattern: '/o/:org/w/:ws/settings/alignment', title: 'Alignment policy', page: AlignmentSettingsPage, minRole: 'admin', section: 'settings', tab: 'Alignment' },
]
