/**
 * The side panel: one span's facts (kind, status, timing, model, tokens, cost), its
 * content when the workspace captures text (prompt, completion, tool calls,
 * retrieved documents, read with the service's own conventions:
 * shared/src/domain/genai-content.ts), and every attribute.
 */
import { genAiContent } from '@svc/shared/domain/genai-content'
import { fmtCount, fmtDuration, fmtTime, fmtUsd } from '../../lib/format'
import { attributeStrings, SPAN_TYPE_LABEL, type SpanNode } from '../../lib/span-tree'
import { Badge } from '../../ui/bits'

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2))

export function SpanPanel({ node }: { node: SpanNode | null }) {
  if (!node)
    return (
      <aside class="span-panel" aria-label="Span details">
        <p class="muted">Select a span in the waterfall, or an evidence link in an analysis, to see its attributes and content.</p>
      </aside>
    )
  const s = node.span
  const content = genAiContent(attributeStrings(s.attributes))
  const facts: Array<[string, string]> = [
    ['Status', s.status_code + (s.status_message ? `: ${s.status_message}` : '')],
    ['Start', fmtTime(s.start_time)],
    ['Offset', `+${fmtDuration(node.offsetMs)}`],
    ['Duration', fmtDuration(s.duration_ms)],
    ['Kind', s.kind],
  ]
  if (s.service_name) facts.push(['Service', s.service_name])
  if (s.model) facts.push(['Model', s.model])
  if (s.input_tokens || s.output_tokens) facts.push(['Tokens', `${fmtCount(s.input_tokens ?? 0)} in · ${fmtCount(s.output_tokens ?? 0)} out`])
  if (s.cost_usd !== undefined) facts.push(['Cost', fmtUsd(s.cost_usd)])
  const hasText = content.prompt || content.completion || content.toolCalls.length || content.documents.length
  return (
    <aside class="span-panel" aria-label="Span details" data-testid="span-panel">
      <h2>
        <span class={`wf-type type-${node.type}`}>{SPAN_TYPE_LABEL[node.type]}</span> {s.name}
      </h2>
      {node.error && <Badge tone="bad">failed</Badge>}
      <p class="mono small muted">span {s.span_id}</p>
      <dl class="facts">
        {facts.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {content.prompt && <TextBlock title="Prompt" text={content.prompt} />}
      {content.completion && <TextBlock title="Completion" text={content.completion} />}
      {content.toolCalls.map((t, i) => (
        <div key={i} class="block">
          <h3>Tool call: {t.name}</h3>
          {t.arguments && <pre>{t.arguments}</pre>}
          {t.result !== undefined && (
            <>
              <h4>Result</h4>
              <pre>{t.result}</pre>
            </>
          )}
        </div>
      ))}
      {content.documents.length > 0 && (
        <div class="block">
          <h3>Retrieved documents</h3>
          <ol class="docs">
            {content.documents.map((d, i) => (
              <li key={i}>
                <p class="small muted">
                  {d.id || d.url || `document ${i + 1}`}
                  {d.score !== null ? ` · score ${d.score}` : ''}
                </p>
                <pre>{d.content}</pre>
              </li>
            ))}
          </ol>
        </div>
      )}
      {!hasText && (node.type === 'llm' || node.type === 'tool') && <p class="muted small">No prompt or completion text: the workspace's capture-text setting was off when this span arrived, or the producer sent none.</p>}
      <details open={Object.keys(s.attributes).length <= 20}>
        <summary>Attributes ({Object.keys(s.attributes).length})</summary>
        <AttrTable attrs={s.attributes} />
      </details>
      {s.resource_attributes && Object.keys(s.resource_attributes).length > 0 && (
        <details>
          <summary>Resource ({Object.keys(s.resource_attributes).length})</summary>
          <AttrTable attrs={s.resource_attributes} />
        </details>
      )}
      {s.events && s.events.length > 0 && (
        <details>
          <summary>Events ({s.events.length})</summary>
          <pre>{show(s.events)}</pre>
        </details>
      )}
    </aside>
  )
}

function TextBlock({ title, text }: { title: string; text: string }) {
  return (
    <div class="block">
      <h3>{title}</h3>
      <pre class="text">{text}</pre>
    </div>
  )
}

function AttrTable({ attrs }: { attrs: Record<string, unknown> }) {
  const keys = Object.keys(attrs).sort()
  return (
    <table class="attrs">
      <tbody>
        {keys.map((k) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>
              <pre>{show(attrs[k])}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
