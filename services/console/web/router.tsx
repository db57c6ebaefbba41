/**
 * A small history router: the current location as state, links that navigate
 * without reloading, and the page table (routes.tsx) matched in order.
 */
import { createContext, type AnchorHTMLAttributes, type ComponentChildren } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'

export interface Location {
  path: string
  query: URLSearchParams
  /** path + search, for links back here. */
  href: string
}

const read = (): Location => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search), href: window.location.pathname + window.location.search })

const LocationContext = createContext<Location>(read())
const CHANGE = 'svc:navigate'

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return
  if (opts.replace) window.history.replaceState(null, '', to)
  else window.history.pushState(null, '', to)
  window.dispatchEvent(new Event(CHANGE))
}

export function LocationProvider({ children }: { children: ComponentChildren }) {
  const [loc, setLoc] = useState(read)
  useEffect(() => {
    const update = () => setLoc(read())
    window.addEventListener('popstate', update)
    window.addEventListener(CHANGE, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(CHANGE, update)
    }
  }, [])
  return <LocationContext.Provider value={loc}>{children}</LocationContext.Provider>
}

export const useLocation = () => useContext(LocationContext)

/** A link that navigates in place (a modified click still opens a new tab as usual). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, onClick, ...rest } = props
  return (
    <a
      href={href}
      {...rest}
      onClick={(e) => {
        if (typeof onClick === 'function') onClick.call(e.currentTarget, e)
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
        e.preventDefault()
        navigate(href)
      }}
    />
  )
}
