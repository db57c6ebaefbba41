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
export const hashInvitationToken = (token: string) => hashApiKey(token)

/** scrypt's cost parameters: N (CPU/memory cost, a power of two), r (block size), p (parallelism). */
export interface ScryptParams { N: number; r: number; p: number }

/** OWASP Password Storage Cheat Sheet: scrypt with N=2^17, r=8, p=1 (128 MiB per hash). */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 }
const KEY_LEN = 32
// Node refuses above ~128·N·r bytes unless maxmem allows it (its default is 32 MiB).
const maxmemFor = ({ N, r }: ScryptParams) => 256 * N * r

/**
 * Passwords are low-entropy, so they get a slow, salted KDF. Format:
 * scrypt$N$r$p$salt$hash (base64): the parameters travel with each hash, so hashes
 * made with older ones still verify (and needsRehash tells a login to renew them).
 */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, KEY_LEN, { ...params, maxmem: maxmemFor(params) })
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

function parseHash(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null {
  const [alg, n, r, p, salt, hash, ...rest] = stored.split('$')
  if (alg !== 'scrypt' || !salt || !hash || rest.length) return null
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0)) return null
  return { params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') }
}

/** False for a wrong password, and for anything that is not a well-formed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored)
  if (!parsed || parsed.hash.length === 0) return false
  try {
    const key = await scrypt(password, parsed.salt, parsed.hash.length, { ...parsed.params, maxmem: maxmemFor(parsed.params) })
    return timingSafeEqual(key, parsed.hash)
  } catch {
    return false
  }
}

/** Whether a stored hash was made with other parameters than these (a login then stores a new one). */
export function needsRehash(stored: string, params: ScryptParams): boolean {
  const parsed = parseHash(stored)
  return !parsed || parsed.params.N !== params.N || parsed.params.r !== params.r || parsed.params.p !== params.p || parsed.hash.length !== KEY_LEN
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
