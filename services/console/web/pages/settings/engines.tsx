/**
 * `/o/:org/w/:ws/settings/engines` (admin): the nine engine switches
 * (GET/PUT .../engine-settings). The form edits the workspace's own switches; an
 * engine its organization holds off is marked so (it stays off whatever this says).
 */
import { api } from '../../api/client'
import type { EngineSettings } from '../../api/settings-types'
import { apiWs } from '../../lib/paths'
import { ENGINES, ownSwitches } from '../../lib/settings'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, useAction, useStoredForm } from '../../ui/form'
import { useApi } from '../../ui/use-api'

export function EnginesPage() {
  const { org, ws } = useWorkspace()
  const url = `${apiWs(org.org_slug, ws.slug)}/engine-settings`
  const res = useApi<EngineSettings>(url)
  const [own, edit] = useStoredForm(res.data, ownSwitches)
  const save = useAction()
  const stored = res.data ? ownSwitches(res.data) : null
  const changed = !!own && !!stored && ENGINES.some((e) => own[e.name] !== stored[e.name])

  return (
    <section aria-labelledby="engines-title">
      <div class="page-head">
        <h1 id="engines-title">Engines</h1>
      </div>
      <p class="muted">An engine runs only when it is on here and its organization allows it. Turning one off stops its compute and cost; results already computed stay.</p>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!own && !res.error && <Loading />}
      {own && res.data && (
        <form
          class="panel form"
          aria-label="Engine switches"
          onSubmit={(e) => {
            e.preventDefault()
            void save.run(() => api<EngineSettings>(url, { method: 'PUT', body: { engines: own } }), 'Engine settings saved.', res)
          }}
        >
          <fieldset class="switches">
            <legend class="sr-only">Engines</legend>
            {ENGINES.map((e) => {
              const gated = res.data!.gated_by_organization.includes(e.name)
              return (
                <label key={e.name} class="switch">
                  <input type="checkbox" name={e.name} checked={own[e.name]} onChange={(ev) => {
                      const on = ev.currentTarget.checked
                      edit((o) => ({ ...o, [e.name]: on }))
                    }} />
                  <span>
                    <strong>{e.label}</strong> {gated && <Badge tone="warn">held off by the organization</Badge>}
                    <span class="muted small block">{e.does}</span>
                  </span>
                </label>
              )
            })}
          </fieldset>
          <div class="actions">
            <button type="submit" disabled={save.busy || !changed}>
              Save
            </button>
            {changed && (
              <button type="button" class="secondary" onClick={() => stored && edit(() => stored)}>
                Undo changes
              </button>
            )}
          </div>
          <ActionStatus action={save} />
        </form>
      )}
    </section>
  )
}
