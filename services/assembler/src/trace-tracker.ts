/**
 * Which traces are still receiving spans, and which have gone quiet. A trace is
 * complete when no span for it has been accepted for `quietMs`; completion emits its
 * engine jobs. A late span simply re-opens the trace and it completes again later
 * (engines keep the newest result).
 *
 * Quietness is measured on the ingest clock (received_at), not on arrival at the
 * assembler, so a replay after a restart does not make old traces look fresh.
 */
export interface OpenTrace {
  org_id: string
  workspace_id: string
  project_id: string
  trace_id: string
  spanIds: Set<string>
  /** Spans seen past the MAX_TRACKED_SPAN_IDS kept ids: counted, not told apart (a copy may count twice). */
  untrackedSpans?: number
  /** Spans known from storage when the trace was recovered after a restart. */
  recoveredSpanCount: number
  startNs: bigint
  endNs: bigint
  lastReceivedMs: number
  /** When this process last saw a span for it (bounds the wait when clocks disagree). */
  lastSeenLocalMs: number
  /** When this process opened it: a trace open longer than maxOpenMs is completed as it stands. */
  openedLocalMs?: number
}

/** What one batch stored of a trace: its spans' ids, their earliest start, latest end and newest receipt. */
export interface ObservedTrace {
  org_id: string
  workspace_id: string
  project_id: string
  trace_id: string
  spanIds: Iterable<string>
  startNs: bigint
  endNs: bigint
  receivedMs: number
}

/**
 * Span ids one open trace keeps to count its distinct spans: a producer that sends one trace id without
 * a pause never lets it go quiet, and its ids must not grow the assembler's memory without end
 * (past this a span is counted, a few MB of ids per trace at most).
 */
export const MAX_TRACKED_SPAN_IDS = 100_000

/** Adds span ids to a trace's set, counting those past the bound. */
function track(t: OpenTrace, ids: Iterable<string>): void {
  for (const id of ids)
    if (t.spanIds.size < MAX_TRACKED_SPAN_IDS || t.spanIds.has(id)) t.spanIds.add(id)
    else t.untrackedSpans = (t.untrackedSpans ?? 0) + 1
}

export class TraceTracker {
  private readonly open = new Map<string, OpenTrace>()
  /** The trace observe() saw last; forgotten whenever a trace leaves `open`. */
  private last: OpenTrace | undefined

  /**
   * `maxOpenMs`: a trace whose spans never pause long enough to go quiet (an agent that runs for hours, or a
   * producer that reuses one trace id) is completed this long after it opened, so its engines analyse it as it
   * stands; later spans re-open it, and it completes again.
   */
  constructor(
    private readonly quietMs: number,
    private readonly maxOpen = 500_000,
    private readonly maxOpenMs = Infinity,
  ) {}

  get size() {
    return this.open.size
  }

  observe(s: ObservedTrace, nowMs: number): void {
    // Batches come trace by trace: the previous trace, while still open, needs no key or look-up.
    let t = this.last
    if (!t || t.trace_id !== s.trace_id || t.workspace_id !== s.workspace_id) {
      const key = `${s.workspace_id}:${s.trace_id}`
      t = this.open.get(key)
      if (!t) {
        t = { org_id: s.org_id, workspace_id: s.workspace_id, project_id: s.project_id, trace_id: s.trace_id, spanIds: new Set(), recoveredSpanCount: 0, startNs: s.startNs, endNs: s.endNs, lastReceivedMs: s.receivedMs, lastSeenLocalMs: nowMs, openedLocalMs: nowMs }
        this.open.set(key, t)
      }
      this.last = t
    }
    track(t, s.spanIds)
    if (s.startNs < t.startNs) t.startNs = s.startNs
    if (s.endNs > t.endNs) t.endNs = s.endNs
    if (s.receivedMs > t.lastReceivedMs) t.lastReceivedMs = s.receivedMs
    t.lastSeenLocalMs = nowMs
  }

  /** Re-arms a trace found in storage without a completion (after a restart). */
  recover(t: Omit<OpenTrace, 'spanIds' | 'lastSeenLocalMs' | 'openedLocalMs'>, nowMs: number): void {
    const key = `${t.workspace_id}:${t.trace_id}`
    if (this.open.has(key)) return
    this.open.set(key, { ...t, spanIds: new Set(), lastSeenLocalMs: nowMs, openedLocalMs: nowMs })
  }

  /**
   * Removes and returns the traces that have been quiet long enough. When more
   * traces are open than `maxOpen`, the quietest are completed early so memory stays
   * bounded (they re-open if more spans come).
   */
  takeCompleted(nowMs: number): OpenTrace[] {
    const done: OpenTrace[] = []
    this.last = undefined
    for (const [key, t] of this.open) {
      if (this.isQuiet(t, nowMs) || nowMs - (t.openedLocalMs ?? nowMs) >= this.maxOpenMs) {
        done.push(t)
        this.open.delete(key)
      }
    }
    if (this.open.size > this.maxOpen) {
      const excess = [...this.open.entries()].sort((a, b) => a[1].lastReceivedMs - b[1].lastReceivedMs).slice(0, this.open.size - this.maxOpen)
      for (const [key, t] of excess) {
        done.push(t)
        this.open.delete(key)
      }
    }
    return done
  }

  /**
   * Quiet on the ingest clock, with a short local grace so a replay burst can
   * deliver the rest of a trace first; quiet on the local clock alone bounds the
   * wait when the ingest host's clock runs ahead.
   */
  private isQuiet(t: OpenTrace, nowMs: number): boolean {
    const sinceSeen = nowMs - t.lastSeenLocalMs
    if (sinceSeen >= this.quietMs) return true
    return nowMs - t.lastReceivedMs >= this.quietMs && sinceSeen >= Math.min(this.quietMs, 1000)
  }

  /** Puts traces back when emitting their jobs failed, so the next tick retries. */
  restore(traces: OpenTrace[]): void {
    for (const t of traces) {
      const key = `${t.workspace_id}:${t.trace_id}`
      const now = this.open.get(key)
      if (!now) this.open.set(key, t)
      else {
        track(now, t.spanIds)
        now.untrackedSpans = (now.untrackedSpans ?? 0) + (t.untrackedSpans ?? 0)
        now.recoveredSpanCount = Math.max(now.recoveredSpanCount, t.recoveredSpanCount)
        if (t.startNs < now.startNs) now.startNs = t.startNs
        if (t.endNs > now.endNs) now.endNs = t.endNs
      }
    }
  }
}

export const spanCountOf = (t: OpenTrace) => Math.max(t.spanIds.size + (t.untrackedSpans ?? 0), t.recoveredSpanCount)
