import { oneAtATime } from '@svc/shared/concurrency'
import type { Logger } from '@svc/shared/log'
import { runConsumer } from '@svc/shared/bus/run-consumer'
import type { Bus, Subscription } from '@svc/shared/bus/types'
import type { Cache } from '@svc/shared/cache/types'
import type { Config } from '@svc/shared/config'
import type { ControlState } from '@svc/shared/control/state'
import { enabledTraceEngines } from '@svc/shared/domain/engines'
import { loadPriceTable, workspaceCostProvider } from '@svc/shared/domain/pricing'
import { workspaceRetentionHours } from '@svc/shared/domain/retention'
import { createBatchWriter } from '@svc/shared/store/batch-writer'
import { batchIds, reconcileRollups } from '@svc/shared/store/queries/rollups'
import { reconcileTraceTotals, storedSpans, tracesWithTotals } from '@svc/shared/store/queries/trace-totals'
import { traceKey } from '@svc/shared/bus/records'
import { findUncompletedTraces } from '@svc/shared/store/queries/traces'
import type { Store } from '@svc/shared/store/types'
import { SPAN_COLUMNS, spanKey } from './assemble.js'
import { emitCompletions } from './completion.js'
import { budgetWatch } from './budget-watch.js'
import { deadLetterSinkConsumer } from './dead-letter-sink.js'
import { fleetMonitorOnce } from './fleet-monitor.js'
import { retentionSweeper } from './retention-sweeper.js'
import { WORKSPACE_SYNC_MS, workspaceSync } from './workspace-sync.js'
import { spanConsumer } from './span-consumer.js'
import { TraceTracker } from './trace-tracker.js'

type RetentionSweeper = ReturnType<typeof retentionSweeper>
type BudgetWatch = ReturnType<typeof budgetWatch>

/**
 * A job run every `everyMs`, and on demand (`run`), one run at a time: a run waits
 * for the one before it, and a failed run (logged) does not stop the next.
 */
function periodic<T>(job: (nowMs?: number) => Promise<T>, everyMs: number, log: Logger, what: string) {
  const queue = oneAtATime()
  const run = (nowMs?: number): Promise<T> => queue(() => job(nowMs))
  const timer = setInterval(() => void run().catch((err) => log.warn({ err }, `${what} failed`)), everyMs)
  timer.unref()
  return {
    run,
    async stop() {
      clearInterval(timer)
      await queue.idle()
    },
  }
}

export interface AssemblerDeps {
  bus: Bus
  store: Store
  control: { state: ControlState }
  /** Coordinates the hourly retention sweep across processes. */
  cache: Cache
  config: Config
  log: Logger
}

/** Share of the last second the assembler spent on span batches above which the hot path counts as busy. */
const BUSY_SHARE = 0.1

/**
 * Whether assembly is loaded: the share of recent wall time spent handling span
 * batches (a duty cycle, so it is independent of batch sizes and partitions).
 * Processes that run other consumers beside the assembler (the all-in-one) let
 * them wait while it is, so background analysis never slows the path from
 * accepted to listed.
 */
function hotPathLoad() {
  let windowStart = Date.now()
  let busyMs = 0
  let share = 0
  let running = 0
  let runningSince = 0
  const roll = (now: number) => {
    if (now - windowStart < 1000) return
    if (running) busyMs += now - runningSince
    runningSince = now
    share = busyMs / (now - windowStart)
    windowStart = now
    busyMs = 0
  }
  return {
    observe<A extends unknown[], R>(handler: (...args: A) => Promise<R>) {
      return async (...args: A): Promise<R> => {
        const start = Date.now()
        roll(start)
        if (running++ === 0) runningSince = start
        try {
          return await handler(...args)
        } finally {
          const end = Date.now()
          if (--running === 0) busyMs += end - runningSince
          roll(end)
        }
      }
    },
    busy: () => {
      roll(Date.now())
      return share >= BUSY_SHARE || (running > 0 && Date.now() - runningSince > 250)
    },
  }
}

/** How far back a restarted assembler looks for traces whose completion it may have missed. */
const RECOVERY_WINDOW_MS = 6 * 3600_000

/**
 * The assembler: spans.raw.v2 (and v1) -> spans_v1 (and, through traces_v1_mv, traces_v1),
 * quiet traces -> engine.<name>.jobs.v1, every .dlq topic -> dead_letters_v1.
 */
export async function startAssembler(deps: AssemblerDeps): Promise<{ close(): Promise<void>; tracker: TraceTracker; busy(): boolean; sweepRetention: RetentionSweeper['sweepOnce']; checkBudgets: BudgetWatch['checkOnce']; rollUpDrift(nowMs?: number): Promise<number> }> {
  const { bus, store, control, config } = deps
  const log = deps.log.child({ component: 'assembler' })
  const tracker = new TraceTracker(config.SVC_TRACE_QUIET_MS, undefined, config.SVC_TRACE_MAX_OPEN_SECONDS * 1000)
  // Loaded once: a new table applies from the next start, to spans assembled from then on.
  const prices = loadPriceTable(config.SVC_PRICE_TABLE_FILE)
  const writer = createBatchWriter({ store, table: 'spans_v1', maxRows: config.SVC_ASSEMBLER_BATCH_ROWS, flushIntervalMs: config.SVC_ASSEMBLER_FLUSH_MS, log })

  const recovered = await findUncompletedTraces(store, { sinceMs: Date.now() - RECOVERY_WINDOW_MS, quietBeforeMs: Date.now(), limit: 200_000 })
  for (const t of recovered)
    tracker.recover(
      { org_id: t.org_id, workspace_id: t.workspace_id, project_id: t.project_id, trace_id: t.trace_id, recoveredSpanCount: t.span_count, startNs: BigInt(t.trace_start_ns), endNs: BigInt(t.trace_end_ns), lastReceivedMs: t.last_received_at_ms },
      Date.now(),
    )
  if (recovered.length) log.info({ traces: recovered.length }, 're-armed traces whose completion was not recorded')

  const subs: Subscription[] = []
  const load = hotPathLoad()
  const spans = spanConsumer({
    sink: {
      async encoding() {
        const encoding = await store.rowEncoding('spans_v1', SPAN_COLUMNS)
        if (!encoding) throw new Error('spans_v1 has a column the assembler cannot write as RowBinary')
        return encoding
      },
      add: (rows) => writer.add(rows),
    },
    tracker,
    log,
    maxBatchSpans: config.SVC_ASSEMBLER_BATCH_ROWS,
    rowContextFor: (ws) => ({
      retentionHours: workspaceRetentionHours(control.state, ws, config.SVC_DEFAULT_RETENTION_HOURS),
      costProvider: workspaceCostProvider(control.state, ws, config.SVC_DEFAULT_COST_PROVIDER),
      prices,
    }),
    storedSpans: async (traces, replayed) => new Set((await storedSpans(store, traces, replayed)).map(spanKey)),
    tracesWithTotals: async (traces) => new Set((await tracesWithTotals(store, traces)).map((t) => traceKey(t.workspace_id, t.trace_id))),
    reconcile: (traces) => reconcileTraceTotals(store, traces),
    reconcileRollups: (traces) => reconcileRollups(store, traces),
    nextBatchId: batchIds(),
    // A failed commit is covered by the next one, so up to two batches can be replayed.
    replayGuardSpans: 2 * config.SVC_ASSEMBLER_BATCH_ROWS,
  })
  subs.push(await runConsumer(bus, { ...spans, handle: load.observe(spans.handle) }))
  subs.push(await runConsumer(bus, deadLetterSinkConsumer(store, log.child({ component: 'dead-letter-sink' }))))
  await Promise.all(subs.map((s) => s.ready))

  const enginesFor = (ws: string) => enabledTraceEngines(control.state, ws)
  let ticking: Promise<void> = Promise.resolve()
  const tick = async () => {
    const now = Date.now()
    const due = tracker.takeCompleted(now)
    try {
      await emitCompletions({ bus, store, log, enginesFor }, due, now)
    } catch (err) {
      log.warn({ err, traces: due.length }, 'emitting trace completions failed; will retry')
      tracker.restore(due)
    }
  }
  const timer = setInterval(() => {
    ticking = ticking.then(tick)
  }, Math.min(1000, Math.max(50, Math.floor(config.SVC_TRACE_QUIET_MS / 4))))

  const sweeper = retentionSweeper({ store, state: control.state, cache: deps.cache, defaultHours: config.SVC_DEFAULT_RETENTION_HOURS, log })
  const sweeps = periodic((nowMs) => sweeper.sweepOnce(nowMs), config.SVC_RETENTION_SWEEP_MS, log, 'retention sweep')
  const budgets = budgetWatch({ bus, store, state: control.state, cache: deps.cache, log })
  const checks = periodic((nowMs) => budgets.checkOnce(nowMs), config.SVC_BUDGET_CHECK_MS, log, 'budget check')
  // fleet_monitor: each allowed workspace's day row (drift + anomalies), recomputed on a schedule; resolves to the workspaces rolled up.
  const drifts = periodic(
    async (nowMs = Date.now()) => {
      const runs = await fleetMonitorOnce({ store, state: control.state, baselineDays: config.SVC_DRIFT_BASELINE_DAYS, log }, nowMs)
      return runs.filter((r) => r.ok).length
    },
    config.SVC_DRIFT_ROLLUP_MS,
    log,
    'drift roll-up',
  )

  // workspaces_v1 for the analytics views: everything once now, then what changes.
  const workspaceRows = workspaceSync({ store, state: control.state, defaultRetentionHours: config.SVC_DEFAULT_RETENTION_HOURS, log })
  const workspaces = periodic((nowMs) => workspaceRows.syncOnce(nowMs), WORKSPACE_SYNC_MS, log, 'workspaces_v1 sync')
  await workspaces.run().catch((err) => log.warn({ err }, 'workspaces_v1 sync failed; retrying'))

  log.info('assembler running')
  return {
    tracker,
    busy: load.busy,
    checkBudgets: checks.run,
    sweepRetention: sweeps.run,
    rollUpDrift: drifts.run,
    async close() {
      clearInterval(timer)
      await Promise.all([sweeps.stop(), checks.stop(), drifts.stop(), workspaces.stop()])
      await Promise.all(subs.map((s) => s.close()))
      await writer.close()
      await ticking
    },
  }
}
