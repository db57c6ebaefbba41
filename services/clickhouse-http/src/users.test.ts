import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '@svc/shared/config'
import { writeInitCredentials } from '@svc/shared/control/init-credentials'
import { ClickHouseException } from './errors.js'
import { authenticate, loadUsers, presentedCredentials } from './users.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-ch-users-'))
  dirs.push(d)
  return d
}

const refusal = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    if (err instanceof ClickHouseException) return err.code
    throw err
  }
  return null
}

describe('users', () => {
  it('generates missing passwords once, into init-credentials.json (0600) beside what is there, and keeps them', () => {
    const dir = dataDir()
    writeInitCredentials(dir, { org_slug: 'default', api_key: 'dr_x' })
    const config = loadConfig({ SVC_DATA_DIR: dir, SVC_CLICKHOUSE_SVC_PASSWORD: 'from-env' })
    const first = loadUsers(config)
    expect(Object.keys(first.generated)).toEqual(['analyst'])
    const file = join(dir, 'init-credentials.json')
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { org_slug: string; api_key: string; clickhouse: Record<string, string> }
    expect(kept.org_slug).toBe('default')
    expect(kept.api_key).toBe('dr_x')
    expect(Object.keys(kept.clickhouse)).toEqual(['analyst']) // a configured password is not written down
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const again = loadUsers(config)
    expect(again.generated).toEqual({})
    const analyst = again.users.find((u) => u.name === 'analyst')!
    expect(authenticate(again.users, { user: 'analyst', password: kept.clickhouse.analyst! }, '')).toBe(analyst)
    expect(authenticate(again.users, { user: 'svc', password: 'from-env' }, '').name).toBe('svc')
  })

  it("answers a wrong password 516 and a missing one 194, as ClickHouse does, whoever the user", () => {
    const { users } = loadUsers(loadConfig({ SVC_DATA_DIR: dataDir(), SVC_CLICKHOUSE_SVC_PASSWORD: 's', SVC_CLICKHOUSE_ANALYST_PASSWORD: 'a' }))
    expect(refusal(() => authenticate(users, { user: 'analyst', password: 's' }, ''))).toBe(516)
    expect(refusal(() => authenticate(users, { user: 'nobody', password: 'a' }, ''))).toBe(516)
    expect(refusal(() => authenticate(users, { user: 'default', password: '' }, ''))).toBe(194)
  })

  it("reads credentials the four ways ClickHouse does and refuses mixing them", () => {
    const h = (m: Record<string, string>) => ({ get: (n: string) => m[n] })
    const none = new URLSearchParams()
    expect(presentedCredentials(h({ 'x-clickhouse-user': 'svc', 'x-clickhouse-key': 'k' }), none)).toEqual({ user: 'svc', password: 'k' })
    expect(presentedCredentials(h({ authorization: `Basic ${Buffer.from('analyst:p:w').toString('base64')}` }), none)).toEqual({ user: 'analyst', password: 'p:w' })
    expect(presentedCredentials(h({}), new URLSearchParams('user=svc&password=x'))).toEqual({ user: 'svc', password: 'x' })
    expect(presentedCredentials(h({}), none)).toEqual({ user: 'default', password: '' })
    expect(refusal(() => presentedCredentials(h({ 'x-clickhouse-user': 'svc', authorization: 'Basic eDp5' }), none))).toBe(516)
    expect(refusal(() => presentedCredentials(h({ authorization: 'Bearer abc' }), none))).toBe(516)
  })
})
