/**
 * Content reliability: the final answer with each claim marked by its verdict
 * (supported, unsupported, contradicted), and the claims listed with confidence and
 * their evidence span one click away (it opens in the waterfall with its content).
 */
import { useMemo, useState } from 'preact/hooks'
import type { ContentReliability } from '../../api/types'
import { findAnswer, segmentAnswer, verdictOf } from '../../lib/claims'
import { fmtPercent } from '../../lib/format'
import { Badge, GRADE_TONE } from '../../ui/bits'
import { AnalysisFrame, SpanLink, useAnalysis } from './analysis-common'
import type { AnalysisProps } from './trace-page'

const VERDICT_TONE: Record<string, string> = { supported: 'good', unsupported: 'warn', contradicted: 'bad' }

export function ReliabilityTab({ base, trace, showSpan, spanName }: AnalysisProps) {
  const res = useAnalysis<ContentReliability>(`${base}/content-reliability`)
  return (
    <AnalysisFrame res={res} what="content reliability">
      {(r) => <Reliability r={r} trace={trace} showSpan={showSpan} spanName={spanName} />}
    </AnalysisFrame>
  )
}

function Reliability({ r, trace, showSpan, spanName }: { r: ContentReliability; trace: AnalysisProps['trace']; showSpan(id: string): void; spanName(id: string): string }) {
  const [focus, setFocus] = useState<number | null>(null)
  const answer = useMemo(() => findAnswer(trace.spans, r.claims), [trace.spans, r.claims])
  const segments = useMemo(() => (answer ? segmentAnswer(answer.text, r.claims.map((c) => c.claim)) : []), [answer, r.claims])
  const focusClaim = (i: number) => {
    setFocus(i)
    document.getElementById(`claim-${i}`)?.scrollIntoView({ block: 'nearest' })
  }
  if (r.claims.length === 0)
    return <p class="empty">{r.scorer_version ? 'The final answer had no checkable claims (or no text was captured), so the trace is scored but not graded.' : 'No claims.'}</p>
  return (
    <div class="reliability">
      <p>
        {r.grade && <Badge tone={GRADE_TONE(r.grade)}>grade {r.grade}</Badge>} score {r.score === null ? '–' : fmtPercent(r.score)} · {r.claims.filter((c) => c.supported).length} of {r.claims.length} claims supported
      </p>
      {answer && (
        <div class="block">
          <h3>
            Final answer <SpanLink spanId={answer.spanId} name={spanName(answer.spanId)} onShow={showSpan} label={`(span ${spanName(answer.spanId)})`} />
          </h3>
          <p class="answer" data-testid="answer">
            {segments.map((s, i) =>
              s.claim === null ? (
                s.text
              ) : (
                // A mark, not a <button>: buttons are inline blocks, and a claim must wrap with the sentence around it.
                <mark
                  key={i}
                  tabIndex={0}
                  role="button"
                  class={`claim-mark verdict-${verdictOf(r.claims[s.claim]!)}${focus === s.claim ? ' focused' : ''}`}
                  onClick={() => focusClaim(s.claim!)}
                  onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), focusClaim(s.claim!))}
                  title={`${verdictOf(r.claims[s.claim]!)}, confidence ${fmtPercent(r.claims[s.claim]!.confidence)}`}
                >
                  {s.text}
                </mark>
              ),
            )}
          </p>
        </div>
      )}
      <h3>Claims</h3>
      <ol class="claims" data-testid="claims">
        {r.claims.map((c, i) => {
          const verdict = verdictOf(c)
          return (
            <li key={i} id={`claim-${i}`} class={focus === i ? 'focused' : undefined}>
              <Badge tone={VERDICT_TONE[verdict] ?? 'none'}>{verdict}</Badge> <span class="claim-text">{c.claim}</span>
              <span class="muted small"> · confidence {fmtPercent(c.confidence)}</span>
              <div class="small">
                {c.evidence_span_id ? (
                  <>
                    Evidence: <SpanLink spanId={c.evidence_span_id} name={spanName(c.evidence_span_id)} onShow={showSpan} />
                    {c.source ? <span class="muted"> · {c.source}</span> : null}
                  </>
                ) : (
                  <span class="muted">{c.supported ? 'No evidence span recorded.' : 'No retrieved context backed it.'}</span>
                )}
              </div>
            </li>
          )
        })}
      </ol>
      {r.external_crosscheck && (
        <div class="block">
          <h3>External cross-check ({r.external_crosscheck.mode.replace(/_/g, ' ')})</h3>
          {r.external_crosscheck.note && <p class="muted small">{r.external_crosscheck.note}</p>}
          <ul>
            {r.external_crosscheck.claims.map((c, i) => (
              <li key={i}>
                <Badge tone={VERDICT_TONE[c.verdict] ?? 'none'}>{c.verdict}</Badge> {c.claim}{' '}
                {c.url && (
                  <a href={c.url} target="_blank" rel="noopener noreferrer">
                    {c.url}
                  </a>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
