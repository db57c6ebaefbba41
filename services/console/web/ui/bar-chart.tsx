/**
 * Horizontal bars in SVG, one row per item and up to three series per row (cost by
 * model, latency percentiles by phase): labels on the left, the value at the end of
 * each bar, round ticks along the top. Drawn at the width it is shown, so a phone
 * gets legible text; the figures are also in each bar's <title> and in the table the
 * ChartFigure around it offers.
 */
import { linearScale, niceTicks } from '../lib/scale'
import { useWidth } from './use-width'

export interface BarRow { label: string; values: number[] }

const BAR = 14
const GAP = 10

export function BarChart({ rows, series, title, format = String }: { rows: BarRow[]; series: string[]; title: string; format?: (v: number) => string }) {
  const { ref, width } = useWidth<HTMLDivElement>(640)
  const labelW = Math.min(220, Math.max(90, Math.round(width * 0.32)))
  const pad = { left: labelW + 8, right: 64, top: 22 }
  const rowH = series.length * BAR + GAP
  const height = pad.top + rows.length * rowH + 4
  const max = Math.max(0, ...rows.flatMap((r) => r.values))
  const ticks = niceTicks(0, max > 0 ? max : 1, width < 500 ? 2 : 4)
  const x = linearScale(0, ticks[ticks.length - 1]!, pad.left, width - pad.right)
  const maxChars = Math.floor(labelW / 7)
  return (
    <div ref={ref}>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <title>{title}</title>
        {ticks.map((t) => (
          <g key={t}>
            <line class="chart-grid" x1={x(t)} x2={x(t)} y1={pad.top - 4} y2={height - 4} />
            <text class="chart-tick" x={x(t)} y={12} text-anchor="middle">
              {t === 0 ? '0' : format(t)}
            </text>
          </g>
        ))}
        {rows.map((r, i) => {
          const top = pad.top + i * rowH
          return (
            <g key={r.label}>
              <text class="chart-label" x={labelW} y={top + (series.length * BAR) / 2 + 4} text-anchor="end">
                {r.label.length > maxChars ? `${r.label.slice(0, maxChars - 1)}…` : r.label}
                <title>{r.label}</title>
              </text>
              {r.values.map((v, k) => (
                <g key={k}>
                  <rect class={`chart-bar chart-s${k}`} x={pad.left} y={top + k * BAR + 1} height={BAR - 2} width={Math.max(v > 0 ? 1 : 0, x(v) - pad.left)}>
                    <title>{`${r.label}${series.length > 1 ? `, ${series[k]}` : ''}: ${format(v)}`}</title>
                  </rect>
                  <text class="chart-tick" x={x(v) + 4} y={top + k * BAR + BAR - 3}>
                    {format(v)}
                  </text>
                </g>
              ))}
            </g>
          )
        })}
      </svg>
      {series.length > 1 && (
        <p class="chart-legend" aria-hidden="true">
          {series.map((s, k) => (
            <span key={s} class={`chart-key chart-s${k}`}>
              {s}
            </span>
          ))}
        </p>
      )}
    </div>
  )
}
