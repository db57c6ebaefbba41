/**
 * A crash between a batch's spans_v1 part and its view parts, then the restart:
 * the assembler (the real service on the embedded log and embedded ClickHouse)
 * replays the uncommitted records and leaves traces_v1, usage_hourly_v1 and
 * latency_hourly_v1 equal to a reference over the distinct stored spans, whichever
 * of the view parts were lost.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import type { SpanRecord } from '@svc/shared/bus/records'
import { spanBatchRecords } from '@svc/shared/bus/span-batch'
import { allTopicSpecs, GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig, type Config } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { loadPriceTable } from '@svc/shared/domain/pricing'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { batchIds } from '@svc/shared/store/queries/rollups'
import { rollupFigures, rollupReference } from '@svc/shared/store/queries/rollups.testkit'
import type { Store } from '@svc/shared/store/types'
import { spanRow } from './assemble.js'
import { markFirstDeliveries, newestPerSpan } from './batch-rows.testkit.js'
import { startAssembler } from './service.js'

const log = createLogger({ level: 'silent' })
const ORG = stableUuid('org:replay')
const WS = stableUuid('ws:replay')
const NOW = Date.now()
let dir: string
let config: Config
let store: Store
let bus: Bus

const span = (trace: string, n: number, attributes: Record<string, string>, status = 'OK'): SpanRecord => ({
  org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace.repeat(32), span_id: String(n).padStart(16, '0'), parent_span_id: n === 1 ? '' : '0000000000000001',
  name: 'step', kind: 'CLIENT', start_time_unix_nano: BigInt(NOW - 600_000 + n * 1000) * 1_000_000n, end_time_unix_nano: BigInt(NOW - 600_000 + n * 1000 + 50 * n) * 1_000_000n,
  status_code: status, status_message: '', service_name: 's', scope_name: 's', resource_attributes: {}, json_attribute_keys: [], events_json: '[]', links_json: '[]',
  received_at_ms: NOW - 1000, attributes,
})
const llm = { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.system': 'openai', 'gen_ai.usage.input_tokens': '100', 'gen_ai.usage.output_tokens': '20' }
const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' }

/** What the crashed run had stored: its rows, as the consumer makes them (nothing stored before), without the parts of these views. */
async function crashedInsert(spans: SpanRecord[], lostViews: string[], batchId: string) {
  const ctx = { retentionHours: config.SVC_DEFAULT_RETENTION_HOURS, costProvider: config.SVC_DEFAULT_COST_PROVIDER, prices: loadPriceTable(config.SVC_PRICE_TABLE_FILE) }
  const { rows, keys } = newestPerSpan(spans.map((s) => ({ ...spanRow(s, ctx), batch_id: batchId })))
  markFirstDeliveries(rows, new Set(), keys)
  for (const v of lostViews) await store.command(`DETACH TABLE ${v}`)
  try {
    await store.insert('spans_v1', rows)
  } finally {
    for (const v of lostViews) await store.command(`ATTACH TABLE ${v}`)
  }
}

const traceSums = () =>
  store.query(`SELECT trace_id, sum(span_count) AS n, round(sum(cost_usd_total), 9) AS c, sum(input_tokens) AS i FROM traces_v1 WHERE workspace_id = {ws:UUID} GROUP BY trace_id ORDER BY trace_id`, { ws: WS })
const traceReference = () =>
  store.query(
    `SELECT trace_id, toInt64(count()) AS n, round(sum(c), 9) AS c, toInt64(sum(i)) AS i
FROM (SELECT trace_id, span_id, any(cost_usd) AS c, any(input_tokens) AS i FROM spans_v1 WHERE workspace_id = {ws:UUID} GROUP BY trace_id, span_id)
GROUP BY trace_id ORDER BY trace_id`,
    { ws: WS },
  )

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'assembler-replay-'))
  config = loadConfig({ SVC_DATA_DIR: dir, SVC_ASSEMBLER_FLUSH_MS: '20' })
  store = await createStore(config, log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics(allTopicSpecs({ partitions: 2, replicationFactor: 1 }))
})
afterAll(async () => {
  await bus?.close()
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('assembler replay after a crash between the parts of an insert', () => {
  it('leaves the trace sums and the hourly roll-ups exact, whichever view parts were lost', async () => {
    // An exporter's retry lands in the same batch as the original: a second copy of a:2, received later.
    const lostAll = [span('a', 1, {}), span('a', 2, llm), span('a', 3, tool, 'ERROR'), { ...span('a', 2, llm), received_at_ms: NOW - 500 }]
    const lostLatency = [span('b', 1, {}), span('b', 2, llm)]
    // traces_v1's part lost, usage's landed: the replay must not count these spans in usage again.
    const lostTraces = [span('c', 1, {}), span('c', 2, llm)]
    const later = [span('a', 4, llm), span('c', 3, tool)]
    const all = [...lostAll, ...lostLatency, ...lostTraces, ...later]
    await bus.produce(TOPICS.spansRaw, spanBatchRecords(all))

    // The run that crashed: it stored these records' spans, some of its view parts did not land, and it committed nothing.
    const batch = batchIds()
    await crashedInsert(lostAll, ['traces_v1_mv', 'usage_hourly_v1_mv', 'latency_hourly_v1_mv'], batch())
    await crashedInsert(lostLatency, ['latency_hourly_v1_mv'], batch())
    await crashedInsert(lostTraces, ['traces_v1_mv', 'latency_hourly_v1_mv'], batch())
    expect(await rollupFigures(store, WS)).not.toEqual(await rollupReference(store, WS))
    // Merges ran before the restart: of a span's copies only the newest is left.
    await store.command('OPTIMIZE TABLE spans_v1 FINAL')

    const assembler = await startAssembler({ bus, store, control: { state: new ControlState() }, cache: createMemoryCache(), config, log })
    try {
      const caughtUp = async () => {
        const [ends, done] = await Promise.all([bus.endOffsets(TOPICS.spansRaw), bus.committedOffsets(GROUPS.assembler, TOPICS.spansRaw)])
        return [...ends].every(([p, end]) => end === '0' || done.get(p) === end)
      }
      for (let i = 0; i < 4000 && !(await caughtUp()); i++) await new Promise((r) => setTimeout(r, 5))
      expect(await caughtUp()).toBe(true)
    } finally {
      await assembler.close()
    }
    expect((await traceReference()).map((t) => Number((t as { n: number | string }).n))).toEqual([4, 2, 3])
    expect(await traceSums()).toEqual(await traceReference())
    expect(await rollupFigures(store, WS)).toEqual(await rollupReference(store, WS))
  })
})
