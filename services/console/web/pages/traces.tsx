/**
 * `/o/:org/w/:ws/traces`: GET /traces with every filter of the API (time range,
 * project, grade_min, include_empty) kept in the URL, newest first, cursor paging
 * (older / newer / newest), and live refresh of the newest page every few seconds,
 * paused while the person pages back, hides the tab, or pauses it.
 */
import { useEffect, useState } from 'preact/hooks'
import type { TracePage, TraceRow } from '../api/types'
import { fmtCount, fmtDuration, fmtTime, fmtUsd, fromLocalInput, toLocalInput } from '../lib/format'
import { apiWs, tracePath, wsPath } from '../lib/paths'
import { filtersFromQuery, filtersToQuery, GRADES, RANGES, traceListQuery, type RangeKey, type TraceFilters } from '../lib/trace-filters'
import { Link, navigate, useLocation } from '../router'
import { useWorkspace } from '../session'
import { Badge, GRADE_TONE } from '../ui/bits'
import { SeriesChart } from '../ui/chart'
import { ErrorMessage } from '../ui/error'
import { DataTable, type Column } from '../ui/table'
import { useApi } from '../ui/use-api'

const LIVE_MS = 5000
const RENDERED_MARK = 'svc:trace-list-rendered'
const RANGE_LABEL: Record<RangeKey, string> = { '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days', all: 'All (retention window)', custom: 'Custom…' }

function usePageVisible(): boolean {
  const [visible, setVisible] = useState(!document.hidden)
  useEffect(() => {
    const on = () => setVisible(!document.hidden)
    document.addEventListener('visibilitychange', on)
    return () => document.removeEventListener('visibilitychange', on)
  }, [])
  return visible
}

export function TracesPage() {
  const { org, ws } = useWorkspace()
  const loc = useLocation()
  const filters = filtersFromQuery(loc.query)
  const filterKey = filtersToQuery(filters)
  // Cursors of the pages before the one shown; empty: the newest page.
  const [cursors, setCursors] = useState<string[]>([])
  const [paused, setPaused] = useState(false)
  const [nowMs, setNowMs] = useState(Date.now())
  const visible = usePageVisible()
  useEffect(() => setCursors([]), [filterKey, ws.workspace_id])

  const base = apiWs(org.org_slug, ws.slug)
  const paging = cursors.length > 0
  const live = !paging && !paused && visible
  const cursor = cursors[cursors.length - 1] ?? null
  // A rolling range is measured from the moment of each request; nowMs moves on at every live refresh.
  const page = useApi<TracePage>(`${base}/traces`, traceListQuery(filters, nowMs, { cursor }))
  useEffect(() => {
    if (!live) return
    const t = setInterval(() => {
      setNowMs(Date.now())
      page.reload()
    }, LIVE_MS)
    return () => clearInterval(t)
  }, [live, filterKey, ws.workspace_id])

  const setFilters = (f: TraceFilters) => {
    const q = filtersToQuery(f)
    navigate(`${wsPath(org.org_slug, ws.slug)}${q ? `?${q}` : ''}`, { replace: true })
  }
  const rows = page.data?.data ?? []
  // When the first rows were on screen (User Timing): what bench:console reads.
  useEffect(() => {
    if (rows.length > 0 && performance.getEntriesByName(RENDERED_MARK).length === 0) performance.mark(RENDERED_MARK)
  }, [rows.length > 0])
  const open = (r: TraceRow) => navigate(tracePath(org.org_slug, ws.slug, r.trace_id))

  const columns: Column<TraceRow>[] = [
    {
      header: 'Time',
      cell: (r) => (
        <Link href={tracePath(org.org_slug, ws.slug, r.trace_id)} data-testid="trace-link" title={r.trace_id}>
          {fmtTime(r.trace_start)}
        </Link>
      ),
    },
    { header: 'Project', cell: (r) => r.project_id_out, wide: true },
    { header: 'Duration', cell: (r) => fmtDuration(Date.parse(r.trace_end) - Date.parse(r.trace_start)), align: 'right' },
    { header: 'Spans', cell: (r) => fmtCount(r.span_count), align: 'right', wide: true },
    { header: 'Tokens', cell: (r) => <span title={`${r.input_tokens} in, ${r.output_tokens} out`}>{fmtCount(r.input_tokens + r.output_tokens)}</span>, align: 'right' },
    { header: 'Cost', cell: (r) => fmtUsd(r.cost_usd_total), align: 'right' },
    {
      header: 'Grade',
      cell: (r) =>
        r.grade ? (
          <Badge tone={GRADE_TONE(r.grade)} title={`score ${r.score}`}>
            {r.grade}
          </Badge>
        ) : (
          <span class="muted" title={r.scorer_version ? 'scored, but the answer had no gradable claims' : 'not scored yet'}>
            {r.scorer_version ? 'n/a' : '…'}
          </span>
        ),
      align: 'right',
    },
  ]

  return (
    <section aria-labelledby="traces-title">
      <div class="page-head">
        <h1 id="traces-title">Traces</h1>
        <span class="live" aria-live="polite">
          {live ? (
            <>
              <span class="dot" aria-hidden="true" /> Live{page.at ? ` · updated ${fmtTime(new Date(page.at).toISOString()).slice(11)}` : ''}
            </>
          ) : paging ? (
            'Paused while paging'
          ) : (
            'Paused'
          )}
        </span>
        {!paging && (
          <button type="button" class="secondary" onClick={() => setPaused(!paused)} aria-pressed={paused}>
            {paused ? 'Resume live' : 'Pause live'}
          </button>
        )}
      </div>
      <Filters filters={filters} onChange={setFilters} base={base} />
      <Activity base={base} />
      {page.error && <ErrorMessage error={page.error} onRetry={page.reload} />}
      <DataTable columns={columns} rows={rows} rowKey={(r) => r.trace_id} onRow={open} testId="trace-table" caption="Traces, newest first" empty={page.loading ? 'Loading…' : <EmptyList filters={filters} />} />
      <div class="pager">
        <button type="button" class="secondary" disabled={!paging} onClick={() => setCursors([])}>
          Newest
        </button>
        <button type="button" class="secondary" disabled={!paging} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← Newer
        </button>
        <button type="button" class="secondary" disabled={!page.data?.next_cursor} onClick={() => setCursors([...cursors, page.data!.next_cursor!])}>
          Older →
        </button>
        <span class="muted">
          Page {cursors.length + 1} · {rows.length} traces
        </span>
      </div>
    </section>
  )
}

/**
 * Traces per day over the last two weeks (GET /usage/timeseries), read when opened:
 * the list is what the page is for, and must not wait behind a roll-up query.
 */
function Activity({ base }: { base: string }) {
  const [open, setOpen] = useState(false)
  const series = useApi<{ points: Array<{ ts: string; trace_count: number }> }>(open ? `${base}/usage/timeseries` : null, { days: 14 })
  return (
    <details class="activity" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Traces per day, last 14 days</summary>
      {series.error && <ErrorMessage error={series.error} onRetry={series.reload} />}
      {series.data && <SeriesChart title="Traces per day, last 14 days" height={120} points={series.data.points.map((p) => ({ label: p.ts.slice(5, 10), value: p.trace_count }))} format={fmtCount} />}
    </details>
  )
}

function EmptyList({ filters }: { filters: TraceFilters }) {
  return (
    <>
      No traces match.{' '}
      {!filters.include_empty && 'Traces without LLM content are hidden: tick “Include traces without LLM content” to see them. '}
      Send spans to ingest (OTLP/JSON on port 4318) with an API key; a new trace shows here within seconds.
    </>
  )
}

function Filters({ filters, onChange, base }: { filters: TraceFilters; onChange(f: TraceFilters): void; base: string }) {
  // Projects seen this month, as suggestions for the project filter, read once the field is used; the filter works without them.
  const [suggest, setSuggest] = useState(false)
  const projects = useApi<{ data: { by_project: Array<{ project_id: string }> } }>(suggest ? `${base}/usage/summary` : null, { period: 'month' })
  const [project, setProject] = useState(filters.project)
  useEffect(() => setProject(filters.project), [filters.project])
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault()
        onChange({ ...filters, project: project.trim() })
      }}
    >
      <label>
        Time
        <select value={filters.range} onChange={(e) => onChange({ ...filters, range: e.currentTarget.value as RangeKey })}>
          {(Object.keys(RANGES) as RangeKey[]).map((k) => (
            <option key={k} value={k}>
              {RANGE_LABEL[k]}
            </option>
          ))}
        </select>
      </label>
      {filters.range === 'custom' && (
        <>
          <label>
            From
            <input type="datetime-local" value={toLocalInput(filters.from)} onChange={(e) => onChange({ ...filters, from: fromLocalInput(e.currentTarget.value) ?? '' })} />
          </label>
          <label>
            To
            <input type="datetime-local" value={toLocalInput(filters.to)} onChange={(e) => onChange({ ...filters, to: fromLocalInput(e.currentTarget.value) ?? '' })} />
          </label>
        </>
      )}
      <label>
        Project
        <input type="search" list="projects" value={project} placeholder="any" onFocus={() => setSuggest(true)} onInput={(e) => setProject(e.currentTarget.value)} onChange={(e) => onChange({ ...filters, project: e.currentTarget.value.trim() })} />
        <datalist id="projects">
          {(projects.data?.data.by_project ?? []).map((p) => (
            <option key={p.project_id} value={p.project_id} />
          ))}
        </datalist>
      </label>
      <label>
        Grade at least
        <select value={filters.grade_min} onChange={(e) => onChange({ ...filters, grade_min: e.currentTarget.value })}>
          <option value="">any (unscored too)</option>
          {GRADES.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" checked={filters.include_empty} onChange={(e) => onChange({ ...filters, include_empty: e.currentTarget.checked })} />
        Include traces without LLM content
      </label>
    </form>
  )
}
