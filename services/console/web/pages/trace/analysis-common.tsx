/** What every analysis tab shares: its engine output, polled until the engines have run, and the provenance line. */
import type { ComponentChildren } from 'preact'
import type { Provenance } from '../../api/types'
import { fmtTime } from '../../lib/format'
import { skippedNote } from '../../lib/skipped'
import { Loading } from '../../ui/bits'
import { ErrorMessage } from '../../ui/error'
import { useApi, type Resource } from '../../ui/use-api'

const WAIT_MS = 3000

/** An engine output; asked again every few seconds while it is not computed yet (engines run after a trace goes quiet), not once it was skipped. */
export const useAnalysis = <T extends Provenance>(url: string): Resource<T> => useApi<T>(url, undefined, { pollMs: WAIT_MS, poll: (d) => !d?.computed_at && !d?.skipped })

/** Loading, error and not-yet-computed states around a tab's body. */
export function AnalysisFrame<T extends Provenance>({ res, what, children }: { res: Resource<T>; what: string; children(data: T): ComponentChildren }) {
  if (res.error) return <ErrorMessage error={res.error} onRetry={res.reload} />
  if (!res.data) return <Loading />
  if (!res.data.computed_at && res.data.skipped)
    return (
      <p class="empty" role="status">
        {skippedNote(what, res.data.skipped)}
      </p>
    )
  if (!res.data.computed_at)
    return (
      <p class="empty" role="status">
        No {what} yet: the engines analyse a trace a few seconds after its last span arrives (or the engine is switched off in this workspace). This view updates by itself.
      </p>
    )
  return (
    <>
      {children(res.data)}
      <p class="muted small provenance">
        Computed {fmtTime(res.data.computed_at)}
        {res.data.analysis_mode ? ` · ${res.data.analysis_mode}` : ''}
        {res.data.engine_version ? ` · ${res.data.engine_version}` : ''}
      </p>
    </>
  )
}

/** A button naming a span, that opens it in the waterfall. */
export function SpanLink({ spanId, name, onShow, label }: { spanId: string; name: string; onShow(id: string): void; label?: string }) {
  return (
    <button type="button" class="link" onClick={() => onShow(spanId)} title={`span ${spanId}`}>
      {label ?? name}
    </button>
  )
}
