/**
 * The coding-agent consumer's batch handler: coding-agent.metrics.v1 and
 * coding-agent.events.v1 -> coding_agent_{metrics,events,commits,file_edits}_v1.
 *
 * At least once, landed idempotently: every row is a pure function of its record
 * (and, for cumulative metric points, of the series' previous stored point, which
 * a replay reads back the same), and every table collapses copies by key.
 * A series is on one partition (keyed by session), consumed in order, and each
 * batch is stored before the next is read, so the previous point is always there.
 */
import { codingAgentEventV1, codingAgentMetricV1, type CodingAgentEventRecord, type CodingAgentMetricRecord } from '@svc/shared/bus/records'
import type { ConsumerContext, ConsumerSpec, Delivered, Rejection } from '@svc/shared/bus/run-consumer'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import { every, nextTurn } from '@svc/shared/concurrency'
import { GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Logger } from '@svc/shared/log'
import { insertCodingAgentRows, previousPoints } from '@svc/shared/store/queries/coding-agent'
import type { Store } from '@svc/shared/store/types'
import { firstTimes, mapEvent, metricPoint, withDeltas, type CommitRow, type EventRow, type FileEditRow, type MetricRow, type PrevPoint } from './map.js'
import { StoredPoints } from './stored-points.js'

type CodingAgentRecord = CodingAgentMetricRecord | CodingAgentEventRecord

/** The coding-agent consumer (group coding-agent over both topics), run by runConsumer. */
export function codingAgentConsumer(store: Store, log: Logger): ConsumerSpec<CodingAgentRecord> {
  const stored = new StoredPoints()
  return {
    group: GROUPS.codingAgent,
    topics: { [TOPICS.codingAgentMetrics]: codingAgentMetricV1, [TOPICS.codingAgentEvents]: codingAgentEventV1 },
    // Large batches: each costs at most one previous-point lookup and four inserts whatever its size.
    maxBatchRecords: 20_000,
    log,
    handle: (batch, ctx) => landCodingAgentRecords(store, stored, batch, ctx),
  }
}

type Point = { row: MetricRow; monotonic: boolean; record: ConsumedRecord }

async function landCodingAgentRecords(store: Store, stored: StoredPoints, batch: Array<Delivered<CodingAgentRecord>>, ctx: ConsumerContext): Promise<Rejection[]> {
  stored.begin(ctx.records)
  const rejected: Rejection[] = []
  const points: Point[] = []
  const events: EventRow[] = []
  const commits: CommitRow[] = []
  const edits: FileEditRow[] = []
  // In the all-in-one this runs on the thread ingest answers on: let it, now and then (concurrency.ts every).
  const due = every()
  for (const { value, record } of batch) {
    if (due()) await nextTurn()
    // Mapping is pure: what throws here throws on every delivery, so it is the record's fault.
    try {
      if (record.topic === TOPICS.codingAgentMetrics) {
        const p = value as CodingAgentMetricRecord
        points.push({ row: metricPoint(p), monotonic: p.is_monotonic, record })
      } else {
        const m = mapEvent(value as CodingAgentEventRecord)
        events.push(m.event)
        commits.push(...m.commits)
        edits.push(...m.edits)
      }
    } catch (err) {
      rejected.push({ record, reason: `unmappable coding-agent record: ${err instanceof Error ? err.message : String(err)}`, workspaceId: value.workspace_id, orgId: value.org_id })
    }
  }
  const byWorkspace = new Map<string, Point[]>()
  for (const p of points) {
    const list = byWorkspace.get(p.row.workspace_id)
    if (list) list.push(p)
    else byWorkspace.set(p.row.workspace_id, [p])
  }
  // The workspaces' lookups at once: a ClickHouse server answers them side by side.
  const converted = await Promise.all([...byWorkspace].map(async ([ws, list]) => withDeltas(list, await previousOf(store, stored, ws, list))))
  const metrics = converted.flat()
  await insertCodingAgentRows(store, { metrics: metrics as never, events: events as never, commits: commits as never, edits: edits as never })
  stored.stored(ctx.records, points)
  return rejected
}

/** The previous stored point of each cumulative series of the batch: remembered (stored-points.ts), else looked up. */
async function previousOf(store: Store, stored: StoredPoints, workspaceId: string, list: Point[]): Promise<Map<string, PrevPoint>> {
  const cumulative = list.filter((p) => p.row.temporality === 'cumulative')
  const partitionOf = new Map(cumulative.map((p) => [p.row.series_id, p.record]))
  const known = new Map<string, PrevPoint>()
  const unknown = firstTimes(cumulative.map((p) => p.row))
  for (const [id, first] of unknown) {
    const prev = stored.previous(id, partitionOf.get(id)!, first.timeNs)
    if (prev) {
      known.set(id, prev)
      unknown.delete(id)
    }
  }
  for (const [id, prev] of await previousPoints(store, workspaceId, unknown)) known.set(id, prev)
  return known
}
