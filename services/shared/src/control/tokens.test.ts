import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { issueAccessToken, verifyAccessToken } from './tokens.js'

const SECRET = 'test-secret'
const now = () => Math.floor(Date.now() / 1000)

describe('verifyAccessToken', () => {
  it('accepts a token it issued', async () => {
    const token = await issueAccessToken(SECRET, { id: 'u1', email: 'u1@test' }, 60)
    expect(await verifyAccessToken(SECRET, token)).toMatchObject({ sub: 'u1', email: 'u1@test' })
  })

  it('refuses an expired token, and one signed with another secret', async () => {
    expect(await verifyAccessToken(SECRET, await sign({ sub: 'u1', email: 'e', iat: now() - 120, exp: now() - 60 }, SECRET, 'HS256'))).toBeNull()
    expect(await verifyAccessToken(SECRET, await issueAccessToken('other', { id: 'u1', email: 'e' }, 60))).toBeNull()
  })

  it('refuses a token without exp: it would never expire', async () => {
    expect(await verifyAccessToken(SECRET, await sign({ sub: 'u1', email: 'e', iat: now() }, SECRET, 'HS256'))).toBeNull()
  })

  it('refuses a token whose exp is not a number', async () => {
    for (const exp of [String(now() + 600), null, true, { at: now() + 600 }])
      expect(await verifyAccessToken(SECRET, await sign({ sub: 'u1', email: 'e', iat: now(), exp } as never, SECRET, 'HS256'))).toBeNull()
  })
})
