/** Tabs with the keyboard behaviour of the ARIA tabs pattern: arrows move, Home/End jump, the active tab is the one in the tab order. */
import { useRef } from 'preact/hooks'

export interface Tab { id: string; label: string }

export function Tabs({ tabs, active, onSelect, label }: { tabs: Tab[]; active: string; onSelect(id: string): void; label: string }) {
  const ref = useRef<HTMLDivElement>(null)
  const move = (to: number) => {
    const t = tabs[(to + tabs.length) % tabs.length]!
    onSelect(t.id)
    ref.current?.querySelector<HTMLButtonElement>(`#tab-${t.id}`)?.focus()
  }
  return (
    <div class="tabs" role="tablist" aria-label={label} ref={ref}>
      {tabs.map((t, i) => (
        <button
          key={t.id}
          id={`tab-${t.id}`}
          type="button"
          role="tab"
          aria-selected={t.id === active}
          aria-controls={`panel-${t.id}`}
          tabIndex={t.id === active ? 0 : -1}
          class={t.id === active ? 'tab active' : 'tab'}
          onClick={() => onSelect(t.id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') move(i + 1)
            else if (e.key === 'ArrowLeft') move(i - 1)
            else if (e.key === 'Home') move(0)
            else if (e.key === 'End') move(tabs.length - 1)
            else return
            e.preventDefault()
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  )
}
