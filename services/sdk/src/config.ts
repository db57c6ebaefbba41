/**
 * The capture decision at start: whoami (which workspace the API key writes into),
 * then that workspace's sdk-config. Fail-closed: any failure (network, timeout,
 * non-200, a body that is not the expected JSON) means capture_text = false.
 */

export interface SdkConfigResult {
  /** True only when the service answered `{ capture_text: true }`. */
  captureText: boolean
  /** Workspace UUID and slug the key writes into, when whoami answered. */
  workspace?: { id: string; slug: string }
  /** Why capture is off because of a failure (undefined when the service answered). */
  error?: string
}

export interface FetchSdkConfigOptions {
  /** Base URL of the ingest API, e.g. `http://127.0.0.1:4318`. */
  endpoint: string
  apiKey: string
  /** Deadline of the whole lookup (both requests), in ms. Default 3000. */
  timeoutMs?: number
  /** Override of the global fetch (tests, proxies). */
  fetch?: typeof globalThis.fetch
}

export const DEFAULT_CONFIG_TIMEOUT_MS = 3000

/** `http://host:4318/`, `http://host:4318/v1/traces` → `http://host:4318`. */
export function normalizeEndpoint(endpoint: string): string {
  let e = endpoint.trim().replace(/\/+$/, '')
  for (const suffix of ['/v1/traces', '/v1/otlp/traces']) if (e.endsWith(suffix)) e = e.slice(0, -suffix.length)
  return e
}

/**
 * Asks the service whether this key's workspace captures prompt and completion
 * text. Never throws: a failure resolves to `{ captureText: false, error }`.
 */
export async function fetchSdkConfig(opts: FetchSdkConfigOptions): Promise<SdkConfigResult> {
  const doFetch = opts.fetch ?? globalThis.fetch
  const base = normalizeEndpoint(opts.endpoint)
  const signal = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_CONFIG_TIMEOUT_MS)
  const get = async (path: string): Promise<unknown> => {
    const res = await doFetch(base + path, { headers: { 'x-svc-api-key': opts.apiKey, accept: 'application/json' }, signal })
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {})
      throw new Error(`GET ${path} answered ${res.status}`)
    }
    return await res.json()
  }
  let workspace: SdkConfigResult['workspace']
  try {
    const who = (await get('/v1/auth/whoami')) as { workspace?: { id?: unknown; slug?: unknown } } | null
    const id = who?.workspace?.id
    if (typeof id !== 'string' || id === '') throw new Error('whoami answered without a workspace')
    workspace = { id, slug: typeof who?.workspace?.slug === 'string' ? who.workspace.slug : '' }
    const cfg = (await get(`/v1/workspaces/${encodeURIComponent(id)}/sdk-config`)) as { capture_text?: unknown } | null
    if (typeof cfg?.capture_text !== 'boolean') throw new Error('sdk-config answered without a boolean capture_text')
    return { captureText: cfg.capture_text, workspace }
  } catch (err) {
    const reason = signal.aborted ? `timed out after ${opts.timeoutMs ?? DEFAULT_CONFIG_TIMEOUT_MS} ms` : err instanceof Error ? err.message : String(err)
    return { captureText: false, workspace, error: reason }
  }
}
