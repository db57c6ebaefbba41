/**
 * `/o/:org/w/:ws/settings/retention` (admin): how long the workspace keeps its data.
 * A change that shortens the effective window deletes data, so it goes in two steps,
 * as the API requires: POST .../retention:preview shows what would go and returns a
 * confirm token, then PUT .../retention with that token. A longer window is saved at
 * once. A stale preview (data arrived since: 409) asks for a new preview.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api/client'
import type { Retention, RetentionPreview } from '../../api/settings-types'
import { fmtCount, fmtTime } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { hoursLabel, RETENTION_CHOICES, retentionPlan, type RetentionChoice } from '../../lib/settings'
import { useWorkspace } from '../../session'
import { Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, useAction } from '../../ui/form'
import { useApi } from '../../ui/use-api'

export function RetentionPage() {
  const { org, ws } = useWorkspace()
  const base = apiWs(org.org_slug, ws.slug)
  const res = useApi<Retention>(`${base}/retention`)
  // What the user picked; until then the saved window. Not reset from a reload, which
  // lands after a save and must not undo a choice made in the meantime.
  const [picked, setChoice] = useState<RetentionChoice | null>(null)
  const [preview, setPreview] = useState<RetentionPreview | null>(null)
  const step = useAction()
  const r = res.data
  useEffect(() => setPreview(null), [picked])

  if (res.error) return <ErrorMessage error={res.error} onRetry={res.reload} />
  if (!r) return <Loading />
  const choice: RetentionChoice = picked ?? (r.enabled ? r.hours : 'default')
  const plan = retentionPlan(r, choice)

  const put = async (token?: string) => {
    const body = { ...plan.body, ...(token ? { confirm_token: token } : {}) }
    const out = await step.run(() => api<Retention>(`${base}/retention`, { method: 'PUT', body }), (n) => `Data is now kept for ${hoursLabel(n.effective_hours)}.`)
    if (out) {
      setPreview(null)
      res.reload()
    } else if (token) setPreview(null) // a stale or refused token: preview again
  }
  const runPreview = async () => {
    const p = await step.run(() => api<RetentionPreview>(`${base}/retention:preview`, { method: 'POST', body: { hours: plan.after } }))
    if (p) setPreview(p)
  }

  return (
    <section aria-labelledby="retention-title">
      <div class="page-head">
        <h1 id="retention-title">Data retention</h1>
      </div>
      <dl class="summary tiles" data-testid="retention-current">
        <div><dt>Kept for</dt><dd>{hoursLabel(r.effective_hours)}</dd></div>
        <div><dt>Window</dt><dd>{r.enabled ? 'this workspace’s own' : `the deployment default (${hoursLabel(r.default_hours)})`}</dd></div>
        <div><dt>Changed</dt><dd>{r.updated_at ? fmtTime(r.updated_at) : 'never'}</dd></div>
      </dl>
      {r.warning && <p class="warning">{r.warning}</p>}
      <form
        class="panel form"
        aria-labelledby="retention-change"
        onSubmit={(e) => {
          e.preventDefault()
          void (plan.shortens ? runPreview() : put())
        }}
      >
        <h2 id="retention-change">Change the window</h2>
        <div class="fields">
          <label>
            Keep data for
            <select name="retention" value={String(choice)} onChange={(e) => setChoice(e.currentTarget.value === 'default' ? 'default' : Number(e.currentTarget.value))}>
              <option value="default">the deployment default ({hoursLabel(r.default_hours)})</option>
              {RETENTION_CHOICES.map((c) => (
                <option key={c.hours} value={String(c.hours)}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        {plan.after < 48 && <p class="warning small">Below 48 hours, data expires before the daily roll-ups (drift, correlation, savings) run: those panels thin out.</p>}
        {plan.shortens && !preview && <p class="small">This shortens retention from {hoursLabel(r.effective_hours)} to {hoursLabel(plan.after)}: older traces will be deleted. Preview what goes first.</p>}
        {!preview && (
          <div class="actions">
            <button type="submit" disabled={step.busy || plan.unchanged}>
              {plan.shortens ? 'Preview deletion' : 'Save'}
            </button>
          </div>
        )}
        {preview && (
          <div class="confirm-box" role="group" aria-labelledby="preview-title" data-testid="retention-preview">
            <h3 id="preview-title">Keeping {hoursLabel(preview.hours)} deletes</h3>
            <p>
              <strong>{fmtCount(preview.spans_to_delete)}</strong> spans in <strong>{fmtCount(preview.traces_affected)}</strong> traces
              {preview.oldest_deleted ? `, the oldest from ${fmtTime(preview.oldest_deleted)}` : ''}. This cannot be undone.
            </p>
            <div class="actions">
              <button type="button" class="danger" disabled={step.busy} onClick={() => void put(preview.confirm_token)}>
                Confirm: keep {hoursLabel(preview.hours)}
              </button>
              <button type="button" class="secondary" onClick={() => setPreview(null)}>
                Cancel
              </button>
            </div>
          </div>
        )}
        <ActionStatus action={step} />
      </form>
    </section>
  )
}
