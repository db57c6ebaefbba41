/**
 * Console URLs: route patterns (`/o/:org/w/:ws/traces/:trace_id`) matched against a
 * path, and the paths pages link to. Every console path is `/`, `/sign-in` or under
 * `/o/`: the api serves index.html for exactly those (services/api/src/routes/console.ts),
 * so a new page under `/o/` needs no server change.
 */
export type Params = Record<string, string>

/** The parameters of `path` under `pattern`, or null. `*` at the end matches the rest. */
export function matchPath(pattern: string, path: string): Params | null {
  const p = pattern.split('/').filter(Boolean)
  const s = path.split('/').filter(Boolean)
  const params: Params = {}
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!
    if (seg === '*') {
      params['*'] = s.slice(i).map(decodeSegment).join('/')
      return params
    }
    const got = s[i]
    if (got === undefined) return null
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeSegment(got)
    else if (seg !== got) return null
  }
  return s.length === p.length ? params : null
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const enc = encodeURIComponent

/** Paths of the workspace-scoped pages. */
export const wsPath = (org: string, ws: string, rest = 'traces') => `/o/${enc(org)}/w/${enc(ws)}/${rest}`
export const tracePath = (org: string, ws: string, traceId: string, query?: Record<string, string | undefined>) => {
  const q = new URLSearchParams(Object.entries(query ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')).toString()
  return `${wsPath(org, ws, `traces/${enc(traceId)}`)}${q ? `?${q}` : ''}`
}

/** The REST prefix of a workspace (the spec's /v1/observ/orgs/{org}/workspaces/{ws}). */
export const apiWs = (org: string, ws: string) => `/v1/observ/orgs/${enc(org)}/workspaces/${enc(ws)}`

/** A same-origin path to return to after signing in; anything else (another origin, //host) becomes '/'. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/'
}
