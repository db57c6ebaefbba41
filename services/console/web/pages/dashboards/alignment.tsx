/**
 * `/o/:org/w/:ws/dashboards/alignment`: the workspace's alignment flags, newest first
 * (GET .../alignment/flags, offset paging, unclear ones on request), each linking to
 * its trace, and the flags per end user (GET .../alignment/by-user). Page and filter
 * live in the URL.
 */
import type { FlagsByUser, UserFlags } from '../../api/dashboard-types'
import type { AlignmentFlag, AlignmentFlags } from '../../api/types'
import { offsetPaging } from '../../lib/dashboards'
import { fmtPercent, fmtTime } from '../../lib/format'
import { apiWs, tracePath, wsPath } from '../../lib/paths'
import { Link, useLocation } from '../../router'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'
import { useSetQuery } from '../../ui/use-query-param'

const LIMIT = 50
const severityTone = (s: string) => (s === 'high' ? 'bad' : s === 'medium' ? 'warn' : 'ok')

export function AlignmentFlagsPage() {
  const { org, ws, can } = useWorkspace()
  const base = apiWs(org.org_slug, ws.slug)
  const loc = useLocation()
  const setQuery = useSetQuery()
  const offset = Math.max(0, Math.floor(Number(loc.query.get('offset') ?? 0)) || 0)
  const unclear = loc.query.get('unclear') === '1'
  const flags = useApi<AlignmentFlags>(`${base}/alignment/flags`, { limit: LIMIT, offset, include_unclear: unclear })
  const users = useApi<FlagsByUser>(`${base}/alignment/by-user`)
  const paging = offsetPaging(offset, LIMIT, flags.data?.total ?? 0)

  return (
    <section aria-labelledby="alignment-title">
      <div class="page-head">
        <h1 id="alignment-title">Alignment flags</h1>
        <label class="check">
          <input type="checkbox" checked={unclear} onChange={(e) => setQuery({ unclear: e.currentTarget.checked ? '1' : null, offset: null })} />
          Include unclear (low-confidence) flags
        </label>
      </div>
      <p class="muted small">
        Outputs the alignment engine found at odds with the workspace’s policy.{' '}
        {can('admin') ? <Link href={wsPath(org.org_slug, ws.slug, 'settings/alignment')}>Edit the policy and its documents</Link> : 'An admin sets the policy in Settings.'}
      </p>
      {flags.error && <ErrorMessage error={flags.error} onRetry={flags.reload} />}
      {!flags.data && !flags.error && <Loading />}
      {flags.data && (
        <>
          <DataTable<AlignmentFlag>
            caption="Alignment flags, newest first"
            testId="flags-table"
            rows={flags.data.flags}
            rowKey={(f) => f.flag_id}
            empty="No flags: the policy is off, nothing diverged from it, or the engine has not run yet."
            columns={[
              { header: 'Flagged', cell: (f) => <Link href={tracePath(org.org_slug, ws.slug, f.trace_id, { tab: 'alignment' })}>{fmtTime(f.created_at)}</Link> },
              { header: 'Severity', cell: (f) => <Badge tone={severityTone(f.severity)}>{f.severity}{f.unclear ? ' · unclear' : ''}</Badge> },
              { header: 'Agent output', cell: (f) => <span class="clamp">{f.agent_output}</span> },
              { header: 'Policy', cell: (f) => <span class="small clamp">{f.policy_excerpt}</span>, wide: true },
              { header: 'Confidence', cell: (f) => fmtPercent(f.confidence), align: 'right', wide: true },
            ]}
          />
          <div class="pager">
            <button type="button" class="secondary" disabled={paging.prev === null} onClick={() => setQuery({ offset: paging.prev ? String(paging.prev) : null })}>
              ← Newer
            </button>
            <button type="button" class="secondary" disabled={paging.next === null} onClick={() => setQuery({ offset: String(paging.next) })}>
              Older →
            </button>
            <span class="muted">
              Page {paging.page} of {paging.pages} · {flags.data.total} flags
            </span>
          </div>
        </>
      )}
      <h2>By end user</h2>
      {users.error && <ErrorMessage error={users.error} onRetry={users.reload} />}
      {users.data && (
        <DataTable<UserFlags>
          caption="Confident flags per end user"
          rows={users.data.users}
          rowKey={(u) => u.end_user}
          empty={
            <>
              No end users: traces name theirs in the <code>svc.end_user</code> span attribute.
            </>
          }
          columns={[
            { header: 'End user', cell: (u) => u.end_user },
            { header: 'Flags', cell: (u) => u.flags, align: 'right' },
            { header: 'Traces', cell: (u) => u.traces, align: 'right', wide: true },
            { header: 'High / medium / low', cell: (u) => `${u.high} / ${u.medium} / ${u.low}`, align: 'right' },
            { header: 'Last flag', cell: (u) => fmtTime(u.last_flag_at), wide: true },
          ]}
        />
      )}
    </section>
  )
}
