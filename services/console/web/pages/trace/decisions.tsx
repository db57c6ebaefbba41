/** Decision trace: the decisions as a layered graph (lib/dag-layout.ts) in SVG; a node opens its span. */
import { useMemo } from 'preact/hooks'
import type { DecisionNode, DecisionTrace } from '../../api/types'
import { layoutDag } from '../../lib/dag-layout'
import { fmtPercent } from '../../lib/format'
import { DataTable } from '../../ui/table'
import { AnalysisFrame, SpanLink, useAnalysis } from './analysis-common'
import type { AnalysisProps } from './trace-page'

const BOX = { width: 220, height: 58, gapX: 36, gapY: 44 }
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

export function DecisionsTab({ base, showSpan, spanName }: AnalysisProps) {
  const res = useAnalysis<DecisionTrace>(`${base}/decision-trace`)
  return <AnalysisFrame res={res} what="decision trace">{(d) => <Graph d={d} showSpan={showSpan} spanName={spanName} />}</AnalysisFrame>
}

function Graph({ d, showSpan, spanName }: { d: DecisionTrace; showSpan(id: string): void; spanName(id: string): string }) {
  const layout = useMemo(() => layoutDag(d.nodes.map((n) => n.id), d.edges, BOX), [d])
  const byId = new Map(d.nodes.map((n) => [n.id, n]))
  if (d.nodes.length === 0) return <p class="empty">No decisions were found in this trace (the agent answered without branching, tools or retries).</p>
  const pad = 12
  return (
    <div class="decisions">
      <div class="graph-wrap">
        <svg class="graph" viewBox={`${-pad} ${-pad} ${layout.width + 2 * pad} ${layout.height + 2 * pad}`} width={layout.width + 2 * pad} role="img" aria-label={`Decision graph: ${d.nodes.length} decisions`}>
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" class="graph-arrow" />
            </marker>
          </defs>
          {layout.edges.map((e, i) => (
            <polyline key={i} class={e.back ? 'graph-edge back' : 'graph-edge'} points={e.points.map((p) => p.join(',')).join(' ')} marker-end="url(#arrow)" />
          ))}
          {layout.nodes.map((n) => {
            const dn = byId.get(n.id)!
            return (
              <g key={n.id} class="graph-node" transform={`translate(${n.x},${n.y})`} tabIndex={0} role="button" aria-label={`${dn.decision}: chose ${dn.chosen}`} onClick={() => showSpan(dn.span_id)} onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), showSpan(dn.span_id))}>
                <title>{`${dn.decision}\nchosen: ${dn.chosen}\nalternatives: ${dn.alternatives.join(', ') || '–'}\n${dn.basis}`}</title>
                <rect width={BOX.width} height={BOX.height} rx="6" />
                <text x="10" y="22" class="graph-title">{clip(dn.decision, 30)}</text>
                <text x="10" y="42" class="graph-sub">{clip(`→ ${dn.chosen}`, 20)} · {fmtPercent(dn.confidence)}</text>
              </g>
            )
          })}
        </svg>
      </div>
      <DataTable<DecisionNode>
        caption="Decisions"
        rows={d.nodes}
        rowKey={(n) => n.id}
        columns={[
          { header: 'Decision', cell: (n) => n.decision },
          { header: 'Chosen', cell: (n) => n.chosen },
          { header: 'Alternatives', cell: (n) => n.alternatives.join(', ') || '–', wide: true },
          { header: 'Basis', cell: (n) => n.basis, wide: true },
          { header: 'Confidence', cell: (n) => fmtPercent(n.confidence), align: 'right' },
          { header: 'Span', cell: (n) => <SpanLink spanId={n.span_id} name={spanName(n.span_id)} onShow={showSpan} /> },
        ]}
      />
    </div>
  )
}
