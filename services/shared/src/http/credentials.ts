/**
 * Where a request's credential is: `x-svc-api-key`, else `Authorization: Bearer <token>`
 * (an API key, or on the read API a login JWT). Null when neither header is sent.
 */
export function credentialFrom(headers: { header(name: string): string | undefined }): { token: string; via: 'x-svc-api-key' | 'bearer' } | null {
  const direct = headers.header('x-svc-api-key')?.trim()
  if (direct) return { token: direct, via: 'x-svc-api-key' }
  const auth = headers.header('authorization')?.trim()
  const m = auth ? /^bearer\s+(\S+)$/i.exec(auth) : null
  return m?.[1] ? { token: m[1], via: 'bearer' } : null
}
