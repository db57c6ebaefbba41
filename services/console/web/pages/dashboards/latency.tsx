/**
 * `/o/:org/w/:ws/dashboards/latency`: p50/p95/p99 of each phase (LLM, tool,
 * retrieval, ...) over a period (GET .../usage/latency), and the drill-down to the
 * traces behind a figure (GET .../usage/latency/phase/traces): those with a span of
 * the phase at or above its p95 or p99, or with a failed span of the phase, each a
 * link to its trace. The drill-down's choice lives in the URL.
 */
import { useEffect, useRef } from 'preact/hooks'
import type { Latency, PhaseLatency, PhaseTrace, PhaseTraces } from '../../api/dashboard-types'
import { fmtCount, fmtDuration, fmtPercent, fmtTime } from '../../lib/format'
import { apiWs, tracePath } from '../../lib/paths'
import { Link } from '../../router'
import { useWorkspace } from '../../session'
import { BarChart } from '../../ui/bar-chart'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { ChartFigure } from '../../ui/figure'
import { PeriodSelect, type Period } from '../../ui/form'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'
import { useQueryParam, useSetQuery } from '../../ui/use-query-param'

const PERIODS = ['day', 'week', 'month'] as const
const PHASE_LABEL: Record<string, string> = { llm: 'LLM', tool: 'Tool', retrieval: 'Retrieval', embedding: 'Embedding', agent: 'Agent / chain', other: 'Other' }
const phaseLabel = (p: string) => PHASE_LABEL[p] ?? p
type Drill = '' | 'slow-p95' | 'slow-p99' | 'errors'
const DRILLS = ['', 'slow-p95', 'slow-p99', 'errors'] as const

export function LatencyPage() {
  const { org, ws } = useWorkspace()
  const base = apiWs(org.org_slug, ws.slug)
  const [period, setPeriod] = useQueryParam<Period>('period', PERIODS, 'day')
  const latency = useApi<Latency>(`${base}/usage/latency`, { period })
  const phases = latency.data?.phases ?? []
  const [phase] = useQueryParam('phase', phases.map((p) => p.phase), '')
  const [drill, setDrill] = useQueryParam<Drill>('drill', DRILLS, '')
  const setQuery = useSetQuery()
  const open = (p: string, d: Drill) => setQuery({ phase: p, drill: d })

  const title = 'Latency by phase'
  return (
    <section aria-labelledby="latency-title">
      <div class="page-head">
        <h1 id="latency-title">Latency</h1>
        <PeriodSelect value={period} onChange={setPeriod} />
      </div>
      {latency.error && <ErrorMessage error={latency.error} onRetry={latency.reload} />}
      {!latency.data && !latency.error && <Loading />}
      {latency.data && (
        <>
          <ChartFigure<PhaseLatency>
            title={title}
            note="Percentiles of the spans' own durations in each phase."
            rows={phases}
            rowKey={(p) => p.phase}
            columns={[
              { header: 'Phase', cell: (p) => phaseLabel(p.phase) },
              { header: 'p50', cell: (p) => fmtDuration(p.p50_ms), align: 'right' },
              { header: 'p95', cell: (p) => fmtDuration(p.p95_ms), align: 'right' },
              { header: 'p99', cell: (p) => fmtDuration(p.p99_ms), align: 'right' },
            ]}
          >
            <BarChart title={title} series={['p50', 'p95', 'p99']} format={fmtDuration} rows={phases.map((p) => ({ label: phaseLabel(p.phase), values: [p.p50_ms, p.p95_ms, p.p99_ms] }))} />
          </ChartFigure>
          <h2>Phases</h2>
          <DataTable<PhaseLatency>
            caption="Latency and errors by phase, with the traces behind each figure"
            testId="latency-table"
            rows={phases}
            rowKey={(p) => p.phase}
            empty="No spans in this period."
            columns={[
              { header: 'Phase', cell: (p) => phaseLabel(p.phase) },
              { header: 'Calls', cell: (p) => fmtCount(p.call_count), align: 'right' },
              { header: 'p50', cell: (p) => fmtDuration(p.p50_ms), align: 'right', wide: true },
              {
                header: 'p95',
                cell: (p) => (
                  <button type="button" class="link" onClick={() => open(p.phase, 'slow-p95')} aria-label={`Traces with a ${phaseLabel(p.phase)} span at or above p95`}>
                    {fmtDuration(p.p95_ms)}
                  </button>
                ),
                align: 'right',
              },
              {
                header: 'p99',
                cell: (p) => (
                  <button type="button" class="link" onClick={() => open(p.phase, 'slow-p99')} aria-label={`Traces with a ${phaseLabel(p.phase)} span at or above p99`}>
                    {fmtDuration(p.p99_ms)}
                  </button>
                ),
                align: 'right',
              },
              {
                header: 'Errors',
                cell: (p) =>
                  p.error_count > 0 ? (
                    <button type="button" class="link" onClick={() => open(p.phase, 'errors')} aria-label={`Traces with a failed ${phaseLabel(p.phase)} span`}>
                      {fmtCount(p.error_count)} ({fmtPercent(p.error_count / Math.max(1, p.call_count), 1)})
                    </button>
                  ) : (
                    '0'
                  ),
                align: 'right',
              },
            ]}
          />
          {phase && drill && <DrillDown base={base} period={period} phase={phase} drill={drill} onClose={() => setDrill('')} />}
        </>
      )}
    </section>
  )
}

function DrillDown({ base, period, phase, drill, onClose }: { base: string; period: Period; phase: string; drill: Exclude<Drill, ''>; onClose(): void }) {
  const { org, ws } = useWorkspace()
  const metric = drill === 'errors' ? 'errors' : 'slow'
  // The list opens below the table: focus its heading, so it is in view and the keyboard goes on from there.
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [phase, drill])
  const res = useApi<PhaseTraces>(`${base}/usage/latency/phase/traces`, { phase, metric, period, percentile: drill === 'slow-p99' ? 'p99' : 'p95', limit: 100 })
  const what =
    drill === 'errors'
      ? `Traces with a failed ${phaseLabel(phase)} span`
      : `Traces with a ${phaseLabel(phase)} span at or above ${drill === 'slow-p99' ? 'p99' : 'p95'}${res.data?.threshold_ms != null ? ` (${fmtDuration(res.data.threshold_ms)})` : ''}`
  return (
    <div class="panel drill" data-testid="latency-drill">
      <div class="section-head">
        <h2 ref={heading} tabIndex={-1}>
          {what}
        </h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!res.data && !res.error && <Loading />}
      {res.data && (
        <DataTable<PhaseTrace>
          caption={what}
          rows={res.data.traces}
          rowKey={(t) => t.trace_id}
          empty="No trace in this period."
          columns={[
            {
              header: 'Trace',
              cell: (t) => (
                <Link href={tracePath(org.org_slug, ws.slug, t.trace_id)} class="mono" data-testid="drill-trace">
                  {t.trace_id.slice(0, 16)}…
                </Link>
              ),
            },
            { header: 'Started', cell: (t) => fmtTime(t.start_time), wide: true },
            { header: 'Duration', cell: (t) => fmtDuration(t.duration_ms), align: 'right' },
            { header: 'Status', cell: (t) => <Badge tone={t.status === 'ERROR' ? 'bad' : 'good'}>{t.status === 'ERROR' ? 'error' : 'ok'}</Badge> },
          ]}
        />
      )}
    </div>
  )
}
