import type { Logger } from '@svc/shared/log'
import { traceCompletedV1, traceKey } from '@svc/shared/bus/records'
import { engineJobsTopic, type TraceEngine } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import type { Store } from '@svc/shared/store/types'
import { spanCountOf, type OpenTrace } from './trace-tracker.js'

/**
 * Emits TraceCompleted jobs for quiet traces, one record per enabled engine on that
 * engine's topic, then records the completion in trace_completions_v1. The record is
 * written after the jobs are durable, so a crash in between re-emits (at least once)
 * rather than losing the completion.
 */
export async function emitCompletions(
  deps: { bus: Bus; store: Store; log: Logger; enginesFor(workspaceId: string): TraceEngine[] },
  traces: OpenTrace[],
  nowMs: number,
): Promise<void> {
  if (traces.length === 0) return
  const byTopic = new Map<string, Array<{ key: string; value: Buffer }>>()
  for (const t of traces) {
    for (const engine of deps.enginesFor(t.workspace_id)) {
      const topic = engineJobsTopic(engine)
      let list = byTopic.get(topic)
      if (!list) byTopic.set(topic, (list = []))
      list.push({
        key: traceKey(t.workspace_id, t.trace_id),
        value: traceCompletedV1.encode({
          org_id: t.org_id,
          workspace_id: t.workspace_id,
          project_id: t.project_id,
          trace_id: t.trace_id,
          span_count: spanCountOf(t),
          trace_start_unix_nano: t.startNs,
          trace_end_unix_nano: t.endNs,
          last_span_received_at_ms: t.lastReceivedMs,
          completed_at_ms: nowMs,
          engine,
        }),
      })
    }
  }
  await Promise.all([...byTopic].map(([topic, records]) => deps.bus.produce(topic, records)))
  await deps.store.insert('trace_completions_v1', traces.map((t) => ({
    workspace_id: t.workspace_id,
    trace_id: t.trace_id,
    last_received_at: String(t.lastReceivedMs),
    span_count: spanCountOf(t),
    completed_at: String(nowMs),
  })), { tag: 'assembler.completions' })
  deps.log.debug({ traces: traces.length, topics: byTopic.size }, 'trace completions emitted')
}
