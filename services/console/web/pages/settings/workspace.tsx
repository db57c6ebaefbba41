/**
 * `/o/:org/w/:ws/settings/workspace` (admin): the workspace's three settings, each
 * GET and PATCH of its own (.../settings/capture-text, broaden-sources,
 * cost-provider), each saved on its own with the API's answer shown back.
 */
import type { ComponentChildren } from 'preact'
import { api } from '../../api/client'
import type { BroadenSources, CaptureText, CostProvider } from '../../api/settings-types'
import { apiWs } from '../../lib/paths'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, useAction, useStoredForm } from '../../ui/form'
import { useApi, type Resource } from '../../ui/use-api'

/** A setting's form: the stored value, the one being edited, a save that PATCHes exactly its field. */
function useSetting<T, V>(res: Resource<T>, read: (t: T) => V): [V | undefined, (v: V) => void] {
  const [value, edit] = useStoredForm(res.data, read)
  return [value, (v) => edit(() => v)]
}

export function WorkspaceSettingsPage() {
  const { org, ws } = useWorkspace()
  const base = `${apiWs(org.org_slug, ws.slug)}/settings`
  return (
    <section aria-labelledby="ws-settings-title">
      <div class="page-head">
        <h1 id="ws-settings-title">Workspace settings</h1>
      </div>
      <CaptureTextForm url={`${base}/capture-text`} />
      <BroadenSourcesForm url={`${base}/broaden-sources`} />
      <CostProviderForm url={`${base}/cost-provider`} />
    </section>
  )
}

/**
 * What every workspace setting's form shares: its title and explanation, the stored
 * value loading (or its error), the fields once it is there, one Save that PATCHes
 * exactly its field and is off while nothing changed, and the API's answer.
 */
function SettingForm<T, V>(props: {
  id: string
  title: string
  about: string
  url: string
  /** The setting's value in the API's answer. */
  read(d: T): V
  /** Whether the edited value is the stored one (default: equal to read(d)). */
  unchanged?(v: V, d: T): boolean
  /** The PATCH body for the edited value, and what its answer is shown as. */
  body(v: V): Record<string, unknown>
  done(r: T): string
  /** The fields, given the edited value, its setter and the stored answer once both are there. */
  children(value: V, set: (v: V) => void, d: T): ComponentChildren
}) {
  const res = useApi<T>(props.url)
  const [value, set] = useSetting(res, props.read)
  const save = useAction()
  const d = res.data
  const ready = value !== undefined && d !== undefined
  return (
    <form
      class="panel form"
      aria-labelledby={props.id}
      onSubmit={(e) => {
        e.preventDefault()
        if (ready) void save.run(() => api<T>(props.url, { method: 'PATCH', body: props.body(value) }), props.done, res)
      }}
    >
      <h2 id={props.id}>{props.title}</h2>
      <p class="muted small">{props.about}</p>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!ready ? (
        !res.error && <Loading />
      ) : (
        <>
          {props.children(value, set, d)}
          <div class="actions">
            <button type="submit" disabled={save.busy || (props.unchanged ? props.unchanged(value, d) : value === props.read(d))}>
              Save
            </button>
          </div>
        </>
      )}
      <ActionStatus action={save} />
    </form>
  )
}

function CaptureTextForm({ url }: { url: string }) {
  return (
    <SettingForm<CaptureText, boolean>
      id="capture-title"
      title="Capture prompt and completion text"
      about="Off: ingest removes prompt and completion text from every span before it is stored, and the SDKs do not send it. A change applies to new spans; stored text stays until retention removes it."
      url={url}
      read={(d) => d.capture_text}
      body={(on) => ({ capture_text: on })}
      done={(d) => `Text capture is ${d.capture_text ? 'on' : 'off'}.`}
    >
      {(on, setOn) => (
        <label class="check">
          <input type="checkbox" name="capture_text" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} />
          Store prompt and completion text
        </label>
      )}
    </SettingForm>
  )
}

function BroadenSourcesForm({ url }: { url: string }) {
  return (
    <SettingForm<BroadenSources, boolean>
      id="broaden-title"
      title="Broaden sources to the open web"
      about="Lets the sources engine verify claims against the open web. It needs the organization’s search credential; without it the engine stays on the closed knowledge base."
      url={url}
      read={(d) => d.broaden_sources}
      body={(on) => ({ broaden_sources: on })}
      done={(r) => `Sources are checked against ${r.mode === 'open_web' ? 'the open web' : 'the closed knowledge base'}.`}
    >
      {(on, setOn, d) => (
        <>
          <label class="check">
            <input type="checkbox" name="broaden_sources" checked={on} onChange={(e) => setOn(e.currentTarget.checked)} />
            Verify against the open web
          </label>
          <p class="small">
            Now: <Badge tone={d.mode === 'open_web' ? 'good' : 'none'}>{d.mode === 'open_web' ? 'open web' : 'closed knowledge base'}</Badge>
            {!d.search_credential_configured && <span class="muted"> · no search credential (Settings → Credentials)</span>}
          </p>
        </>
      )}
    </SettingForm>
  )
}

function CostProviderForm({ url }: { url: string }) {
  return (
    <SettingForm<CostProvider, string>
      id="cost-provider-title"
      title="Cost provider"
      about="Whose price list costs are computed with. Empty: the deployment default. A change applies to future costs; past figures keep the prices they were computed with."
      url={url}
      read={(d) => d.cost_provider}
      unchanged={(value, d) => value.trim().toLowerCase() === d.cost_provider}
      body={(value) => ({ cost_provider: value.trim() })}
      done={(r) => `Costs are priced with ${r.effective_provider}.`}
    >
      {(value, setValue, d) => (
        <>
          <div class="fields">
            <label>
              Provider
              <input name="cost_provider" maxLength={64} value={value} placeholder={`default (${d.effective_provider})`} onInput={(e) => setValue(e.currentTarget.value)} />
            </label>
          </div>
          <p class="small">
            In effect: <strong>{d.effective_provider}</strong>
            {!d.cost_provider && <span class="muted"> (the deployment default)</span>}
          </p>
        </>
      )}
    </SettingForm>
  )
}
