import { describe, expect, it } from 'vitest'
import { passwordHasher } from './passwords.js'
import { hashPassword, verifyPassword } from './secrets.js'

const LOW = { N: 1024, r: 8, p: 1 }

describe('passwordHasher', () => {
  it('hashes with its parameters and verifies', async () => {
    const h = passwordHasher(LOW)
    const stored = await h.hash('pw 12345678')
    expect(stored.startsWith('scrypt$1024$8$1$')).toBe(true)
    expect(await h.verify('pw 12345678', stored)).toBe(true)
    expect(await h.verify('nope', stored)).toBe(false)
    expect(h.needsRehash(stored)).toBe(false)
    expect(h.needsRehash(await hashPassword('pw', { N: 2048, r: 8, p: 1 }))).toBe(true)
  })

  it('does the same work for an account without a password: one scrypt of the same cost, against a dummy hash', async () => {
    const checked: string[] = []
    const h = passwordHasher(LOW, { verify: (pw, stored) => (checked.push(stored), verifyPassword(pw, stored)) })
    const real = await h.hash('pw 12345678')
    await h.verify('guess', real)
    expect(await h.verify('guess', null)).toBe(false)
    expect(await h.verify('', null)).toBe(false)
    expect(checked).toHaveLength(3)
    expect(checked.map((s) => s.split('$').slice(0, 4).join('$'))).toEqual(['scrypt$1024$8$1', 'scrypt$1024$8$1', 'scrypt$1024$8$1'])
    expect(checked[1]).not.toBe(real)
  })
})
