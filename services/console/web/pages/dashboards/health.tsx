/**
 * `/o/:org/w/:ws/dashboards/health` (admin): is data arriving and being analysed?
 * GET .../health/ingestion, refreshed every 10 s: spans in the last hour, dead
 * letters, each enabled engine ok or stalled, and the engines' sentence model. The
 * hints say what each reading usually means (the API document's "Reading").
 */
import type { IngestionHealth } from '../../api/dashboard-types'
import { fmtCount, fmtTime } from '../../lib/format'
import { apiWs } from '../../lib/paths'
import { ENGINES } from '../../lib/settings'
import { useWorkspace } from '../../session'
import { Badge, Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { DataTable } from '../../ui/table'
import { useApi } from '../../ui/use-api'

const REFRESH_MS = 10_000
const engineLabel = (name: string) => ENGINES.find((e) => e.name === name)?.label ?? name

function hints(h: IngestionHealth): string[] {
  const out: string[] = []
  const stalled = Object.entries(h.engines).filter(([, e]) => e.status === 'stalled')
  if (h.spans_last_hour === 0) out.push('No spans in the last hour: nothing is arriving. Check that producers send to ingest (port 4318) with a key of this workspace.')
  if (h.dead_letter_count_last_hour > 0) out.push('Dead letters: spans arrive but some fail validation (or a consumer gave up on them). The ingest answers carry partialSuccess with the reason.')
  if (stalled.length > 0 && h.spans_last_hour > 0)
    out.push(`${stalled.map(([n]) => engineLabel(n)).join(', ')} ${stalled.length > 1 ? 'are' : 'is'} stalled while spans arrive: the engine is failing, most often because of a missing or expired LLM credential.`)
  if (h.semantic_model?.status === 'unavailable') out.push('The sentence model could not load: the engines run in lexical mode (matching by words only).')
  return out
}

export function HealthPage() {
  const { org, ws } = useWorkspace()
  const res = useApi<IngestionHealth>(`${apiWs(org.org_slug, ws.slug)}/health/ingestion`, undefined, { pollMs: REFRESH_MS })
  const h = res.data
  const engines = h ? Object.entries(h.engines).map(([name, e]) => ({ name, ...e })) : []
  return (
    <section aria-labelledby="health-title">
      <div class="page-head">
        <h1 id="health-title">Ingestion health</h1>
        {h && (
          <span class="muted small" aria-live="polite">
            Refreshes every 10 s{res.at ? ` · updated ${fmtTime(new Date(res.at).toISOString()).slice(11)}` : ''}
          </span>
        )}
      </div>
      {res.error && <ErrorMessage error={res.error} onRetry={res.reload} />}
      {!h && !res.error && <Loading />}
      {h && (
        <>
          <dl class="summary tiles" data-testid="health-summary">
            <div>
              <dt>Status</dt>
              <dd>
                <Badge tone={h.status === 'ok' ? 'good' : h.status === 'degraded' ? 'bad' : 'none'}>{h.status}</Badge>
              </dd>
            </div>
            <div><dt>Spans, last hour</dt><dd>{fmtCount(h.spans_last_hour)}</dd></div>
            <div>
              <dt>Dead letters, last hour</dt>
              <dd class={h.dead_letter_count_last_hour > 0 ? 'bad' : undefined}>{fmtCount(h.dead_letter_count_last_hour)}</dd>
            </div>
            <div><dt>Last span</dt><dd>{h.last_span_at ? fmtTime(h.last_span_at) : 'never'}</dd></div>
          </dl>
          {hints(h).length > 0 && (
            <ul class="hints">
              {hints(h).map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
          )}
          <h2>Engines</h2>
          <DataTable
            caption="Each engine enabled in the workspace"
            testId="health-engines"
            rows={engines}
            rowKey={(e) => e.name}
            empty="No engine is enabled in this workspace (Settings → Engines)."
            columns={[
              { header: 'Engine', cell: (e) => engineLabel(e.name) },
              { header: 'Status', cell: (e) => <Badge tone={e.status === 'ok' ? 'good' : 'bad'}>{e.status}</Badge> },
              { header: 'Last run', cell: (e) => (e.last_run_at ? fmtTime(e.last_run_at) : 'not yet') },
            ]}
          />
          {h.semantic_model && (
            <>
              <h2>Sentence model</h2>
              <dl class="summary">
                <div>
                  <dt>Status</dt>
                  <dd>
                    <Badge tone={h.semantic_model.status === 'loaded' ? 'good' : h.semantic_model.status === 'unavailable' ? 'warn' : 'none'}>{h.semantic_model.status.replace('_', ' ')}</Badge>
                  </dd>
                </div>
                <div><dt>Model</dt><dd>{h.semantic_model.model ?? '–'}</dd></div>
                {h.semantic_model.reason && <div><dt>Reason</dt><dd>{h.semantic_model.reason}</dd></div>}
                <div><dt>Checked</dt><dd>{h.semantic_model.checked_at ? fmtTime(h.semantic_model.checked_at) : 'no engine has reported yet'}</dd></div>
              </dl>
            </>
          )}
        </>
      )}
    </section>
  )
}
