/**
 * The console's one way to call the REST API. The session is an httpOnly cookie
 * the browser sends by itself (POST /v1/auth/session); state-changing calls also
 * send the CSRF token (readable cookie svc_csrf) as x-svc-csrf, as the API requires
 * for cookie-authenticated writes (docs/console.md). Every failure becomes an
 * ApiError with the API's own message, for ErrorMessage to show.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message)
  }
}

/** Fired when a call answers 401: the session ended (expired, or signed out in another tab). */
export const SESSION_ENDED = 'svc:session-ended'

export const CSRF_COOKIE = 'svc_csrf'
export const CSRF_HEADER = 'x-svc-csrf'

function cookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return decodeURIComponent(v.join('='))
  }
  return null
}

/** Whether this browser may hold a session: the readable CSRF cookie is set and cleared with the httpOnly one. */
export const hasSessionHint = () => cookie(CSRF_COOKIE) !== null

export type Query = Record<string, string | number | boolean | null | undefined>

export function withQuery(path: string, query?: Query): string {
  if (!query) return path
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  query?: Query
  /** JSON-encoded unless it is FormData (uploads). */
  body?: unknown
  signal?: AbortSignal
}

export async function api<T>(path: string, opts: CallOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET'
  const headers: Record<string, string> = { accept: 'application/json' }
  let body: BodyInit | undefined
  if (opts.body instanceof FormData) body = opts.body
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(opts.body)
  }
  if (method !== 'GET') {
    const csrf = cookie(CSRF_COOKIE)
    if (csrf) headers[CSRF_HEADER] = csrf
  }
  let res: Response
  try {
    res = await fetch(withQuery(path, opts.query), { method, headers, body, signal: opts.signal, credentials: 'same-origin', cache: 'no-store' })
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err
    throw new ApiError(0, 'network', 'The API could not be reached. Check that the service is running, then try again.')
  }
  if (res.status === 204) return undefined as T
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  if (!res.ok) {
    const e = (json ?? {}) as { error?: unknown; message?: unknown; detail?: unknown }
    const message = typeof e.message === 'string' && e.message ? e.message : `${res.status} ${res.statusText || 'error'}`
    const err = new ApiError(res.status, typeof e.error === 'string' ? e.error : 'error', message, e.detail)
    if (res.status === 401 && !path.startsWith('/v1/auth/session')) window.dispatchEvent(new CustomEvent(SESSION_ENDED))
    throw err
  }
  if (json === undefined) throw new ApiError(res.status, 'bad_response', `The API answered ${res.status} without a JSON body.`)
  return json as T
}
