/**
 * The shell: finds out who is signed in, sends everyone else to /sign-in, and
 * around each page draws the header (workspace switcher, navigation for the
 * caller's role, sign out) and checks the page's role before showing it.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, hasSessionHint, SESSION_ENDED } from './api/client'
import type { Me } from './api/types'
import { canOpen, navEntries, refusal, samePageElsewhere, sectionPages } from './lib/page-access'
import { matchPath, safeNext, wsPath, type Params } from './lib/paths'
import { SignInPage } from './pages/sign-in'
import { Link, LocationProvider, navigate, useLocation } from './router'
import { PAGES, type PageDef } from './routes'
import { findWorkspace, SessionContext, WorkspaceContext, type WorkspaceScope } from './session'
import { Empty, Loading } from './ui/bits'
import { ErrorMessage } from './ui/error'

export function App() {
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  )
}

function Shell() {
  const loc = useLocation()
  // undefined: asking; null: signed out.
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [failure, setFailure] = useState<ApiError | null>(null)
  const [notice, setNotice] = useState('')

  const loadMe = async () => {
    // No CSRF cookie, no session (they are set and cleared together): go straight to sign-in, without a 401 in the console.
    if (!hasSessionHint()) {
      setMe(null)
      return
    }
    try {
      setMe(await api<Me>('/v1/auth/me'))
      setFailure(null)
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setMe(null)
      else setFailure(err instanceof ApiError ? err : new ApiError(0, 'error', String(err)))
    }
  }
  useEffect(() => {
    void loadMe()
    const ended = () => {
      setNotice('Your session ended. Sign in again to go on.')
      setMe(null)
    }
    window.addEventListener(SESSION_ENDED, ended)
    return () => window.removeEventListener(SESSION_ENDED, ended)
  }, [])

  const onSignIn = loc.path === '/sign-in'
  useEffect(() => {
    if (me === null && !onSignIn) navigate(`/sign-in?next=${encodeURIComponent(loc.href)}`, { replace: true })
    if (me && onSignIn) navigate(safeNext(loc.query.get('next')), { replace: true })
  }, [me, onSignIn])

  if (failure && me === undefined) return <main class="page narrow"><ErrorMessage error={failure} onRetry={() => void loadMe()} /></main>
  if (me === undefined) return <main class="page narrow"><Loading /></main>
  if (me === null)
    return onSignIn ? (
      <SignInPage
        notice={notice}
        onSignedIn={async () => {
          setNotice('')
          await loadMe()
        }}
      />
    ) : null
  const signOut = async () => {
    try {
      await api('/v1/auth/session', { method: 'DELETE' })
    } finally {
      setMe(null)
      navigate('/sign-in')
    }
  }
  return (
    <SessionContext.Provider value={{ me, signOut }}>
      <Routed me={me} />
    </SessionContext.Provider>
  )
}

function matchPage(path: string): { def: PageDef; params: Params } | null {
  for (const def of PAGES) {
    const params = matchPath(def.pattern, path)
    if (params) return { def, params }
  }
  return null
}

function Routed({ me }: { me: Me }) {
  const loc = useLocation()
  const found = matchPage(loc.path)
  const scope = found?.params.org && found.params.ws ? findWorkspace(me, found.params.org, found.params.ws) : null
  useEffect(() => {
    document.title = found ? `${found.def.title}${scope ? ` · ${scope.ws.name}` : ''} · svc` : 'Not found · svc'
  }, [found?.def, scope?.ws.workspace_id])

  let body
  if (!found) body = <Empty>There is no page at {loc.path}. <Link href="/">Go to your workspace</Link>.</Empty>
  else if (found.params.org && found.params.ws && !scope)
    body = (
      <Empty>
        You have no access to workspace “{found.params.ws}” of organization “{found.params.org}”, or it does not exist. <Link href="/">Go to your workspace</Link>.
      </Empty>
    )
  else if (!canOpen(found.def, scope)) body = <Empty>{refusal(found.def, scope)}</Empty>
  else {
    const Page = found.def.page
    body = <Page params={found.params} />
  }
  const section = scope ? sectionPages(PAGES, found?.def ?? null, scope) : []
  return (
    <WorkspaceContext.Provider value={scope}>
      <Header me={me} scope={scope} current={found?.def ?? null} />
      <main class="page" id="main">
        {section.length > 0 && <SectionNav pages={section} current={found!.def} scope={scope!} />}
        {body}
      </main>
    </WorkspaceContext.Provider>
  )
}

function Header({ me, scope, current }: { me: Me; scope: WorkspaceScope | null; current: PageDef | null }) {
  const nav = navEntries(PAGES, current, scope)
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Link href="/" class="brand">
        svc
      </Link>
      <WorkspaceSwitcher me={me} scope={scope} current={current} />
      {scope && (
        <nav aria-label="Workspace">
          {nav.map((e) => (
            <Link key={e.label} href={fillPattern(e.page.pattern, scope)} class={e.active ? 'active' : undefined} aria-current={e.active ? 'page' : undefined}>
              {e.label}
            </Link>
          ))}
          <a href="/docs" target="_blank" rel="noopener">
            API
          </a>
        </nav>
      )}
      <span class="spacer" />
      <span class="who" title={me.email ?? ''}>
        {me.email}
        {scope?.role && <span class="badge badge-role">{scope.role}</span>}
      </span>
      <SignOutButton />
    </header>
  )
}

const fillPattern = (pattern: string, scope: WorkspaceScope) => pattern.replace(':org', encodeURIComponent(scope.org.org_slug)).replace(':ws', encodeURIComponent(scope.ws.slug))

/** The pages of the current section (dashboards, settings) the caller may open, as a row of links above the page. */
function SectionNav({ pages, current, scope }: { pages: PageDef[]; current: PageDef; scope: WorkspaceScope }) {
  return (
    <nav class="section-nav" aria-label={current.section === 'settings' ? 'Settings' : 'Dashboards'}>
      {pages.map((p) => (
        <Link key={p.pattern} href={fillPattern(p.pattern, scope)} class={p === current ? 'active' : undefined} aria-current={p === current ? 'page' : undefined}>
          {p.tab ?? p.title}
        </Link>
      ))}
    </nav>
  )
}

function SignOutButton() {
  const [busy, setBusy] = useState(false)
  return (
    <SessionContext.Consumer>
      {(s) => (
        <button
          type="button"
          class="secondary"
          disabled={busy}
          onClick={() => {
            setBusy(true)
            void s!.signOut()
          }}
        >
          Sign out
        </button>
      )}
    </SessionContext.Consumer>
  )
}

/** Every workspace the caller can reach, by organization; switching keeps the kind of page when it can. */
function WorkspaceSwitcher({ me, scope, current }: { me: Me; scope: WorkspaceScope | null; current: PageDef | null }) {
  const options = me.memberships.filter((m) => m.workspaces.length > 0)
  if (options.length === 0) return null
  const value = scope ? `${scope.org.org_slug}/${scope.ws.slug}` : ''
  return (
    <label class="switcher">
      <span class="sr-only">Workspace</span>
      <select
        value={value}
        onChange={(e) => {
          const [org, ws] = (e.currentTarget as HTMLSelectElement).value.split('/')
          // A page without parameters of its own exists in every workspace; anything else (one trace) goes to the traces.
          const rest = current && samePageElsewhere(current.pattern) ? current.pattern.split('/:ws/')[1] : undefined
          navigate(wsPath(org!, ws!, rest))
        }}
      >
        {!scope && <option value="">Choose a workspace</option>}
        {options.map((m) => (
          <optgroup key={m.org_id} label={m.org_name || m.org_slug}>
            {m.workspaces.map((w) => (
              <option key={w.workspace_id} value={`${m.org_slug}/${w.slug}`}>
                {w.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  )
}
