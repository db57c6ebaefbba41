/**
 * The waterfall: the span tree as rows (nesting by indent, collapsible), each with
 * a bar on the trace's time axis (durations to scale), coloured by kind (LLM, tool,
 * retrieval, agent, ...) and marked when the span failed. Rows are virtualized:
 * only those in view (plus a margin) are in the DOM, so 5,000 spans scroll like 50.
 * Keyboard: arrows move the selection, Left/Right collapse and expand.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { fmtDuration } from '../../lib/format'
import { niceTicks } from '../../lib/scale'
import { ancestorsOf, SPAN_TYPE_LABEL, visibleRows, type SpanNode, type SpanTree } from '../../lib/span-tree'
import { scrollToShow, visibleRange } from '../../lib/virtual'

const ROW_HEIGHT = 26
const RENDERED_MARK = 'svc:waterfall-rendered'
const INDENT_PX = 14
const MAX_INDENT = 24

export function Waterfall({ tree, selected, onSelect }: { tree: SpanTree; selected: string | null; onSelect(spanId: string): void }) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set())
  const rows = useMemo(() => visibleRows(tree, collapsed), [tree, collapsed])
  const index = useMemo(() => new Map(rows.map((r, i) => [r.span.span_id, i])), [rows])
  const scroller = useRef<HTMLDivElement>(null)
  const [view, setView] = useState({ scrollTop: 0, height: 600 })

  useLayoutEffect(() => {
    const el = scroller.current
    if (!el) return
    const measure = () => setView({ scrollTop: el.scrollTop, height: el.clientHeight })
    measure()
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [])

  // A span selected from elsewhere (an evidence link, the decision graph) is brought into view, its ancestors expanded.
  useEffect(() => {
    if (!selected || !tree.byId.has(selected)) return
    const hidden = ancestorsOf(tree, selected).filter((a) => collapsed.has(a))
    if (hidden.length) {
      setCollapsed(new Set([...collapsed].filter((c) => !hidden.includes(c))))
      return
    }
    const i = index.get(selected)
    const el = scroller.current
    if (i === undefined || !el) return
    const top = scrollToShow(i, { scrollTop: el.scrollTop, viewportHeight: el.clientHeight - ROW_HEIGHT, rowHeight: ROW_HEIGHT })
    if (top !== null) el.scrollTop = top
  }, [selected, index])

  // When the waterfall was first on screen (User Timing): what bench:console reads.
  useEffect(() => {
    if (rows.length > 0 && performance.getEntriesByName(RENDERED_MARK).length === 0) performance.mark(RENDERED_MARK)
  }, [rows.length > 0])

  const toggle = (id: string) => {
    const next = new Set(collapsed)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setCollapsed(next)
  }
  const { start, end } = visibleRange({ scrollTop: view.scrollTop, viewportHeight: view.height, rowHeight: ROW_HEIGHT, count: rows.length })
  const total = tree.totalMs > 0 ? tree.totalMs : 1
  const ticks = niceTicks(0, total, 5).filter((t) => t <= total)

  const onKey = (e: KeyboardEvent) => {
    const i = selected !== null ? (index.get(selected) ?? -1) : -1
    const node = i >= 0 ? rows[i] : undefined
    const go = (j: number) => rows[Math.max(0, Math.min(rows.length - 1, j))] && onSelect(rows[Math.max(0, Math.min(rows.length - 1, j))]!.span.span_id)
    if (e.key === 'ArrowDown') go(i + 1)
    else if (e.key === 'ArrowUp') go(i < 0 ? 0 : i - 1)
    else if (e.key === 'Home') go(0)
    else if (e.key === 'End') go(rows.length - 1)
    else if (e.key === 'PageDown') go(i + Math.floor(view.height / ROW_HEIGHT))
    else if (e.key === 'PageUp') go(i - Math.floor(view.height / ROW_HEIGHT))
    else if (e.key === 'ArrowRight' && node && node.children.length) {
      if (collapsed.has(node.span.span_id)) toggle(node.span.span_id)
      else go(i + 1)
    } else if (e.key === 'ArrowLeft' && node) {
      if (node.children.length && !collapsed.has(node.span.span_id)) toggle(node.span.span_id)
      else if (tree.parentOf.has(node.span.span_id)) onSelect(tree.parentOf.get(node.span.span_id)!)
    } else return
    e.preventDefault()
  }

  return (
    <div class="waterfall">
      <div class="wf-legend" aria-hidden="true">
        {(['agent', 'llm', 'tool', 'retrieval', 'embedding', 'other'] as const).map((t) => (
          <span key={t} class={`wf-key type-${t}`}>
            {SPAN_TYPE_LABEL[t]}
          </span>
        ))}
        <span class="wf-key wf-key-error">Error</span>
        <span class="muted">
          {rows.length} of {tree.byId.size} spans shown · {fmtDuration(tree.totalMs)}
        </span>
      </div>
      <div class="wf-axis" aria-hidden="true">
        <span class="wf-name-col">Span</span>
        <span class="wf-bar-col">
          {ticks.map((t) => (
            <span key={t} class="wf-tick" style={{ left: `${(t / total) * 100}%` }}>
              {t === 0 ? 0 : fmtDuration(t)}
            </span>
          ))}
        </span>
      </div>
      <div
        class="wf-scroll"
        ref={scroller}
        tabIndex={0}
        role="listbox"
        aria-label="Spans of the trace, as a timeline"
        aria-activedescendant={selected && index.has(selected) ? `span-row-${selected}` : undefined}
        onScroll={(e) => setView({ scrollTop: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
        onKeyDown={onKey}
        data-testid="waterfall"
      >
        <div class="wf-body" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
          {rows.slice(start, end).map((node, k) => (
            <Row key={node.span.span_id} node={node} top={(start + k) * ROW_HEIGHT} total={total} selected={node.span.span_id === selected} collapsed={collapsed.has(node.span.span_id)} onSelect={onSelect} onToggle={toggle} />
          ))}
        </div>
      </div>
    </div>
  )
}

function Row({ node, top, total, selected, collapsed, onSelect, onToggle }: { node: SpanNode; top: number; total: number; selected: boolean; collapsed: boolean; onSelect(id: string): void; onToggle(id: string): void }) {
  const id = node.span.span_id
  const left = (node.offsetMs / total) * 100
  const width = (node.durationMs / total) * 100
  return (
    <div
      id={`span-row-${id}`}
      role="option"
      aria-selected={selected}
      aria-level={node.depth + 1}
      class={`wf-row${selected ? ' selected' : ''}${node.error ? ' error' : ''}`}
      style={{ top: `${top}px` }}
      onClick={() => onSelect(id)}
      data-span-id={id}
    >
      <span class="wf-name-col" style={{ paddingLeft: `${Math.min(node.depth, MAX_INDENT) * INDENT_PX + 4}px` }}>
        {node.children.length > 0 ? (
          <button
            type="button"
            class="wf-toggle"
            tabIndex={-1}
            aria-label={collapsed ? `Expand (${node.descendants} spans)` : 'Collapse'}
            onClick={(e) => {
              e.stopPropagation()
              onToggle(id)
            }}
          >
            {collapsed ? '▸' : '▾'}
          </button>
        ) : (
          <span class="wf-toggle" />
        )}
        <span class={`wf-type type-${node.type}`}>{SPAN_TYPE_LABEL[node.type]}</span>
        {node.error && (
          <span class="wf-error" title={node.span.status_message || 'status ERROR'}>
            ⚠
          </span>
        )}
        <span class="wf-label" title={node.span.name}>
          {node.span.name}
        </span>
        {collapsed && <span class="muted small"> +{node.descendants}</span>}
      </span>
      <span class="wf-bar-col">
        <span class={`wf-bar type-${node.type}`} style={{ left: `${left}%`, width: `${width}%` }} />
        <span class="wf-dur" style={left + width > 80 ? { right: `${100 - left + 0.5}%` } : { left: `${left + width + 0.5}%` }}>
          {fmtDuration(node.durationMs)}
        </span>
      </span>
    </div>
  )
}
