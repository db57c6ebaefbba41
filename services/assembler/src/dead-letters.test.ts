/**
 * The assembler's two consumers on the real embedded log and embedded ClickHouse:
 * a span record that cannot be read or stored goes to spans.raw.v1.dlq and the
 * spans around it land; the dead-letter sink lands every .dlq topic in
 * dead_letters_v1 (ingestion health counts each record once), and lands its own
 * poison there too instead of dead-lettering it again.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { deadLetterV1, engineJobFailedV1, spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { allTopicSpecs, dlqTopic, engineJobsDlqTopic, GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import { stableUuid } from '@svc/shared/control/secrets'
import { ControlState } from '@svc/shared/control/state'
import { createLogger } from '@svc/shared/log'
import { processRegistry } from '@svc/shared/metrics'
import { ingestionFigures } from '@svc/shared/store/queries/ingestion-health'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import type { Store } from '@svc/shared/store/types'
import { startAssembler } from './service.js'
import { eventually } from '@svc/shared/test-support/eventually'

const log = createLogger({ level: 'silent' })
const ORG = stableUuid('org:dead-letters')
const WS = stableUuid('ws:dead-letters')
const NOW = Date.now()
let dir: string
let store: Store
let bus: Bus
let assembler: Awaited<ReturnType<typeof startAssembler>>

const span = (trace: string, id: string, over: Partial<SpanRecord> = {}): SpanRecord => ({
  org_id: ORG, workspace_id: WS, project_id: 'p', trace_id: trace, span_id: id, parent_span_id: '', name: 'step', kind: 'INTERNAL',
  start_time_unix_nano: BigInt(NOW - 60_000) * 1_000_000n, end_time_unix_nano: BigInt(NOW - 59_000) * 1_000_000n, status_code: 'OK', status_message: '',
  service_name: 's', scope_name: 's', resource_attributes: {}, attributes: {}, json_attribute_keys: [], events_json: '[]', links_json: '[]', received_at_ms: NOW, ...over,
})

async function committed(group: string, topic: string) {
  const end = [...(await bus.endOffsets(topic)).values()].reduce((a, b) => a + Number(b), 0)
  const done = async () => [...(await bus.committedOffsets(group, topic)).values()].reduce((a, b) => a + Number(b), 0) === end
  for (let i = 0; i < 4000 && !(await done()); i++) await new Promise((r) => setTimeout(r, 5))
  expect(await done()).toBe(true)
}

const deadRows = () =>
  store.query<{ workspace_id: string; source: string; reason: string; dlq_topic: string; original_topic: string; original_offset: number }>(
    'SELECT workspace_id, source, reason, dlq_topic, original_topic, original_offset FROM dead_letters_v1 ORDER BY dlq_topic, dlq_offset',
  )

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'assembler-dead-letters-'))
  const config = loadConfig({ SVC_DATA_DIR: dir, SVC_ASSEMBLER_FLUSH_MS: '20' })
  store = await createStore(config, log)
  await migrate(store, log)
  bus = await createEmbeddedBus({ dir: join(dir, 'log') })
  await bus.ensureTopics(allTopicSpecs({ partitions: 2, replicationFactor: 1 }))
  assembler = await startAssembler({ bus, store, control: { state: new ControlState() }, cache: createMemoryCache(), config, log })
})
afterAll(async () => {
  await assembler?.close()
  await bus?.close()
  await store?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('assembler dead letters', () => {
  it('dead-letters span records it cannot read or store, lands the spans around them, and counts each in ingestion health', async () => {
    const trace = 'a'.repeat(32)
    const key = traceKey(WS, trace)
    await bus.produce(TOPICS.spansRaw, [
      { key, value: spanV1.encode(span(trace, '1'.repeat(16))) },
      { key, value: Buffer.from('not a span') },
      { key, value: spanV1.encode(span(trace, '2'.repeat(16), { org_id: 'acme' })) },
      { key, value: spanV1.encode(span(trace, '3'.repeat(16))) },
    ])
    await committed(GROUPS.assembler, TOPICS.spansRaw)
    const stored = await store.query<{ span_id: string }>('SELECT span_id FROM spans_v1 WHERE workspace_id = {ws:UUID} ORDER BY span_id', { ws: WS })
    expect(stored.map((s) => s.span_id)).toEqual(['1'.repeat(16), '3'.repeat(16)])

    await committed(GROUPS.deadLetterSink, TOPICS.spansRawDlq)
    const rows = (await deadRows()).filter((r) => r.dlq_topic === TOPICS.spansRawDlq)
    expect(rows.map((r) => [r.workspace_id, r.source, r.original_topic])).toEqual([
      [WS, GROUPS.assembler, TOPICS.spansRaw],
      [WS, GROUPS.assembler, TOPICS.spansRaw],
    ])
    expect(rows[0]!.reason).toMatch(/^undecodable span\.v1\.avsc/)
    expect(rows[1]!.reason).toBe('org_id or workspace_id is not a UUID')
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(2)
    expect(await processRegistry.getSingleMetricAsString('svc_consumer_dead_letters_total')).toContain(`{topic="${TOPICS.spansRaw}",reason="undecodable"} 1`)

    // The same dead letter written twice (a crash between it and its batch's commit) counts once.
    let first: Buffer | undefined
    const read = await bus.subscribe({ group: 'read', topics: [TOPICS.spansRawDlq], ephemeral: true, onBatch: async (rs) => void (first ??= rs[0]!.value) })
    const again = await eventually(async () => first, 10_000, 5).finally(() => read.close())
    await bus.produce(TOPICS.spansRawDlq, [{ key, value: again }])
    await committed(GROUPS.deadLetterSink, TOPICS.spansRawDlq)
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(2)
  })

  it('lands the dead letters of every consumer, engine jobs included, and its own poison without a .dlq of its own', async () => {
    const results = dlqTopic(TOPICS.engineResults)
    await bus.produce(results, [
      {
        key: `${WS}:t`,
        value: deadLetterV1.encode({
          org_id: ORG, workspace_id: WS, source: GROUPS.engineResultsSink, reason: 'extras_json is not a JSON object', payload: '', received_at_ms: Date.now(),
          original_topic: TOPICS.engineResults, original_partition: 1, original_offset: 42, original_value: Buffer.from('result bytes'),
        }),
      },
      { key: `${WS}:t`, value: Buffer.from('neither a dead letter nor anything else') },
    ])
    const jobs = engineJobsDlqTopic('sources')
    await bus.produce(jobs, [
      { key: `${WS}:t`, value: engineJobFailedV1.encode({ engine: 'sources', job: Buffer.from('job'), workspace_id: WS, trace_id: 't', error: 'provider unreachable', attempts: 3, failed_at_ms: Date.now() }) },
    ])
    await committed(GROUPS.deadLetterSink, results)
    await committed(GROUPS.deadLetterSink, jobs)
    const rows = await deadRows()
    expect(rows.filter((r) => r.dlq_topic === results).map((r) => [r.workspace_id, r.source, r.original_topic, Number(r.original_offset)])).toEqual([
      [WS, GROUPS.engineResultsSink, TOPICS.engineResults, 42],
      [WS, GROUPS.deadLetterSink, '', -1],
    ])
    expect(rows.filter((r) => r.dlq_topic === jobs).map((r) => [r.workspace_id, r.source, r.reason])).toEqual([[WS, 'engine.sources', 'provider unreachable']])
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(5)
    // Nothing was written to a dead-letter topic of a dead-letter topic.
    expect(await bus.endOffsets(`${results}.dlq`).catch(() => 'no such topic')).toBe('no such topic')
  })
})
