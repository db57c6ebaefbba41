/**
 * Envelope encryption of stored secrets (LLM and search API keys): each secret gets
 * its own random 256-bit data key and is sealed with AES-256-GCM; the data key is
 * sealed with the master key (AES-256-GCM again) and kept beside it. Only sealed
 * envelopes go on the control topic, which is kept forever and read by every
 * process: without the master key they are noise. Rotating the master key means
 * re-wrapping data keys, never re-encrypting secrets.
 *
 * The master key: SVC_MASTER_KEY (32 bytes as 64 hex characters or base64), else a
 * key generated on first start into <data dir>/master.key with mode 0600.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

export const SealedSecretSchema = z.object({
  /** First 8 bytes (hex) of SHA-256 of the master key that wrapped the data key. */
  master_key_id: z.string(),
  wrapped_key: z.string(),
  ciphertext: z.string(),
})
export type SealedSecret = z.infer<typeof SealedSecretSchema>

export interface MasterKey {
  id: string
  key: Buffer
}

const IV_BYTES = 12
const TAG_BYTES = 16

/** iv ‖ tag ‖ ciphertext, base64. */
function seal(key: Buffer, plain: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES)
  const c = createCipheriv('aes-256-gcm', key, iv)
  c.setAAD(Buffer.from(aad))
  const body = Buffer.concat([c.update(plain), c.final()])
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')
}

function open(key: Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, 'base64')
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
  d.setAAD(Buffer.from(aad))
  d.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
  return Buffer.concat([d.update(raw.subarray(IV_BYTES + TAG_BYTES)), d.final()])
}

export function masterKeyFrom(raw: Buffer): MasterKey {
  if (raw.length !== 32) throw new Error(`the master key must be 32 bytes, got ${raw.length}`)
  return { id: createHash('sha256').update(raw).digest('hex').slice(0, 16), key: raw }
}

/** Parses SVC_MASTER_KEY: 64 hex characters, or base64 of 32 bytes. */
export function parseMasterKey(text: string): MasterKey {
  const t = text.trim()
  return masterKeyFrom(/^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64'))
}

/** SVC_MASTER_KEY when given; else the key in the data dir, created (0600) on first use. */
export function loadMasterKey(configured: string | undefined, dataDir: string): MasterKey {
  if (configured) return parseMasterKey(configured)
  const file = join(dataDir, 'master.key')
  if (existsSync(file)) return parseMasterKey(readFileSync(file, 'utf8'))
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
  return masterKeyFrom(key)
}

/**
 * Seals a secret. `context` (e.g. "llm:<org_id>") is bound into both seals as
 * associated data, so an envelope copied to another organization or purpose fails
 * to open.
 */
export function sealSecret(master: MasterKey, secret: string, context: string): SealedSecret {
  const dataKey = randomBytes(32)
  return {
    master_key_id: master.id,
    wrapped_key: seal(master.key, dataKey, `key:${context}`),
    ciphertext: seal(dataKey, Buffer.from(secret, 'utf8'), `secret:${context}`),
  }
}

export function openSecret(master: MasterKey, sealed: SealedSecret, context: string): string {
  if (sealed.master_key_id !== master.id) throw new Error(`secret was sealed with master key ${sealed.master_key_id}, not ${master.id}`)
  const dataKey = open(master.key, sealed.wrapped_key, `key:${context}`)
  return open(dataKey, sealed.ciphertext, `secret:${context}`).toString('utf8')
}

/** The sealing contexts (AAD) of an organization's credentials: a secret opens only as what it was sealed for. */
export const llmContext = (orgId: string) => `llm:${orgId}`
export const searchContext = (orgId: string) => `search:${orgId}`
