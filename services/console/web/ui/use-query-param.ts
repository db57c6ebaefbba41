/**
 * Page settings kept in the URL's query (a dashboard's period, a drill-down, a page
 * of flags), so a view is a link and Back restores it. Values outside `allowed` read
 * as the default; the default itself is left out of the URL.
 */
import { navigate, useLocation } from '../router'

/** Sets several query parameters in one navigation; null or '' removes one. */
export function useSetQuery(): (updates: Record<string, string | null>) => void {
  const loc = useLocation()
  return (updates) => {
    const q = new URLSearchParams(loc.query)
    for (const [k, v] of Object.entries(updates)) {
      if (v === null || v === '') q.delete(k)
      else q.set(k, v)
    }
    const s = q.toString()
    navigate(`${loc.path}${s ? `?${s}` : ''}`, { replace: true })
  }
}

export function useQueryParam<T extends string>(name: string, allowed: readonly T[], fallback: T): [T, (v: T) => void] {
  const loc = useLocation()
  const setQuery = useSetQuery()
  const raw = loc.query.get(name)
  const value = raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback
  return [value, (v) => setQuery({ [name]: v === fallback ? null : v })]
}
