import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadMasterKey, masterKeyFrom, openSecret, parseMasterKey, sealSecret } from './envelope.js'

describe('envelope encryption', () => {
  const master = masterKeyFrom(randomBytes(32))

  it('round-trips, with a fresh data key and IV per secret, and never shows the secret', () => {
    const a = sealSecret(master, 'sk-live-abcdef123456', 'llm:org-1')
    const b = sealSecret(master, 'sk-live-abcdef123456', 'llm:org-1')
    expect(openSecret(master, a, 'llm:org-1')).toBe('sk-live-abcdef123456')
    expect(a.ciphertext).not.toBe(b.ciphertext)
    expect(a.wrapped_key).not.toBe(b.wrapped_key)
    expect(JSON.stringify(a)).not.toContain('abcdef')
    expect(Buffer.from(a.ciphertext, 'base64').toString('latin1')).not.toContain('abcdef')
  })

  it('refuses another context, another master key, and any tampering', () => {
    const s = sealSecret(master, 'secret', 'llm:org-1')
    expect(() => openSecret(master, s, 'llm:org-2')).toThrow()
    expect(() => openSecret(masterKeyFrom(randomBytes(32)), s, 'llm:org-1')).toThrow(/master key/)
    const flipped = Buffer.from(s.ciphertext, 'base64')
    flipped[flipped.length - 1]! ^= 1
    expect(() => openSecret(master, { ...s, ciphertext: flipped.toString('base64') }, 'llm:org-1')).toThrow()
  })

  it('takes SVC_MASTER_KEY as hex or base64, else creates a 0600 key file once', () => {
    const raw = randomBytes(32)
    expect(parseMasterKey(raw.toString('hex')).key).toEqual(raw)
    expect(parseMasterKey(raw.toString('base64')).key).toEqual(raw)
    expect(() => parseMasterKey('too short')).toThrow(/32 bytes/)
    const dir = mkdtempSync(join(tmpdir(), 'svc-master-'))
    const first = loadMasterKey(undefined, dir)
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600)
    expect(loadMasterKey(undefined, dir).key).toEqual(first.key)
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(first.key.toString('hex'))
  })
})
