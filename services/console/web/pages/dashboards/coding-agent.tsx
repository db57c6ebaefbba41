/**
 * `/o/:org/w/:ws/dashboards/coding-agent`: coding agents' use per employee
 * (GET .../coding-agent/usage?period=), their recent commits (.../commits) and the
 * files they edit most (.../top-files?period=).
 */
import type { CodingUsage, Commit, Commits, EmployeeUsage, TopFile, TopFiles } from '../../api/dashboard-types'
import { topRows } from '../../lib/dashboards'
import { fmtCount, fmtDuration, fmtTime, fmtUsd } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { useWorkspace } from '../../session'
import { BarChart } from '../../ui/bar-chart'
import { Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ChartFigure } from '../../ui/figure'
import { PeriodSelect, type Period } from '../../ui/form'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'
import { useQueryParam } from '../../ui/use-query-param'

const PERIODS = ['day', 'week', 'month'] as const
const who = (e: string | null) => e ?? '(unnamed)'
const lines = (added: number, removed: number) => (
  <span class="mono small">
    <span class="good">+{fmtCount(added)}</span> <span class="bad">−{fmtCount(removed)}</span>
  </span>
)

export function CodingAgentPage() {
  const { org, ws } = useWorkspace()
  const base = `${apiWs(org.org_slug, ws.slug)}/coding-agent`
  const [period, setPeriod] = useQueryParam<Period>('period', PERIODS, 'week')
  const usage = useApi<CodingUsage>(`${base}/usage`, { period })
  const commits = useApi<Commits>(`${base}/commits`, { limit: 50 })
  const files = useApi<TopFiles>(`${base}/top-files`, { period, limit: 50 })
  const t = usage.data?.totals

  return (
    <section aria-labelledby="coding-title">
      <div class="page-head">
        <h1 id="coding-title">Coding agents</h1>
        <PeriodSelect value={period} onChange={setPeriod} />
      </div>
      {usage.error && <ErrorMessage error={usage.error} onRetry={usage.reload} />}
      {!usage.data && !usage.error && <Loading />}
      {t && usage.data && (
        <>
          <dl class="summary tiles" data-testid="coding-totals">
            <div><dt>Cost</dt><dd>{fmtUsd(t.cost_usd)}</dd></div>
            <div><dt>Employees</dt><dd>{fmtCount(t.employees)}</dd></div>
            <div><dt>Sessions</dt><dd>{fmtCount(t.sessions)}</dd></div>
            <div><dt>Requests</dt><dd>{fmtCount(t.api_requests)}</dd></div>
            <div><dt>Lines</dt><dd>{lines(t.lines_added, t.lines_removed)}</dd></div>
            <div><dt>Commits / PRs</dt><dd>{fmtCount(t.commits)} / {fmtCount(t.pull_requests)}</dd></div>
            <div><dt>Active time</dt><dd>{t.active_time_seconds > 0 ? fmtDuration(t.active_time_seconds * 1000) : '0 s'}</dd></div>
          </dl>
          <ChartFigure<EmployeeUsage>
            title="Cost by employee"
            rows={usage.data.employees}
            rowKey={(e) => who(e.employee)}
            columns={[
              { header: 'Employee', cell: (e) => who(e.employee) },
              { header: 'Sessions', cell: (e) => fmtCount(e.sessions), align: 'right' },
              { header: 'Requests', cell: (e) => fmtCount(e.api_requests), align: 'right' },
              { header: 'Tokens in / out', cell: (e) => `${fmtCount(e.input_tokens)} / ${fmtCount(e.output_tokens)}`, align: 'right', wide: true },
              { header: 'Lines', cell: (e) => lines(e.lines_added, e.lines_removed), align: 'right' },
              { header: 'Commits', cell: (e) => fmtCount(e.commits), align: 'right', wide: true },
              { header: 'Cost', cell: (e) => fmtUsd(e.cost_usd), align: 'right' },
              { header: 'Last active', cell: (e) => (e.last_activity_at ? fmtTime(e.last_activity_at) : '–'), wide: true },
            ]}
          >
            <BarChart title="Cost by employee" series={['Cost']} format={fmtUsd} rows={topRows(usage.data.employees, (e) => e.cost_usd, (e) => who(e.employee)).map((r) => ({ label: r.label, values: [r.value] }))} />
          </ChartFigure>
          <h2>Employees</h2>
          <DataTable<EmployeeUsage>
            caption="Usage per employee, highest cost first"
            testId="coding-employees"
            rows={usage.data.employees}
            rowKey={(e) => who(e.employee)}
            empty="No coding-agent telemetry in this period. Point Claude Code, Codex or the activity endpoint at ingest’s /v1/otlp/coding-agent/v1/…"
            columns={[
              { header: 'Employee', cell: (e) => who(e.employee) },
              { header: 'Sessions', cell: (e) => fmtCount(e.sessions), align: 'right' },
              { header: 'Prompts', cell: (e) => fmtCount(e.prompts), align: 'right', wide: true },
              { header: 'Tool calls', cell: (e) => fmtCount(e.tool_calls), align: 'right', wide: true },
              { header: 'Lines', cell: (e) => lines(e.lines_added, e.lines_removed), align: 'right' },
              { header: 'PRs', cell: (e) => fmtCount(e.pull_requests), align: 'right', wide: true },
              { header: 'Cost', cell: (e) => fmtUsd(e.cost_usd), align: 'right' },
            ]}
          />
        </>
      )}

      <h2>Recent commits</h2>
      {commits.error && <ErrorMessage error={commits.error} onRetry={commits.reload} />}
      {commits.data && (
        <DataTable<Commit>
          caption="Commits authored by coding agents, newest first"
          testId="coding-commits"
          rows={commits.data.commits}
          rowKey={(c) => c.commit_id}
          empty="No commits reported yet."
          columns={[
            { header: 'When', cell: (c) => fmtTime(c.committed_at) },
            { header: 'Commit', cell: (c) => <span class="mono" title={c.commit_id}>{c.commit_id.slice(0, 8)}</span> },
            { header: 'Repository', cell: (c) => `${c.repository ?? '–'}${c.branch ? ` @ ${c.branch}` : ''}`, wide: true },
            { header: 'Message', cell: (c) => <span class="clamp">{c.message ?? ''}</span> },
            { header: 'By', cell: (c) => `${who(c.employee)} · ${c.agent}`, wide: true },
            { header: 'Files', cell: (c) => <span title={c.files.join('\n')}>{c.files.length}</span>, align: 'right', wide: true },
            { header: 'Lines', cell: (c) => lines(c.lines_added, c.lines_removed), align: 'right' },
          ]}
        />
      )}

      <h2>Most edited files</h2>
      {files.error && <ErrorMessage error={files.error} onRetry={files.reload} />}
      {files.data && (
        <DataTable<TopFile>
          caption="Files by edits in the period"
          testId="coding-files"
          rows={files.data.files}
          rowKey={(f) => f.file_path}
          empty="No file edits in this period."
          columns={[
            { header: 'File', cell: (f) => <span class="mono small">{f.file_path}</span> },
            { header: 'Edits', cell: (f) => fmtCount(f.edits), align: 'right' },
            { header: 'Commits', cell: (f) => fmtCount(f.commits), align: 'right', wide: true },
            { header: 'Employees', cell: (f) => fmtCount(f.employees), align: 'right', wide: true },
            { header: 'Lines', cell: (f) => lines(f.lines_added, f.lines_removed), align: 'right' },
            { header: 'Last edit', cell: (f) => fmtTime(f.last_edited_at), wide: true },
          ]}
        />
      )}
    </section>
  )
}
