import { randomBytes, scryptSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DEFAULT_SCRYPT, hashPassword, needsRehash, verifyPassword } from './secrets.js'

const LOW = { N: 1024, r: 8, p: 1 }

describe('password hashing', () => {
  it("defaults to OWASP's scrypt recommendation (N=2^17, r=8, p=1), stored in the hash", async () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 })
    const hash = await hashPassword('correct horse battery staple')
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true)
    expect(await verifyPassword('wrong', hash)).toBe(false)
  })

  it('verifies hashes made with older parameters, and says they need a rehash', async () => {
    const salt = randomBytes(16)
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('old password', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`
    expect(await verifyPassword('old password', old)).toBe(true)
    expect(needsRehash(old, LOW)).toBe(true)
    const current = await hashPassword('new password', LOW)
    expect(current.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect(needsRehash(current, LOW)).toBe(false)
    expect(needsRehash(current, DEFAULT_SCRYPT)).toBe(true)
  })

  it('treats a malformed stored hash as a mismatch', async () => {
    for (const stored of ['', 'scrypt$', 'bcrypt$1$2$3$4$5', 'scrypt$3$8$1$AAAA$AAAA', 'scrypt$1024$8$1$AAAA$'])
      expect(await verifyPassword('x', stored)).toBe(false)
  })
})
