/**
 * `/o/:org/w/:ws/settings/budgets` (admin): the day and month cost caps with their
 * warning thresholds (GET/PUT .../cost-budget), beside the spend so far. Budgets are
 * advisory: crossing one raises an alert, never blocks traffic.
 */
import { api } from '../../api/client'
import type { CostBudget } from '../../api/settings-types'
import { fmtUsd } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { budgetBody, budgetForm, type BudgetForm } from '../../lib/settings'
import { useWorkspace } from '../../session'
import { Loading, Meter } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ActionStatus, useAction, useStoredForm } from '../../ui/form'
import { useApi } from '../../ui/use-api'

const PERIODS = [
  { key: 'day', label: 'Today (UTC)', spend: (b: CostBudget) => b.current.day_spend_usd },
  { key: 'month', label: 'This month (UTC)', spend: (b: CostBudget) => b.current.month_spend_usd },
] as const

export function BudgetsPage() {
  const { org, ws } = useWorkspace()
  const url = `${apiWs(org.org_slug, ws.slug)}/cost-budget`
  const res = useApi<CostBudget>(url)
  const [form, edit] = useStoredForm(res.data, (d) => budgetForm(d.budgets))
  const save = useAction()
  const b = res.data
  const setField = (period: keyof BudgetForm, field: keyof BudgetForm['day'], value: string) => edit((f) => ({ ...f, [period]: { ...f[period], [field]: value } }))

  return (
    <section aria-labelledby="budgets-title">
      <div class="page-head">
        <h1 id="budgets-title">Cost budgets</h1>
      </div>
      <p class="muted">Advisory caps: crossing the warning or the cap raises an alert once per day or month; traffic is never blocked.</p>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {(!b || !form) && !res.error && <Loading />}
      {b && form && (
        <form
          class="panel form"
          aria-label="Cost budgets"
          onSubmit={(e) => {
            e.preventDefault()
            void save.run(() => api<CostBudget>(url, { method: 'PUT', body: budgetBody(form) }), 'Budgets saved.', res)
          }}
        >
          <div class="grid-2">
            {PERIODS.map((p) => {
              const cap = b.budgets[p.key]?.cap_usd
              const spend = p.spend(b)
              return (
                <fieldset key={p.key} class="budget">
                  <legend>{p.key === 'day' ? 'Daily budget' : 'Monthly budget'}</legend>
                  <p class="small">
                    {p.label}: <strong>{fmtUsd(spend)}</strong>
                    {cap !== undefined && (
                      <>
                        {' '}of {fmtUsd(cap)} <Meter value={cap > 0 ? spend / cap : null} label="share of the cap spent" />
                      </>
                    )}
                  </p>
                  <div class="fields">
                    <label>
                      Cap (USD)
                      <input
                        name={`${p.key}-cap`}
                        inputMode="decimal"
                        value={form[p.key].cap}
                        placeholder="no cap"
                        onInput={(e) => setField(p.key, 'cap', e.currentTarget.value)}
                      />
                    </label>
                    <label>
                      Warn at (% of the cap, 0–100)
                      <input
                        name={`${p.key}-warn`}
                        inputMode="decimal"
                        value={form[p.key].warnPct}
                        onInput={(e) => setField(p.key, 'warnPct', e.currentTarget.value)}
                      />
                    </label>
                  </div>
                </fieldset>
              )
            })}
          </div>
          <p class="muted small">Leave a cap empty to remove it.</p>
          <div class="actions">
            <button type="submit" disabled={save.busy}>
              Save budgets
            </button>
          </div>
          <ActionStatus action={save} />
        </form>
      )}
    </section>
  )
}
