/**
 * The dashboards' pure parts: a day's label, a breakdown (by model, project,
 * employee) cut to the rows a chart can show with the rest summed, drift's words and
 * tones, and offset paging of the alignment flags.
 */

/** `2026-05-01T00:00:00Z` → `05-01` (a UTC calendar day, as the API counts days). */
export const dayLabel = (ts: string): string => (/^\d{4}-(\d{2})-(\d{2})/.exec(ts) ? ts.slice(5, 10) : ts)

/** The first `limit - 1` rows as they come (the API sorts them), the others summed into one row named `others`. */
export function topRows<T>(rows: T[], value: (r: T) => number, label: (r: T) => string, limit = 10): Array<{ label: string; value: number }> {
  if (rows.length <= limit) return rows.map((r) => ({ label: label(r), value: value(r) }))
  const head = rows.slice(0, limit - 1).map((r) => ({ label: label(r), value: value(r) }))
  const rest = rows.slice(limit - 1)
  head.push({ label: `${rest.length} others`, value: rest.reduce((s, r) => s + value(r), 0) })
  return head
}

export type Tone = 'good' | 'ok' | 'warn' | 'bad' | 'none'

export const driftTone = (status: string): Tone => (status === 'ok' ? 'good' : status === 'warn' ? 'warn' : status === 'alert' ? 'bad' : 'none')
export const directionTone = (direction: string): Tone => (direction === 'worse' ? 'bad' : direction === 'better' ? 'good' : direction === 'changed' ? 'warn' : 'none')

const DIMENSIONS: Record<string, string> = {
  cost_per_trace: 'Cost per trace',
  tokens_per_trace: 'Tokens per trace',
  p95_latency_ms: 'p95 latency',
  error_rate: 'Error rate',
  reliability_score: 'Reliability score',
  model_mix: 'Model mix',
}
export const dimensionLabel = (name: string): string => DIMENSIONS[name] ?? name.replace(/_/g, ' ')

/** A dimension's change: relative (+12%), except the model mix, a distance between two shares (0 to 1). */
export function fmtChange(name: string, delta: number): string {
  if (!Number.isFinite(delta)) return '–'
  if (name === 'model_mix') return `${delta.toFixed(2)} apart`
  const pct = Math.round(delta * 1000) / 10
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct)}%`
}

/** Offset paging: which page this is, how many there are, and the offsets of the neighbours (null: none). */
export function offsetPaging(offset: number, limit: number, total: number): { page: number; pages: number; prev: number | null; next: number | null } {
  const pages = Math.max(1, Math.ceil(total / limit))
  const page = Math.floor(offset / limit) + 1
  return { page, pages, prev: offset > 0 ? Math.max(0, offset - limit) : null, next: offset + limit < total ? offset + limit : null }
}
