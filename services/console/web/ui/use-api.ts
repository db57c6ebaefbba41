/**
 * Loading an API resource in a page: data, error and loading state, cancelled when
 * the page leaves or the request changes, optionally polled (live refresh, or
 * waiting for an engine's result) while `poll` says so.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, ApiError, withQuery, type Query } from '../api/client'

export interface Resource<T> {
  data: T | undefined
  error: ApiError | null
  loading: boolean
  /** When data last arrived. */
  at: number | null
  reload(): void
  /** Fetches again; settles once the answer (or its error) is in `data`/`error`. */
  refresh(): Promise<void>
}

export function useApi<T>(path: string | null, query?: Query, opts: { pollMs?: number; poll?: (data: T | undefined) => boolean } = {}): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | null; loading: boolean; at: number | null; key: string }>({ data: undefined, error: null, loading: path !== null, at: null, key: '' })
  const [tick, setTick] = useState(0)
  const key = path === null ? '' : withQuery(path, query)
  const pollRef = useRef(opts.poll)
  pollRef.current = opts.poll
  const waiters = useRef<Array<() => void>>([])
  const settled = () => {
    for (const w of waiters.current.splice(0)) w()
  }

  useEffect(() => {
    if (path === null) {
      settled()
      return
    }
    const ctrl = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const load = async () => {
      try {
        const data = await api<T>(key, { signal: ctrl.signal })
        if (ctrl.signal.aborted) return
        setState({ data, error: null, loading: false, at: Date.now(), key })
        settled()
        if (opts.pollMs && (pollRef.current?.(data) ?? true)) timer = setTimeout(() => void load(), opts.pollMs)
      } catch (err) {
        if (ctrl.signal.aborted) return
        const e = err instanceof ApiError ? err : new ApiError(0, 'error', err instanceof Error ? err.message : String(err))
        // A failed refresh keeps the rows already shown, with the error above them.
        setState((s) => ({ data: s.key === key ? s.data : undefined, error: e, loading: false, at: s.at, key }))
        settled()
        if (opts.pollMs && e.status !== 401 && e.status !== 403 && e.status !== 404) timer = setTimeout(() => void load(), opts.pollMs * 2)
      }
    }
    setState((s) => ({ ...s, loading: true, ...(s.key === key ? {} : { data: undefined, error: null }) }))
    void load()
    return () => {
      ctrl.abort()
      if (timer) clearTimeout(timer)
    }
    // opts.pollMs is part of the request's identity; poll is read through a ref.
  }, [key, tick, opts.pollMs])

  const same = state.key === key
  const refresh = () =>
    new Promise<void>((resolve) => {
      waiters.current.push(resolve)
      setTick((t) => t + 1)
    })
  return { data: same ? state.data : undefined, error: same ? state.error : null, loading: !same || state.loading, at: same ? state.at : null, reload: () => void refresh(), refresh }
}
