/** Small shared pieces: loading and empty states, badges, a 0-1 meter. */
import type { ComponentChildren } from 'preact'

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="muted" role="status" aria-live="polite">
    {label}
  </p>
)

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="empty">{children}</p>

/** A label with a colour class: badge-<tone>. */
export const Badge = ({ tone, children, title }: { tone: string; children: ComponentChildren; title?: string }) => (
  <span class={`badge badge-${tone}`} title={title}>
    {children}
  </span>
)

/** A horizontal bar for a value from 0 to 1, with the figure beside it. */
export function Meter({ value, label }: { value: number | null; label?: string }) {
  const v = value === null || !Number.isFinite(value) ? null : Math.max(0, Math.min(1, value))
  return (
    <span class="meter" title={label}>
      <span class="meter-track" aria-hidden="true">
        <span class="meter-fill" style={{ width: `${(v ?? 0) * 100}%` }} />
      </span>
      <span class="meter-value">{v === null ? '–' : v.toFixed(2)}</span>
    </span>
  )
}

export const GRADE_TONE = (grade: string) => (!grade ? 'none' : grade.startsWith('A') ? 'good' : grade.startsWith('B') ? 'ok' : grade.startsWith('C') ? 'warn' : 'bad')
