/**
 * The pieces the settings pages and dashboards share: a write with its busy state,
 * the API's error and a confirmation; a secret shown once with a copy button; a
 * two-step confirmation for destructive buttons; the period picker of the
 * dashboards. Every control is a native button, input or select, so the keyboard
 * works everywhere without extra code.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { ErrorMessage } from './error'

export interface Action {
  busy: boolean
  error: ApiError | null
  /** What the last successful write did, for a polite live region. */
  done: string
  /**
   * Runs one write; resolves to its result, or undefined when it failed (the error is
   * then shown). With `refresh`, what was written is fetched again before the write
   * counts as done, so the confirmation never shows beside the old values.
   */
  run<T>(write: () => Promise<T>, done?: string | ((result: T) => string), refresh?: { refresh(): Promise<void> }): Promise<T | undefined>
  clear(): void
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const [done, setDone] = useState('')
  return {
    busy,
    error,
    done,
    clear: () => {
      setError(null)
      setDone('')
    },
    run: async (write, msg, refresh) => {
      setBusy(true)
      setError(null)
      setDone('')
      try {
        const result = await write()
        await refresh?.refresh()
        setDone(typeof msg === 'function' ? msg(result) : (msg ?? ''))
        return result
      } catch (err) {
        setError(err instanceof ApiError ? err : new ApiError(0, 'error', err instanceof Error ? err.message : String(err)))
        return undefined
      } finally {
        setBusy(false)
      }
    },
  }
}

/**
 * A form's values, filled from what is stored. It is refilled in the same render as
 * the stored value changes (a save answered) but not when the same value is fetched
 * again, so neither a refetch nor a late answer undoes what the user is typing; each
 * edit applies to the latest values, not to a render's copy.
 */
export function useStoredForm<T, F>(data: T | undefined, toForm: (stored: T) => F): [F | undefined, (edit: (form: F) => F) => void] {
  const filled = useRef<{ stored: string | null; form: F | undefined }>({ stored: null, form: undefined })
  const [, rendered] = useState(0)
  const form = data === undefined ? undefined : toForm(data)
  const stored = form === undefined ? null : JSON.stringify(form)
  if (stored !== filled.current.stored) filled.current = { stored, form }
  const edit = (change: (form: F) => F) => {
    const now = filled.current
    if (now.form === undefined) return
    now.form = change(now.form)
    rendered((n) => n + 1)
  }
  return [filled.current.form, edit]
}

/** The outcome of an action: the API's error as a readable message, or what was done. */
export function ActionStatus({ action }: { action: Action }) {
  return (
    <>
      {action.error && <ErrorMessage error={action.error} />}
      <p class="done" role="status" aria-live="polite">
        {action.done}
      </p>
    </>
  )
}

/** A secret the API shows once (a new API key, an invitation token), with a copy button and a way to dismiss it. */
export function SecretOnce({ label, value, note, onDismiss, testId }: { label: string; value: string; note: ComponentChildren; onDismiss(): void; testId?: string }) {
  const [copied, setCopied] = useState('')
  const ref = useRef<HTMLInputElement>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied('Copied.')
    } catch {
      // Without clipboard access (an insecure origin, a refused permission), select it for a manual copy.
      ref.current?.select()
      setCopied('Selected: press Ctrl+C (⌘C) to copy.')
    }
  }
  return (
    <div class="secret" role="region" aria-label={label}>
      <strong>{label}</strong>
      <p class="small">{note}</p>
      <div class="secret-row">
        <input ref={ref} class="mono" readOnly value={value} aria-label={label} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={onDismiss}>
          Done
        </button>
      </div>
      <p class="small muted" role="status" aria-live="polite">
        {copied}
      </p>
    </div>
  )
}

/** A destructive button that asks once more, in place: the first press shows “Confirm” and “Cancel”. */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: { label: string; confirm: string; onConfirm(): void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false)
  const yes = useRef<HTMLButtonElement>(null)
  // Focus moves to Confirm when it appears, so Enter confirms and Tab reaches Cancel.
  useEffect(() => {
    if (asking) yes.current?.focus()
  }, [asking])
  if (!asking)
    return (
      <button type="button" class="secondary danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    )
  return (
    <span class="confirm" role="group" aria-label={confirm}>
      <span class="small">{confirm}</span>
      <button
        type="button"
        class="danger"
        disabled={disabled}
        ref={yes}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        Confirm
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

export type Period = 'day' | 'week' | 'month'
const PERIOD_LABEL: Record<Period, string> = { day: 'Last 24 hours', week: 'Last 7 days', month: 'Last 30 days' }

export function PeriodSelect({ value, onChange, label = 'Period' }: { value: Period; onChange(p: Period): void; label?: string }) {
  return (
    <label class="inline-field">
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value as Period)}>
        {(Object.keys(PERIOD_LABEL) as Period[]).map((p) => (
          <option key={p} value={p}>
            {PERIOD_LABEL[p]}
          </option>
        ))}
      </select>
    </label>
  )
}
