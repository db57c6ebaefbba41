/**
 * `/sign-in`: email and password to POST /v1/auth/session, which sets the
 * session cookie (httpOnly: no script ever sees the token) and answers the CSRF
 * token the API wants back on writes, also left in a readable cookie.
 */
import { useState } from 'preact/hooks'
import { api, ApiError } from '../api/client'
import type { Session } from '../api/types'
import { ErrorMessage } from '../ui/error'

export function SignInPage({ onSignedIn, notice }: { onSignedIn(): Promise<void>; notice: string }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  document.title = 'Sign in · svc'

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await api<Session>('/v1/auth/session', { method: 'POST', body: { email, password } })
      await onSignedIn()
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'error', String(err)))
      setBusy(false)
    }
  }

  return (
    <main class="page sign-in">
      <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to svc</h1>
        {notice && <p class="notice">{notice}</p>}
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {error && <ErrorMessage error={error} />}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          The first start of the service prints the owner login (also in <code>.svc-data/init-credentials.json</code>).
        </p>
      </form>
    </main>
  )
}
