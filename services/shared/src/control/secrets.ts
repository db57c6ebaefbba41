import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto'

const scrypt = (pw: BinaryLike, salt: BinaryLike, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (err, key) => (err ? reject(err) : resolve(key))))

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function randomToken(length: number): string {
  const bytes = randomBytes(length * 2)
  let out = ''
  // Rejection sampling keeps every character equally likely (248 = 4 * 62).
  for (const b of bytes) {
    if (b < 248) out += BASE62[b % 62]
    if (out.length === length) return out
  }
  return out + randomToken(length - out.length)
}

/** API keys are `dr_` + 40 base62 characters (~238 bits), so a plain SHA-256 is a safe lookup hash. */
export const newApiKey = () => `dr_${randomToken(40)}`
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex')
export const looksLikeApiKey = (s: string) => /^dr_[A-Za-z0-9_-]{8,200}$/.test(s)

/** Invitation tokens: `inv_` + 40 base62 characters, single use, kept as SHA-256 (high entropy, like API keys). */
export const newInvitationToken = () => `inv_${randomToken(40)}`
export const hashInvitationToken = hashApiKey

/** Passwords are low-entropy, so they get a slow, salted KDF. Format: scrypt$N$r$p$salt$hash (base64). */
const N = 16384, R = 8, P = 1, LEN = 32
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, LEN, { N, r: R, p: P })
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$')
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: +n, r: +r, p: +p })
  return timingSafeEqual(key, expected)
}

/**
 * A name-based UUID (version 5 layout over SHA-256): the same name always gives the
 * same id, so two processes bootstrapping the same slug agree without coordination.
 */
export function stableUuid(name: string): string {
  const h = createHash('sha256').update('svc:' + name).digest()
  h[6] = (h[6]! & 0x0f) | 0x50
  h[8] = (h[8]! & 0x3f) | 0x80
  const hex = h.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
