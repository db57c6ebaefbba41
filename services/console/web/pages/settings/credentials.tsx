/**
 * `/o/:org/w/:ws/settings/credentials` (dev in the organization): the organization's
 * LLM credential (GET/PUT/DELETE .../llm-credentials, PATCH .../fallback) and search
 * credential (GET/PUT/DELETE .../search-credentials). Keys are write-only: the API
 * answers their last four characters, and so does this page. A stored key is bound to
 * its provider and endpoint: changing either needs the key again (the API's 422
 * says so, shown as it comes).
 */
import { useState } from 'preact/hooks'
import { api } from '../../api/client'
import type { LlmCredential, SearchCredential } from '../../api/settings-types'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, ConfirmButton, useAction, useStoredForm } from '../../ui/form'
import { useApi } from '../../ui/use-api'

export function CredentialsPage() {
  const { org } = useWorkspace()
  const base = `/v1/observ/orgs/${encodeURIComponent(org.org_slug)}`
  return (
    <section aria-labelledby="credentials-title">
      <div class="page-head">
        <h1 id="credentials-title">Credentials of {org.org_name || org.org_slug}</h1>
      </div>
      <p class="muted">Shared by every workspace of the organization. Keys are encrypted at rest and never readable back: only their last four characters show.</p>
      <LlmForm url={`${base}/llm-credentials`} />
      <SearchForm url={`${base}/search-credentials`} />
    </section>
  )
}

function LlmForm({ url }: { url: string }) {
  const res = useApi<LlmCredential>(url)
  const save = useAction()
  const c = res.data
  // The key's last four are part of what is stored: a new key empties the key field.
  const [form, edit] = useStoredForm(c, (s) => ({ provider: s.provider, model_id: s.model_id, api_key: '', api_base: s.api_base ?? '', last4: s.api_key_last4 }))
  const f = form ?? { provider: '', model_id: '', api_key: '', api_base: '', last4: null }
  const moved = !!c?.configured && !!c.api_key_last4 && (f.provider.trim().toLowerCase() !== c.provider || (f.api_base.trim() || null) !== c.api_base)
  const field = (name: 'provider' | 'model_id' | 'api_key' | 'api_base') => (e: { currentTarget: HTMLInputElement }) => {
    const value = e.currentTarget.value
    edit((prev) => ({ ...prev, [name]: value }))
  }

  return (
    <div class="panel form" role="group" aria-labelledby="llm-title">
      <h2 id="llm-title">LLM credential</h2>
      <p class="muted small">Used by the engines that call a model (LLM analysis mode, the external cross-check). Any provider of the gateway library is accepted.</p>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!c && !res.error && <Loading />}
      {c && (
        <>
          <p data-testid="llm-status">
            {c.configured ? (
              <>
                <Badge tone="good">configured</Badge> {c.provider} · {c.model_id}
                {c.api_key_last4 ? <span class="mono"> · key …{c.api_key_last4}</span> : ' · no key'}
                {c.api_base && <span class="mono"> · {c.api_base}</span>}
              </>
            ) : (
              <Badge tone="none">not configured</Badge>
            )}
          </p>
          <form
            onSubmit={(e) => {
              e.preventDefault()
              const body = { provider: f.provider.trim(), model_id: f.model_id.trim(), api_key: f.api_key || null, api_base: f.api_base.trim() || null }
              void save.run(() => api<LlmCredential>(url, { method: 'PUT', body }), 'LLM credential saved.', res)
            }}
          >
            <div class="fields">
              <label>
                Provider
                <input name="provider" required value={f.provider} onInput={field('provider')} placeholder="e.g. openai, anthropic" />
              </label>
              <label>
                Model
                <input name="model_id" required value={f.model_id} onInput={field('model_id')} placeholder="e.g. gpt-4o-mini" />
              </label>
              <label>
                API key
                <input
                  name="api_key"
                  type="password"
                  autoComplete="off"
                  value={f.api_key}
                  onInput={field('api_key')}
                  placeholder={c.api_key_last4 ? `leave empty to keep …${c.api_key_last4}` : 'none (a keyless local server)'}
                />
              </label>
              <label>
                Endpoint (api_base)
                <input name="api_base" type="url" value={f.api_base} onInput={field('api_base')} placeholder="the provider's own" />
              </label>
            </div>
            {moved && !f.api_key && <p class="warning small">The stored key is bound to its provider and endpoint: enter the key again to move it.</p>}
            <div class="actions">
              <button type="submit" disabled={save.busy}>
                Save
              </button>
              {c.configured && <ConfirmButton label="Delete" confirm="Delete the LLM credential? Engines that need it stop producing new results." disabled={save.busy} onConfirm={() => void save.run(() => api(url, { method: 'DELETE' }), 'LLM credential deleted.', res)} />}
            </div>
          </form>
          {c.configured && (
            <label class="check spaced">
              <input
                type="checkbox"
                name="fallback"
                checked={c.fallback_enabled}
                disabled={save.busy}
                onChange={(e) => {
                  const enabled = e.currentTarget.checked
                  void save.run(() => api<LlmCredential>(`${url}/fallback`, { method: 'PATCH', body: { enabled } }), `Fallback to the platform model is ${enabled ? 'on' : 'off'}.`, res)
                }}
              />
              Fall back to the platform’s default model when this provider cannot be reached
            </label>
          )}
          <ActionStatus action={save} />
        </>
      )}
    </div>
  )
}

function SearchForm({ url }: { url: string }) {
  const res = useApi<SearchCredential>(url)
  const save = useAction()
  const [key, setKey] = useState('')
  const c = res.data
  return (
    <div class="panel form" role="group" aria-labelledby="search-title">
      <h2 id="search-title">Search credential</h2>
      <p class="muted small">Needed to broaden sources to the open web and for the external cross-check; without it both stay on the closed knowledge base.</p>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!c && !res.error && <Loading />}
      {c && (
        <>
          <p data-testid="search-status">
            {c.configured ? (
              <>
                <Badge tone="good">configured</Badge> <span class="mono">key …{c.api_key_last4}</span>
              </>
            ) : (
              <Badge tone="none">not configured</Badge>
            )}
          </p>
          <form
            onSubmit={(e) => {
              e.preventDefault()
              void save.run(() => api<SearchCredential>(url, { method: 'PUT', body: { api_key: key } }), 'Search credential saved.', res).then((r) => r && setKey(''))
            }}
          >
            <div class="fields">
              <label>
                {c.configured ? 'New API key' : 'API key'}
                <input name="search_key" type="password" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
              </label>
            </div>
            <div class="actions">
              <button type="submit" disabled={save.busy}>
                Save
              </button>
              {c.configured && <ConfirmButton label="Delete" confirm="Delete the search credential?" disabled={save.busy} onConfirm={() => void save.run(() => api(url, { method: 'DELETE' }), 'Search credential deleted.', res)} />}
            </div>
          </form>
          <ActionStatus action={save} />
        </>
      )}
    </div>
  )
}
