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
import { codingAgentEventV1, codingAgentMetricV1, type CodingAgentMetricRecord } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import type { Logger } from '@svc/shared/log'
import { insertCodingAgentRows, previousPoints } from '@svc/shared/store/queries/coding-agent'
import type { Store } from '@svc/shared/store/types'
import { firstTimes, mapEvent, metricPoint, withDeltas, type CommitRow, type EventRow, type FileEditRow, type MetricRow } from './map.js'

export function codingAgentBatchHandler(store: Store, log: Logger) {
  return async (records: ConsumedRecord[]): Promise<void> => {
    const points: CodingAgentMetricRecord[] = []
    const events: EventRow[] = []
    const commits: CommitRow[] = []
    const edits: FileEditRow[] = []
    for (const r of records) {
      try {
        if (r.topic.endsWith(TOPICS.codingAgentMetrics)) points.push(codingAgentMetricV1.decode(r.value))
        else {
          const m = mapEvent(codingAgentEventV1.decode(r.value))
          events.push(m.event)
          commits.push(...m.commits)
          edits.push(...m.edits)
        }
      } catch (err) {
        log.error({ err, topic: r.topic, partition: r.partition, offset: r.offset }, 'undecodable coding-agent record dropped')
      }
    }
    const metrics: MetricRow[] = []
    const byWorkspace = new Map<string, Array<{ row: MetricRow; monotonic: boolean }>>()
    for (const p of points) {
      const entry = { row: metricPoint(p), monotonic: p.is_monotonic }
      const list = byWorkspace.get(p.workspace_id)
      if (list) list.push(entry)
      else byWorkspace.set(p.workspace_id, [entry])
    }
    for (const [ws, list] of byWorkspace) {
      const stored = await previousPoints(store, ws, firstTimes(list.filter((p) => p.row.temporality === 'cumulative').map((p) => p.row)))
      metrics.push(...withDeltas(list, stored))
    }
    await insertCodingAgentRows(store, { metrics: metrics as never, events: events as never, commits: commits as never, edits: edits as never })
  }
}
