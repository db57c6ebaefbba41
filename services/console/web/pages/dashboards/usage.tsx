/**
 * `/o/:org/w/:ws/dashboards/usage`: the workspace's spend. Totals and the breakdown by
 * model and by project for a period (GET .../usage/summary?period=), and cost,
 * tokens and traces per UTC day (GET .../usage/timeseries?days=). Period, days and
 * the breakdown's measure live in the URL.
 */
import type { ModelUsage, ProjectUsage, UsagePoint, UsageSummary, UsageTimeseries } from '../../api/dashboard-types'
import { dayLabel, topRows } from '../../lib/dashboards'
import { fmtCount, fmtUsd } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { useWorkspace } from '../../session'
import { BarChart } from '../../ui/bar-chart'
import { Loading } from '../../ui/bits'
import { SeriesChart } from '../../ui/chart'
import { ErrorMessage } from '../../ui/error'
import { ChartFigure } from '../../ui/figure'
import { PeriodSelect, type Period } from '../../ui/form'
import { useApi } from '../../ui/use-api'
import { useQueryParam } from '../../ui/use-query-param'

const PERIODS = ['day', 'week', 'month'] as const
const DAYS = ['7', '14', '30', '90'] as const
const MEASURES = ['cost', 'requests', 'tokens'] as const
type Measure = (typeof MEASURES)[number]
const MEASURE_LABEL: Record<Measure, string> = { cost: 'Cost', requests: 'LLM requests', tokens: 'Tokens' }

export function UsagePage() {
  const { org, ws } = useWorkspace()
  const base = apiWs(org.org_slug, ws.slug)
  const [period, setPeriod] = useQueryParam<Period>('period', PERIODS, 'week')
  const [days, setDays] = useQueryParam('days', DAYS, '30')
  const [measure, setMeasure] = useQueryParam<Measure>('measure', MEASURES, 'cost')
  const summary = useApi<UsageSummary>(`${base}/usage/summary`, { period })
  const series = useApi<UsageTimeseries>(`${base}/usage/timeseries`, { days })
  const s = summary.data?.data

  return (
    <section aria-labelledby="usage-title">
      <div class="page-head">
        <h1 id="usage-title">Usage</h1>
        <PeriodSelect value={period} onChange={setPeriod} />
      </div>
      {summary.error && <ErrorMessage error={summary.error} onRetry={summary.reload} />}
      {!s && !summary.error && <Loading />}
      {s && (
        <dl class="summary tiles" data-testid="usage-totals">
          <div><dt>Cost</dt><dd>{fmtUsd(s.totals.cost_usd)}</dd></div>
          <div><dt>Traces</dt><dd>{fmtCount(s.totals.trace_count)}</dd></div>
          <div><dt>Spans</dt><dd>{fmtCount(s.totals.span_count)}</dd></div>
          <div><dt>LLM requests</dt><dd>{fmtCount(s.totals.llm_calls)}</dd></div>
          <div><dt>Tokens in / out</dt><dd>{fmtCount(s.totals.input_tokens)} / {fmtCount(s.totals.output_tokens)}</dd></div>
          {s.totals.unpriced_calls > 0 && (
            <div><dt>Unpriced requests</dt><dd title="LLM calls to models the price table does not know: they count as $0">{fmtCount(s.totals.unpriced_calls)}</dd></div>
          )}
        </dl>
      )}

      <div class="section-head">
        <h2>Per day</h2>
        <label class="inline-field">
          Days
          <select value={days} onChange={(e) => setDays(e.currentTarget.value as (typeof DAYS)[number])}>
            {DAYS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </label>
      </div>
      {series.error && <ErrorMessage error={series.error} onRetry={series.reload} />}
      {!series.data && !series.error && <Loading />}
      {series.data && <Daily points={series.data.points} />}

      <div class="section-head">
        <h2>Breakdown</h2>
        <label class="inline-field">
          Measure
          <select value={measure} onChange={(e) => setMeasure(e.currentTarget.value as Measure)}>
            {MEASURES.map((m) => (
              <option key={m} value={m}>
                {MEASURE_LABEL[m]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {s && (
        <div class="grid-2">
          <ByModel rows={s.by_model} measure={measure} />
          <ByProject rows={s.by_project} measure={measure} />
        </div>
      )}
    </section>
  )
}

function Daily({ points }: { points: UsagePoint[] }) {
  const empty = points.every((p) => p.trace_count === 0)
  const table = {
    rows: empty ? [] : points,
    rowKey: (p: UsagePoint) => p.ts,
    columns: [
      { header: 'Day (UTC)', cell: (p: UsagePoint) => p.ts.slice(0, 10) },
      { header: 'Cost', cell: (p: UsagePoint) => fmtUsd(p.total_cost_usd), align: 'right' as const },
      { header: 'Tokens', cell: (p: UsagePoint) => fmtCount(p.total_tokens), align: 'right' as const },
      { header: 'Traces', cell: (p: UsagePoint) => fmtCount(p.trace_count), align: 'right' as const },
    ],
  }
  const chart = (title: string, value: (p: UsagePoint) => number, format: (v: number) => string) => (
    <ChartFigure title={title} {...table}>
      <SeriesChart title={title} points={points.map((p) => ({ label: dayLabel(p.ts), value: value(p) }))} format={format} />
    </ChartFigure>
  )
  return (
    <div class="grid-3" data-testid="usage-daily">
      {chart('Cost per day', (p) => p.total_cost_usd, fmtUsd)}
      {chart('Tokens per day', (p) => p.total_tokens, fmtCount)}
      {chart('Traces per day', (p) => p.trace_count, fmtCount)}
    </div>
  )
}

function ByModel({ rows, measure }: { rows: ModelUsage[]; measure: Measure }) {
  const value = (r: ModelUsage) => (measure === 'cost' ? r.cost_usd : measure === 'requests' ? r.llm_calls : r.input_tokens + r.output_tokens)
  const format = measure === 'cost' ? fmtUsd : fmtCount
  const title = `${MEASURE_LABEL[measure]} by model`
  return (
    <ChartFigure<ModelUsage>
      title={title}
      rows={rows}
      rowKey={(r) => `${r.provider}/${r.model}`}
      note={rows.some((r) => r.unpriced_calls > 0) ? 'Some requests went to models the price table does not know: they count as $0.' : undefined}
      columns={[
        { header: 'Model', cell: (r) => r.model || '(unnamed)' },
        { header: 'Provider', cell: (r) => r.provider || '–', wide: true },
        { header: 'Requests', cell: (r) => fmtCount(r.llm_calls), align: 'right' },
        { header: 'Tokens in', cell: (r) => fmtCount(r.input_tokens), align: 'right', wide: true },
        { header: 'Tokens out', cell: (r) => fmtCount(r.output_tokens), align: 'right', wide: true },
        { header: 'Cost', cell: (r) => fmtUsd(r.cost_usd), align: 'right' },
      ]}
    >
      <BarChart title={title} series={[MEASURE_LABEL[measure]]} format={format} rows={topRows(rows, value, (r) => r.model || '(unnamed)').map((r) => ({ label: r.label, values: [r.value] }))} />
    </ChartFigure>
  )
}

function ByProject({ rows, measure }: { rows: ProjectUsage[]; measure: Measure }) {
  // The API's per-project rows carry traces, requests and cost: tokens are per model only.
  const m: Measure = measure === 'tokens' ? 'requests' : measure
  const value = (r: ProjectUsage) => (m === 'cost' ? r.cost_usd : r.llm_calls)
  const title = `${MEASURE_LABEL[m]} by project`
  return (
    <ChartFigure<ProjectUsage>
      title={title}
      rows={rows}
      rowKey={(r) => r.project_id}
      note={measure === 'tokens' ? 'Tokens are counted per model; projects show their requests.' : undefined}
      columns={[
        { header: 'Project', cell: (r) => r.project_id },
        { header: 'Traces', cell: (r) => fmtCount(r.trace_count), align: 'right' },
        { header: 'Requests', cell: (r) => fmtCount(r.llm_calls), align: 'right' },
        { header: 'Cost', cell: (r) => fmtUsd(r.cost_usd), align: 'right' },
      ]}
    >
      <BarChart title={title} series={[MEASURE_LABEL[m]]} format={m === 'cost' ? fmtUsd : fmtCount} rows={topRows(rows, value, (r) => r.project_id).map((r) => ({ label: r.label, values: [r.value] }))} />
    </ChartFigure>
  )
}
