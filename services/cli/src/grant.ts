/**
 * `pnpm svc analyst grant`: the statements that give one tenant's analyst read
 * access to the analytics views of one workspace on a ClickHouse server
 * (docs/analysts.md). Pure: names, password hash and workspace in, SQL out.
 *
 * Everything a caller typed ends up inside a ClickHouse identifier or string
 * literal, each written the way ClickHouse's own formatter writes one (backquotes
 * or single quotes, backslash escapes), so no name can end a statement early; the
 * tests run every statement through ClickHouse's parser (formatQuery) with
 * hostile names.
 */
import { createHash, randomBytes } from 'node:crypto'
import { ANALYTICS_DATABASE, ANALYTICS_VIEWS } from '@svc/shared/store/analytics'

/** A backquoted ClickHouse identifier. */
export const quoteIdentifier = (name: string) => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``

/** A single-quoted ClickHouse string literal. */
export const quoteString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

/** The default user name: analyst_<org>_<workspace>, anything but letters, digits and _ as _. */
export const analystUserName = (orgSlug: string, workspaceSlug: string) => `analyst_${orgSlug}_${workspaceSlug}`.replace(/[^A-Za-z0-9_]/g, '_')

/** ClickHouse's sha256_hash: hex of SHA-256 over the password followed by the salt. */
export function passwordHash(password: string, salt = randomBytes(16).toString('hex')): { hash: string; salt: string } {
  return { hash: createHash('sha256').update(password + salt).digest('hex'), salt }
}

/** The settings profile every granted analyst gets: read only, with limits an operator may change on the server. */
export const ANALYST_PROFILE = 'svc_analyst'

export interface Grant {
  user: string
  workspaceId: string
  password: { hash: string; salt: string }
}

/** Why a name cannot be used, or null. */
export function invalidName(name: string): string | null {
  if (name.length === 0 || name.length > 128) return 'must have 1 to 128 characters'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters'
  return null
}

/**
 * CREATE SETTINGS PROFILE (if missing), CREATE USER (replacing password and
 * profile), one row policy per analytics view (replaced), GRANT SELECT ON
 * analytics.*. Policies are named after user and workspace, so two analysts of one
 * workspace, or one analyst of two workspaces, have policies of their own.
 */
export function grantStatements(g: Grant): string[] {
  const user = quoteIdentifier(g.user)
  const policy = quoteIdentifier(`${g.user}_${g.workspaceId}`)
  return [
    `CREATE SETTINGS PROFILE IF NOT EXISTS ${quoteIdentifier(ANALYST_PROFILE)} SETTINGS readonly = 1, max_execution_time = 60, max_result_rows = 1000000, max_memory_usage = 4000000000`,
    `CREATE USER OR REPLACE ${user} IDENTIFIED WITH sha256_hash BY ${quoteString(g.password.hash)} SALT ${quoteString(g.password.salt)} DEFAULT DATABASE ${ANALYTICS_DATABASE} SETTINGS PROFILE ${quoteString(ANALYST_PROFILE)}`,
    ...ANALYTICS_VIEWS.map(
      (view) => `CREATE ROW POLICY OR REPLACE ${policy} ON ${ANALYTICS_DATABASE}.${quoteIdentifier(view)} FOR SELECT USING workspace_id = ${quoteString(g.workspaceId)} TO ${user}`,
    ),
    `GRANT SELECT ON ${ANALYTICS_DATABASE}.* TO ${user}`,
  ]
}
