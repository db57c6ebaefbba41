/**
 * `/o/:org/w/:ws/traces/:trace_id`: the trace's summary, then tabs: the waterfall
 * and one per analysis, with the selected span's details beside them. The tab and
 * the selected span live in the URL (?tab=&span=), so any view of a trace is a link;
 * selecting a span from an analysis (a claim's evidence, a decision) opens it in the
 * waterfall.
 */
import { useMemo } from 'preact/hooks'
import type { TraceDetail } from '../../api/types'
import { fmtCount, fmtDuration, fmtTime, fmtUsd } from '../../lib/format'
import { apiWs, tracePath, wsPath } from '../../lib/paths'
import { buildSpanTree } from '../../lib/span-tree'
import type { PageProps } from '../../routes'
import { Link, navigate, useLocation } from '../../router'
import { useWorkspace } from '../../session'
import { Badge, GRADE_TONE, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { Tabs } from '../../ui/tabs'
import { useApi } from '../../ui/use-api'
import { AlignmentTab, DecompositionTab, OptimizationTab, SourcesTab } from './analyses'
import { DecisionsTab } from './decisions'
import { ReliabilityTab } from './reliability'
import { SpanPanel } from './span-panel'
import { Waterfall } from './waterfall'

const TABS = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'reliability', label: 'Content reliability' },
  { id: 'decisions', label: 'Decision trace' },
  { id: 'decomposition', label: 'Decomposition' },
  { id: 'sources', label: 'Sources' },
  { id: 'optimization', label: 'Optimization' },
  { id: 'alignment', label: 'Alignment flags' },
]

/** What an analysis tab gets: where to read, the trace, and how to point at a span. */
export interface AnalysisProps {
  base: string
  trace: TraceDetail
  /** Selects the span and opens it in the waterfall. */
  showSpan(spanId: string): void
  spanName(spanId: string): string
}

export function TracePage({ params }: PageProps) {
  const { org, ws } = useWorkspace()
  const loc = useLocation()
  const traceId = params.trace_id!
  const base = `${apiWs(org.org_slug, ws.slug)}/traces/${encodeURIComponent(traceId)}`
  const trace = useApi<TraceDetail>(base)
  const tree = useMemo(() => (trace.data ? buildSpanTree(trace.data.spans) : null), [trace.data])
  const tab = TABS.some((t) => t.id === loc.query.get('tab')) ? loc.query.get('tab')! : 'timeline'
  const selected = loc.query.get('span')
  const go = (q: { tab?: string; span?: string | null }) =>
    navigate(tracePath(org.org_slug, ws.slug, traceId, { tab: (q.tab ?? tab) === 'timeline' ? undefined : (q.tab ?? tab), span: (q.span === undefined ? selected : q.span) ?? undefined }), { replace: true })

  const back = <Link href={wsPath(org.org_slug, ws.slug)}>← Traces</Link>
  if (trace.error)
    return (
      <section>
        {back}
        <ErrorMessage error={trace.error} onRetry={trace.reload} />
      </section>
    )
  if (!trace.data || !tree) return <Loading label="Loading the trace…" />
  const t = trace.data
  const node = selected ? (tree.byId.get(selected) ?? null) : null
  const props: AnalysisProps = {
    base,
    trace: t,
    showSpan: (spanId) => go({ tab: 'timeline', span: spanId }),
    spanName: (spanId) => tree.byId.get(spanId)?.span.name ?? spanId,
  }
  const errors = t.spans.filter((s) => tree.byId.get(s.span_id)?.error).length
  return (
    <section aria-labelledby="trace-title">
      {back}
      <div class="page-head">
        <h1 id="trace-title">
          Trace <span class="mono">{t.trace_id}</span>
        </h1>
        {t.grade && (
          <Badge tone={GRADE_TONE(t.grade)} title={`reliability score ${t.score ?? ''}`}>
            grade {t.grade}
          </Badge>
        )}
      </div>
      <dl class="summary">
        <div><dt>Started</dt><dd>{fmtTime(t.start_time)}</dd></div>
        <div><dt>Duration</dt><dd>{fmtDuration(t.duration_ms)}</dd></div>
        <div><dt>Project</dt><dd>{t.project_id}</dd></div>
        <div>
          <dt>Spans</dt>
          <dd>
            {t.spans_truncated ? `the first ${fmtCount(t.spans.length)} of ${fmtCount(t.span_count ?? t.spans.length)}` : fmtCount(t.spans.length)}
            {errors ? ` (${errors} failed)` : ''}
          </dd>
        </div>
        <div><dt>Tokens</dt><dd>{fmtCount((t.input_tokens ?? 0) + (t.output_tokens ?? 0))}</dd></div>
        <div><dt>Cost</dt><dd>{fmtUsd(t.total_cost_usd)}</dd></div>
      </dl>
      <Tabs tabs={TABS} active={tab} onSelect={(id) => go({ tab: id })} label="Views of the trace" />
      <div class="trace-layout">
        <div class="trace-main" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
          {tab === 'timeline' && <Waterfall tree={tree} selected={selected} onSelect={(id) => go({ span: id })} />}
          {tab === 'reliability' && <ReliabilityTab {...props} />}
          {tab === 'decisions' && <DecisionsTab {...props} />}
          {tab === 'decomposition' && <DecompositionTab {...props} />}
          {tab === 'sources' && <SourcesTab {...props} />}
          {tab === 'optimization' && <OptimizationTab {...props} />}
          {tab === 'alignment' && <AlignmentTab {...props} />}
        </div>
        <SpanPanel node={node} />
      </div>
    </section>
  )
}
