/**
 * `svc analyst grant`: resolve the workspace, build the statements (grant.ts),
 * print them or run them against a ClickHouse server. Returns the exit code.
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createClient } from '@clickhouse/client'
import type { ControlState } from '@svc/shared/control/state'
import { analystUserName, grantStatements, invalidName, passwordHash } from './grant.js'

export const GRANT_USAGE = `usage: pnpm svc analyst grant --org <slug> --workspace <slug> [--user <name>] [--password <password>]
                               [--apply --clickhouse-url <url>]
Prints the statements that let <name> (default analyst_<org>_<workspace>) read the
analytics views of one workspace on a ClickHouse server; --apply runs them there as
CLICKHOUSE_USER / CLICKHOUSE_PASSWORD. Without --password one is generated and
printed once on standard error.`

export interface GrantOptions {
  org: string
  workspace: string
  user: string | undefined
  password: string | undefined
  apply: boolean
  clickhouseUrl: string | undefined
}

/** Options after `analyst grant`, or why they are wrong. */
export function parseGrantArgs(argv: string[]): GrantOptions | { error: string } {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        org: { type: 'string' },
        workspace: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        apply: { type: 'boolean', default: false },
        'clickhouse-url': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) }
  }
  if (!values.org || !values.workspace) return { error: '--org and --workspace are required' }
  if (values.apply && !values['clickhouse-url']) return { error: '--apply needs --clickhouse-url (the server to run the statements on)' }
  if (values.user !== undefined && invalidName(values.user)) return { error: `--user ${invalidName(values.user)}` }
  if (values.password !== undefined && values.password.length < 12) return { error: '--password must have at least 12 characters' }
  return { org: values.org, workspace: values.workspace, user: values.user, password: values.password, apply: values.apply, clickhouseUrl: values['clickhouse-url'] }
}

/** The workspace a pair of slugs names in the control state (deleted ones do not count). */
export function resolveWorkspace(state: ControlState, orgSlug: string, workspaceSlug: string): { id: string } | { error: string } {
  const org = [...state.orgs.values()].find((o) => o.slug === orgSlug)
  if (!org) return { error: `no organization with slug ${JSON.stringify(orgSlug)}` }
  const ws = [...state.workspaces.values()].find((w) => w.org_id === org.id && w.slug === workspaceSlug && w.deleted_at_ms === null)
  if (!ws) return { error: `organization ${JSON.stringify(orgSlug)} has no workspace with slug ${JSON.stringify(workspaceSlug)}` }
  return { id: ws.id }
}

export interface GrantDeps {
  state: ControlState
  out: (text: string) => void
  err: (text: string) => void
  /** The server's credentials for --apply. */
  server: { user: string; password: string }
}

export async function analystGrant(opts: GrantOptions, deps: GrantDeps): Promise<number> {
  const ws = resolveWorkspace(deps.state, opts.org, opts.workspace)
  if ('error' in ws) {
    deps.err(ws.error)
    return 2
  }
  const user = opts.user ?? analystUserName(opts.org, opts.workspace)
  const password = opts.password ?? randomBytes(18).toString('base64url')
  const statements = grantStatements({ user, workspaceId: ws.id, password: passwordHash(password) })
  if (!opts.password) deps.err(`password of ${user} (shown once): ${password}`)
  if (!opts.apply) {
    deps.out(statements.map((s) => `${s};`).join('\n'))
    return 0
  }
  const client = createClient({ url: opts.clickhouseUrl, username: deps.server.user, password: deps.server.password })
  try {
    for (const sql of statements) await client.command({ query: sql })
    deps.err(`${user} can read workspace ${opts.org}/${opts.workspace} (${ws.id}) through analytics.* on ${new URL(opts.clickhouseUrl!).host}`)
    return 0
  } catch (err) {
    deps.err(`applying the grant failed: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  } finally {
    await client.close()
  }
}
