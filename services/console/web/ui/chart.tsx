/**
 * SVG charts drawn by hand, for the dashboards: a time series as bars or a line,
 * with round ticks on the value axis. Drawn at the width they are shown (useWidth),
 * so text stays legible on a phone; colours come from the stylesheet (.chart-*), so
 * dark mode follows.
 */
import { linearScale, niceTicks } from '../lib/scale'
import { useWidth } from './use-width'

export interface Point { label: string; value: number }

export function SeriesChart({ points, kind = 'bar', format = String, title, height = 180 }: { points: Point[]; kind?: 'bar' | 'line'; format?: (v: number) => string; title: string; height?: number }) {
  const { ref, width } = useWidth<HTMLDivElement>(640)
  const max = Math.max(0, ...points.map((p) => p.value))
  const ticks = niceTicks(0, max > 0 ? max : 1, 4)
  // Room for the longest value label ($0.006000 is wider than 1,500), at about 7 px a character.
  const pad = { left: Math.max(40, 12 + 7 * Math.max(...ticks.map((t) => format(t).length))), right: 8, top: 8, bottom: 24 }
  const y = linearScale(0, ticks[ticks.length - 1]!, height - pad.bottom, pad.top)
  const band = (width - pad.left - pad.right) / Math.max(1, points.length)
  const x = (i: number) => pad.left + i * band
  // About one day label per 70 px, so they never overlap however narrow the chart.
  const every = Math.max(1, Math.ceil(points.length / Math.max(2, Math.floor((width - pad.left) / 70))))
  return (
    <div ref={ref}>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <title>{title}</title>
        {ticks.map((t) => (
          <g key={t}>
            <line class="chart-grid" x1={pad.left} x2={width - pad.right} y1={y(t)} y2={y(t)} />
            <text class="chart-tick" x={pad.left - 6} y={y(t) + 4} text-anchor="end">
              {format(t)}
            </text>
          </g>
        ))}
        {kind === 'bar'
          ? points.map((p, i) => (
              <rect key={p.label} class="chart-bar" x={x(i) + band * 0.15} width={band * 0.7} y={y(p.value)} height={Math.max(0, y(0) - y(p.value))}>
                <title>{`${p.label}: ${format(p.value)}`}</title>
              </rect>
            ))
          : points.length > 0 && <polyline class="chart-line" fill="none" points={points.map((p, i) => `${x(i) + band / 2},${y(p.value)}`).join(' ')} />}
        {points.map((p, i) =>
          i % every === 0 ? (
            <text key={p.label} class="chart-tick" x={x(i) + band / 2} y={height - 6} text-anchor="middle">
              {p.label}
            </text>
          ) : null,
        )}
      </svg>
    </div>
  )
}
