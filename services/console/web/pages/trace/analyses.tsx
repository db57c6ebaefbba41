/** The table-shaped analyses of a trace: decomposition, the sources matrix, optimization findings, alignment flags. */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../../api/client'
import type { AlignmentFlag, AlignmentFlags, Decomposition, Finding, Optimization, SourceEntry, SourcesMatrix } from '../../api/types'
import { fmtPercent, fmtTime, fmtUsd } from '../../lib/format'
import { Badge, Loading, Meter } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { DataTable } from '../../ui/table'
import { AnalysisFrame, SpanLink, useAnalysis } from './analysis-common'
import type { AnalysisProps } from './trace-page'

export function DecompositionTab({ base, showSpan, spanName }: AnalysisProps) {
  const res = useAnalysis<Decomposition>(`${base}/decomposition`)
  return (
    <AnalysisFrame res={res} what="decomposition">
      {(d) => (
        <div>
          <h3>Request</h3>
          <blockquote>{d.original_query || <span class="muted">(no request text captured)</span>}</blockquote>
          <p>
            Coverage <Meter value={d.coverage} label="share of the request's parts the trace addressed" />
            {d.coverage !== null && d.coverage < 1 && <span class="muted small"> · part of the request was never addressed</span>}
          </p>
          <ol class="subtasks">
            {d.sub_tasks.map((t) => (
              <li key={t.id}>
                <Badge tone={t.resolved ? 'good' : 'warn'}>{t.resolved ? 'resolved' : 'open'}</Badge> {t.text}
                {t.span_ids.length > 0 && (
                  <span class="small">
                    {' · '}
                    {t.span_ids.map((id, i) => (
                      <span key={id}>
                        {i > 0 && ', '}
                        <SpanLink spanId={id} name={spanName(id)} onShow={showSpan} />
                      </span>
                    ))}
                  </span>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
    </AnalysisFrame>
  )
}

export function SourcesTab({ base }: AnalysisProps) {
  const res = useAnalysis<SourcesMatrix>(`${base}/sources-matrix`)
  return (
    <AnalysisFrame res={res} what="sources matrix">
      {(m) => (
        <div>
          {m.mode && (
            <p class="muted small">
              Mode: {m.mode.replace(/_/g, ' ')}
              {m.note ? ` · ${m.note}` : ''}
            </p>
          )}
          <DataTable<SourceEntry>
            caption="Sources of the trace"
            rows={m.sources}
            rowKey={(s) => `${s.kind}:${s.url}`}
            empty="The trace used no sources (no retrieval, tool results or citations)."
            columns={[
              { header: 'Source', cell: (s) => (/^https?:\/\//.test(s.url) ? <a href={s.url} target="_blank" rel="noopener noreferrer">{s.url}</a> : <span class="mono">{s.url}</span>) },
              { header: 'Kind', cell: (s) => s.kind },
              { header: 'Authority', cell: (s) => <Meter value={s.authority_score} /> },
              { header: 'Influence', cell: (s) => <Meter value={s.influence_score} /> },
              { header: 'Verification', cell: (s) => s.verification_level.replace(/_/g, ' ') },
              { header: 'Why', cell: (s) => <span class="small">{s.explainer}</span>, wide: true },
            ]}
          />
        </div>
      )}
    </AnalysisFrame>
  )
}

export function OptimizationTab({ base, showSpan, spanName }: AnalysisProps) {
  const res = useAnalysis<Optimization>(`${base}/optimization`)
  return (
    <AnalysisFrame res={res} what="optimization findings">
      {(o) => (
        <div>
          <p>
            Estimated savings: <strong>{o.total_estimated_savings_usd === null ? '–' : fmtUsd(o.total_estimated_savings_usd)}</strong> for this trace
          </p>
          <DataTable<Finding>
            caption="Optimization findings"
            rows={o.findings}
            rowKey={(f) => `${f.kind}:${f.span_id}`}
            empty="No findings: nothing in this trace looks cheaper to do another way."
            columns={[
              { header: 'Finding', cell: (f) => f.kind.replace(/_/g, ' ') },
              { header: 'Span', cell: (f) => <SpanLink spanId={f.span_id} name={spanName(f.span_id)} onShow={showSpan} /> },
              { header: 'Model', cell: (f) => (f.suggested_model && f.suggested_model !== f.current_model ? `${f.current_model} → ${f.suggested_model}` : f.current_model || '–') },
              { header: 'Why', cell: (f) => <span class="small">{f.rationale}</span>, wide: true },
              { header: 'Saving', cell: (f) => fmtUsd(f.estimated_savings_usd), align: 'right' },
            ]}
          />
        </div>
      )}
    </AnalysisFrame>
  )
}

const FLAG_PAGE = 500
const MAX_FLAG_PAGES = 20

/**
 * GET /alignment/flags lists the whole workspace's flags, newest first, with offset
 * paging; this trace's are picked out here. Flags are created after their trace
 * started, so paging stops at the first flag older than the trace.
 */
async function traceFlags(wsBase: string, trace: AnalysisProps['trace'], signal: AbortSignal): Promise<{ flags: AlignmentFlag[]; complete: boolean }> {
  const startMs = Date.parse(trace.start_time)
  const out: AlignmentFlag[] = []
  for (let page = 0; page < MAX_FLAG_PAGES; page++) {
    const r = await api<AlignmentFlags>(`${wsBase}/alignment/flags`, { query: { limit: FLAG_PAGE, offset: page * FLAG_PAGE, include_unclear: true }, signal })
    out.push(...r.flags.filter((f) => f.trace_id === trace.trace_id))
    const last = r.flags[r.flags.length - 1]
    if (r.flags.length < FLAG_PAGE || !last || Date.parse(last.created_at) < startMs) return { flags: out, complete: true }
  }
  return { flags: out, complete: false }
}

export function AlignmentTab({ base, trace }: AnalysisProps) {
  const wsBase = base.replace(/\/traces\/[^/]+$/, '')
  const [state, setState] = useState<{ flags?: AlignmentFlag[]; complete?: boolean; error?: ApiError }>({})
  const [tick, setTick] = useState(0)
  useEffect(() => {
    const ctrl = new AbortController()
    traceFlags(wsBase, trace, ctrl.signal).then(
      (r) => setState(r),
      (err: unknown) => !ctrl.signal.aborted && setState({ error: err instanceof ApiError ? err : new ApiError(0, 'error', String(err)) }),
    )
    return () => ctrl.abort()
  }, [wsBase, trace.trace_id, tick])
  if (state.error) return <ErrorMessage error={state.error} onRetry={() => setTick(tick + 1)} />
  if (!state.flags) return <Loading />
  return (
    <div>
      <p class="muted small">
        Flags of this trace's output against the workspace's alignment policy (low-confidence ones marked unclear).
        {!state.complete && ` Only the workspace's newest ${FLAG_PAGE * MAX_FLAG_PAGES} flags were searched.`}
      </p>
      <DataTable<AlignmentFlag>
        caption="Alignment flags of the trace"
        rows={state.flags}
        rowKey={(f) => f.flag_id}
        empty="No alignment flags for this trace (the policy is off, nothing diverged, or the engine has not run yet)."
        columns={[
          { header: 'Severity', cell: (f) => <Badge tone={f.severity === 'high' ? 'bad' : f.severity === 'medium' ? 'warn' : 'ok'}>{f.severity}{f.unclear ? ' · unclear' : ''}</Badge> },
          { header: 'Agent output', cell: (f) => f.agent_output },
          { header: 'Policy', cell: (f) => <span class="small">{f.policy_excerpt}</span>, wide: true },
          { header: 'Confidence', cell: (f) => fmtPercent(f.confidence), align: 'right' },
          { header: 'Flagged', cell: (f) => fmtTime(f.created_at), wide: true },
        ]}
      />
    </div>
  )
}
