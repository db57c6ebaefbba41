import { loadPriceTable } from '@svc/shared/domain/pricing'
import { describe, expect, it } from 'vitest'
import { spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { consumerBatchHandler } from '@svc/shared/bus/run-consumer'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { createLogger } from '@svc/shared/log'
import { spanKey, type SpanRow } from './assemble.js'
import { spanConsumer, tracesOf } from './span-consumer.js'
import { TraceTracker } from './trace-tracker.js'

const WS = '22222222-2222-5222-8222-222222222222'
const record = (trace: string, span: string, offset: number, partition = 0, ws = WS): ConsumedRecord => {
  const value: SpanRecord = {
    org_id: '11111111-1111-5111-8111-111111111111', workspace_id: ws, project_id: 'p', trace_id: trace.repeat(32), span_id: span.repeat(16), parent_span_id: '',
    name: 'step', kind: 'INTERNAL', start_time_unix_nano: 1_700_000_000_000_000_000n, end_time_unix_nano: 1_700_000_001_000_000_000n, status_code: 'OK', status_message: '',
    service_name: 's', scope_name: 's', resource_attributes: {}, attributes: {}, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: 1_700_000_002_000,
  }
  return { topic: 'spans.raw.v1', partition, offset: String(offset), key: Buffer.from(traceKey(ws, trace.repeat(32))), value: spanV1.encode(value), timestamp: 0 }
}

/** The handler against an in-memory "store": what it stores, and what it asks to reconcile. */
function harness(guard: number, withTotals: (trace: string) => boolean = () => true, retentionHours: (ws: string) => number = () => 24) {
  const stored = new Map<string, SpanRow>()
  const reconciled: string[][] = []
  const handle = consumerBatchHandler({} as Bus, spanConsumer({
    maxBatchRecords: 1000,
    log: createLogger({ level: 'silent' }),
    tracker: new TraceTracker(60_000),
    rowContextFor: (ws) => ({ retentionHours: retentionHours(ws), costProvider: 'openai', prices: loadPriceTable() }),
    sink: { add: async (rows) => void rows.forEach((r) => stored.has(spanKey(r)) || stored.set(spanKey(r), r)) },
    storedSpans: async (traces) => new Set([...stored.keys()].filter((k) => traces.some((t) => k.startsWith(`${traceKey(t.workspace_id, t.trace_id)}:`)))),
    tracesWithTotals: async (traces) => new Set(traces.filter((t) => withTotals(t.trace_id[0]!)).map((t) => traceKey(t.workspace_id, t.trace_id))),
    reconcile: async (traces) => (reconciled.push(traces.map((t) => t.trace_id[0]!).sort()), 0),
    reconcileRollups: async () => {},
    nextBatchId: () => '1',
    replayGuardRecords: guard,
  }))
  return { handle, stored, reconciled }
}

describe('spanBatchHandler', () => {
  it('marks spans already stored, or repeated in the batch, as repeats', async () => {
    const h = harness(0)
    await h.handle([record('a', '1', 0), record('a', '2', 1), record('a', '1', 2)])
    await h.handle([record('a', '2', 3), record('a', '3', 4)])
    const firsts = [...h.stored.values()].map((r) => [r.span_id[0], r.first_delivery])
    expect(firsts).toEqual([['1', 1], ['2', 1], ['3', 1]])
  })

  it("gives each span its own workspace's context when workspaces alternate in a batch", async () => {
    const other = '33333333-3333-5333-8333-333333333333'
    const h = harness(0, () => true, (ws) => (ws === WS ? 24 : 48))
    await h.handle([record('a', '1', 0), record('a', '2', 1, 0, other), record('b', '1', 2), record('b', '2', 3, 0, other), record('c', '1', 4, 0, other)])
    const start = 1_700_000_000
    expect([...h.stored.values()].map((r) => [r.workspace_id === WS ? 'ws' : 'other', r.expires_at - start])).toEqual([
      ['ws', 24 * 3600], ['other', 48 * 3600], ['ws', 24 * 3600], ['other', 48 * 3600], ['other', 48 * 3600],
    ])
  })

  it('reconciles the traces of the first records after a start, a gap or a retried batch, and not otherwise', async () => {
    const h = harness(3)
    await h.handle([record('a', '1', 10), record('b', '1', 11)])
    expect(h.reconciled).toEqual([['a', 'b']])
    await h.handle([record('c', '1', 12), record('d', '1', 13)]) // third record is the last in the guard
    expect(h.reconciled).toEqual([['a', 'b'], ['c']])
    await h.handle([record('e', '1', 14)])
    expect(h.reconciled).toHaveLength(2)
    await h.handle([record('e', '1', 14)]) // the same batch again: a retry
    expect(h.reconciled.at(-1)).toEqual(['e'])
    await h.handle([record('f', '1', 40)]) // offsets jumped: another consumer had the partition
    expect(h.reconciled.at(-1)).toEqual(['f'])
    await h.handle([record('g', '1', 0, 1)]) // a partition seen for the first time
    expect(h.reconciled.at(-1)).toEqual(['g'])
  })

  it('reconciles only replayed traces stored before: with sums already, or with spans repeated', async () => {
    const h = harness(10, (trace) => trace === 'a')
    await h.handle([record('a', '1', 0), record('b', '1', 1), record('c', '1', 2)])
    expect(h.reconciled).toEqual([['a']])
    await h.handle([record('c', '1', 0), record('d', '1', 1)]) // replayed again: c's span is stored now
    expect(h.reconciled.at(-1)).toEqual(['c'])
  })
})

describe('tracesOf', () => {
  const row = (ws: string, trace: string) => ({ workspace_id: ws, trace_id: trace }) as SpanRow
  it('lists each trace once, in first-seen order, a trace id in two workspaces as two traces', () => {
    const rows = [row('w', 'a'), row('w', 'a'), row('w', 'b'), row('w', 'a'), row('v', 'a'), row('v', 'a'), row('w', 'b')]
    expect(tracesOf(rows)).toEqual([
      { workspace_id: 'w', trace_id: 'a' },
      { workspace_id: 'w', trace_id: 'b' },
      { workspace_id: 'v', trace_id: 'a' },
    ])
  })
})
