/**
 * `/o/:org/w/:ws/dashboards/sources`: every source the workspace's traces used
 * (GET .../sources), most cited first, with its learned authority prior.
 */
import type { SourceList, SourceRow } from '../../api/dashboard-types'
import { topRows } from '../../lib/dashboards'
import { fmtCount, fmtTime } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { useWorkspace } from '../../session'
import { BarChart } from '../../ui/bar-chart'
import { Loading, Meter } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ChartFigure } from '../../ui/figure'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'

const KIND_LABEL: Record<string, string> = { internal_kb: 'knowledge base', web: 'web', tool: 'tool', citation: 'citation' }

export function SourcesPage() {
  const { org, ws } = useWorkspace()
  const res = useApi<SourceList>(`${apiWs(org.org_slug, ws.slug)}/sources`)
  const rows = res.data?.sources ?? []
  return (
    <section aria-labelledby="sources-title">
      <div class="page-head">
        <h1 id="sources-title">Sources</h1>
      </div>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!res.data && !res.error && <Loading />}
      {res.data && (
        <>
          <p class="muted small">
            The authority prior starts at 0.5 and learns from the sources engine’s verdicts on the claims each source backed. Citations count the traces that used the source.
          </p>
          {rows.length > 0 && (
            <ChartFigure<SourceRow>
              title="Most cited sources"
              rows={rows}
              rowKey={(s) => `${s.kind}:${s.domain}`}
              columns={[
                { header: 'Source', cell: (s) => s.domain },
                { header: 'Citations', cell: (s) => fmtCount(s.citation_count), align: 'right' },
              ]}
            >
              <BarChart title="Most cited sources" series={['Citations']} format={fmtCount} rows={topRows(rows, (s) => s.citation_count, (s) => s.domain, 8).map((r) => ({ label: r.label, values: [r.value] }))} />
            </ChartFigure>
          )}
          <DataTable<SourceRow>
            caption="Sources, most cited first"
            testId="sources-table"
            rows={rows}
            rowKey={(s) => `${s.kind}:${s.domain}`}
            empty="No sources yet: they appear once traces retrieve documents, call tools or cite pages, and the sources engine has run."
            columns={[
              { header: 'Source', cell: (s) => <span class="mono">{s.domain}</span> },
              { header: 'Kind', cell: (s) => KIND_LABEL[s.kind] ?? s.kind, wide: true },
              { header: 'Authority prior', cell: (s) => <Meter value={s.authority_prior} label="learned authority, 0 to 1" /> },
              { header: 'Citations', cell: (s) => fmtCount(s.citation_count), align: 'right' },
              { header: 'Last seen', cell: (s) => fmtTime(s.last_seen), wide: true },
            ]}
          />
        </>
      )}
    </section>
  )
}
