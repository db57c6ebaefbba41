/**
 * `/o/:org/w/:ws/dashboards/drift`: how the last 24 hours compare with the baseline
 * window (GET .../drift/current: status, score, each dimension's change, and the
 * fleet monitor's anomalies per agent) and the daily drift score over time
 * (GET .../drift/history?days=).
 */
import type { DriftAnomaly, DriftCurrent, DriftDimension, DriftHistory } from '../../api/dashboard-types'
import { dimensionLabel, directionTone, driftTone, fmtChange } from '../../lib/dashboards'
import { fmtTime } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { useWorkspace } from '../../session'
import { Badge, Loading, Meter } from '../../ui/bits'
import { SeriesChart } from '../../ui/chart'
import { ErrorMessage } from '../../ui/error'
import { ChartFigure } from '../../ui/figure'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'
import { useQueryParam } from '../../ui/use-query-param'

const DAYS = ['30', '90', '365'] as const
const fmtValue = (name: string, v: number) =>
  !Number.isFinite(v) ? '–' : name === 'error_rate' ? `${(v * 100).toFixed(1)}%` : name === 'cost_per_trace' ? `$${v.toFixed(4)}` : name === 'p95_latency_ms' ? `${Math.round(v)} ms` : v.toFixed(name === 'reliability_score' ? 2 : 0)

export function DriftPage() {
  const { org, ws } = useWorkspace()
  const base = apiWs(org.org_slug, ws.slug)
  const [days, setDays] = useQueryParam('days', DAYS, '30')
  const current = useApi<DriftCurrent>(`${base}/drift/current`)
  const history = useApi<DriftHistory>(`${base}/drift/history`, { days })
  const c = current.data

  return (
    <section aria-labelledby="drift-title">
      <div class="page-head">
        <h1 id="drift-title">Drift</h1>
      </div>
      {current.error && <ErrorMessage error={current.error} onRetry={current.reload} />}
      {!c && !current.error && <Loading />}
      {c && (
        <>
          <dl class="summary tiles" data-testid="drift-current">
            <div>
              <dt>Status</dt>
              <dd>
                <Badge tone={driftTone(c.status)}>{c.status}</Badge>
              </dd>
            </div>
            <div>
              <dt>Drift score</dt>
              <dd>
                <Meter value={c.drift_score} label="mean of the capped changes, 0 to 1 (warn from 0.15, alert from 0.35)" />
              </dd>
            </div>
            <div><dt>Compared</dt><dd>last 24 h with the {c.baseline_window_days} days before</dd></div>
            <div><dt>As of</dt><dd>{fmtTime(c.as_of)}</dd></div>
          </dl>
          <h2>Dimensions</h2>
          <DataTable<DriftDimension>
            caption="Each dimension, baseline against the last 24 hours"
            rows={c.dimensions}
            rowKey={(d) => d.name}
            empty="No data in one of the windows yet: drift needs traffic in the last 24 hours and in the baseline."
            columns={[
              { header: 'Dimension', cell: (d) => dimensionLabel(d.name) },
              { header: 'Baseline', cell: (d) => (d.name === 'model_mix' ? '–' : fmtValue(d.name, d.baseline)), align: 'right', wide: true },
              { header: 'Last 24 h', cell: (d) => (d.name === 'model_mix' ? '–' : fmtValue(d.name, d.recent)), align: 'right', wide: true },
              { header: 'Change', cell: (d) => fmtChange(d.name, d.delta), align: 'right' },
              { header: 'Direction', cell: (d) => <Badge tone={directionTone(d.direction)}>{d.direction}</Badge> },
            ]}
          />
          <h2>Anomalies</h2>
          <DataTable<DriftAnomaly>
            caption="Agents whose figures moved away from their own history or the fleet"
            testId="drift-anomalies"
            rows={c.anomalies}
            rowKey={(a) => `${a.agent}:${a.dimension}`}
            empty="No anomalies: no agent stands out from its own history or from the fleet."
            columns={[
              { header: 'Agent', cell: (a) => a.agent },
              { header: 'Dimension', cell: (a) => dimensionLabel(a.dimension) },
              { header: 'Baseline', cell: (a) => fmtValue(a.dimension, a.baseline), align: 'right', wide: true },
              { header: 'Recent', cell: (a) => fmtValue(a.dimension, a.recent), align: 'right', wide: true },
              { header: 'Change', cell: (a) => fmtChange(a.dimension, a.delta), align: 'right' },
              { header: 'z', cell: (a) => a.z_score.toFixed(1), align: 'right', wide: true },
              { header: 'Against', cell: (a) => (a.basis === 'fleet' ? 'the fleet' : 'its history'), wide: true },
              { header: 'Direction', cell: (a) => <Badge tone={directionTone(a.direction)}>{a.direction}</Badge> },
            ]}
          />
        </>
      )}

      <div class="section-head">
        <h2>History</h2>
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
      {history.error && <ErrorMessage error={history.error} onRetry={history.reload} />}
      {!history.data && !history.error && <Loading />}
      {history.data && (
        <ChartFigure
          title="Drift score per day"
          note="One figure per day the roll-up ran (hourly; a day keeps its last figure)."
          rows={history.data.points}
          rowKey={(p) => p.day}
          columns={[
            { header: 'Day (UTC)', cell: (p) => p.day },
            { header: 'Score', cell: (p) => p.drift_score.toFixed(3), align: 'right' },
            { header: 'Status', cell: (p) => <Badge tone={driftTone(p.status)}>{p.status}</Badge> },
          ]}
        >
          <SeriesChart title="Drift score per day" kind={history.data.points.length > 1 ? 'line' : 'bar'} points={history.data.points.map((p) => ({ label: p.day.slice(5), value: p.drift_score }))} format={(v) => v.toFixed(2)} />
        </ChartFigure>
      )}
    </section>
  )
}
