import { describe, expect, it } from 'vitest'
import { ROLE_RANK as SERVER_RANK } from '@svc/shared/control/events'
import { atLeast, ROLE_RANK } from './roles'

describe('roles', () => {
  it('ranks roles as the API does', () => {
    expect(ROLE_RANK).toEqual(SERVER_RANK)
  })

  it('lets a role use what its rank reaches, and nobody without a role use a gated page', () => {
    expect(atLeast('viewer', 'admin')).toBe(false)
    expect(atLeast('admin', 'admin')).toBe(true)
    expect(atLeast('owner', 'dev')).toBe(true)
    expect(atLeast(null, 'viewer')).toBe(false)
    expect(atLeast(null, null)).toBe(true)
  })
})
