/** Why an engine output will not be computed (`skipped`, docs/api.md "Engine outputs"), as the console says it. */
export type SkipReason = 'backlog' | 'configured' | 'too_large'

const WHY: Record<SkipReason, string> = {
  backlog: 'the engines were behind when this trace completed, so they analysed a sample of traces, and this one fell outside it',
  configured: 'this deployment analyses a sample of traces (SVC_ENGINE_SAMPLE_RATE), and this one fell outside it',
  too_large: 'this trace is larger than the engines load (SVC_ENGINE_MAX_TRACE_SPANS spans or SVC_ENGINE_MAX_TRACE_BYTES of attributes)',
}

/** The note a tab shows instead of `what` for a trace its engine skipped; a reason this console does not know is still a skip. */
export function skippedNote(what: string, reason: string): string {
  const why = WHY[reason as SkipReason] ?? `the engine skipped this trace (${reason})`
  // A sampled-out trace is analysed again if late spans re-open it and it falls in the sample then; a large one only grows.
  return `No ${what} for this trace: ${why}. ${reason === 'too_large' ? 'It will not be computed.' : 'It will not be computed unless more spans arrive for it.'}`
}
