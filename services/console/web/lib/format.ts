/** How figures read in the console: durations, money, token counts, times (the viewer's time zone). */

export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '–'
  if (ms < 1) return `${Math.round(ms * 1000)} µs`
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`
  const s = ms / 1000
  if (s < 60) return `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`
  const h = Math.floor(m / 60)
  return `${h} h ${m - h * 60} min`
}

/** Dollars with enough digits that a fraction of a cent still shows. */
export function fmtUsd(usd: number): string {
  if (!Number.isFinite(usd)) return '–'
  if (usd === 0) return '$0'
  const abs = Math.abs(usd)
  const digits = abs >= 100 ? 0 : abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6
  return `${usd < 0 ? '−' : ''}$${abs.toFixed(digits)}`
}

export function fmtCount(n: number): string {
  if (!Number.isFinite(n)) return '–'
  if (Math.abs(n) < 10_000) return n.toLocaleString('en-US')
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

export const fmtPercent = (fraction: number, digits = 0) => (Number.isFinite(fraction) ? `${(fraction * 100).toFixed(digits)}%` : '–')

const pad = (n: number) => String(n).padStart(2, '0')

/** Local date and time to the second: 2026-05-01 14:03:09. */
export function fmtTime(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

/** The value of an <input type="datetime-local"> for an instant, and back (the viewer's time zone). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
export function fromLocalInput(value: string): string | null {
  if (!value) return null
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}
