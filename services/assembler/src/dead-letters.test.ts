/**
 * The assembler's two consumers on the real embedded log and embedded ClickHouse:
 * a span record that cannot be read, or a span that cannot be stored, goes to
 * spans.raw.v2.dlq (spans.raw.v1.dlq for what an older ingest wrote) and the spans
 * around it land; the dead-letter sink lands every .dlq topic in
 * dead_letters_v1 (ingestion health counts each record once), and lands its own
 * poison there too instead of dead-lettering it again.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { deadLetterV1, engineJobFailedV1, spanV1, traceKey, type SpanRecord } from '@svc/shared/bus/records'
import { spanBatchRecords } from '@svc/shared/bus/span-batch'
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
  store.query<{ workspace_id: string; source: string; reason: string; payload: string; dlq_topic: string; original_topic: string; original_offset: number }>(
    'SELECT workspace_id, source, reason, payload, dlq_topic, original_topic, original_offset FROM dead_letters_v1 ORDER BY dlq_topic, dlq_offset',
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
  it('dead-letters span records it cannot read and spans it cannot store, lands the spans around them, and counts each in ingestion health', async () => {
    const trace = 'a'.repeat(32)
    const key = traceKey(WS, trace)
    const batch = (spans: SpanRecord[]) => spanBatchRecords(spans)[0]!
    // A trace's spans of one request share a record; span 4's end is past what spans_v1 holds, the others of its record land.
    await bus.produce(TOPICS.spansRaw, [
      batch([span(trace, '1'.repeat(16))]),
      { key, value: Buffer.from('not a span') },
      batch([span(trace, '2'.repeat(16), { org_id: 'acme' })]),
      batch([span(trace, '3'.repeat(16)), span(trace, '4'.repeat(16), { end_time_unix_nano: -1n }), span(trace, '5'.repeat(16))]),
    ])
    await committed(GROUPS.assembler, TOPICS.spansRaw)
    const stored = await store.query<{ span_id: string }>('SELECT span_id FROM spans_v1 WHERE workspace_id = {ws:UUID} ORDER BY span_id', { ws: WS })
    expect(stored.map((s) => s.span_id)).toEqual(['1', '3', '5'].map((c) => c.repeat(16)))

    await committed(GROUPS.deadLetterSink, TOPICS.spansRawDlq)
    const rows = (await deadRows()).filter((r) => r.dlq_topic === TOPICS.spansRawDlq)
    expect(rows.map((r) => [r.workspace_id, r.source, r.original_topic, Number(r.original_offset)])).toEqual([
      [WS, GROUPS.assembler, TOPICS.spansRaw, 1],
      [WS, GROUPS.assembler, TOPICS.spansRaw, 2],
      [WS, GROUPS.assembler, TOPICS.spansRaw, 3],
    ])
    expect(rows[0]!.reason).toMatch(/^undecodable span-batch\.v2\.avsc/)
    expect(rows[1]!.reason).toBe('org_id or workspace_id is not a UUID')
    expect(rows[2]!.reason).toBe('start or end time outside what spans_v1 can hold')
    // The payload of a span rejected out of a record of several is that span alone.
    expect(JSON.parse(rows[2]!.payload)).toMatchObject({ span_id: '4'.repeat(16), trace_id: trace, workspace_id: WS, end_time_unix_nano: -1 })
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(3)
    expect(await processRegistry.getSingleMetricAsString('svc_consumer_dead_letters_total')).toContain(`{topic="${TOPICS.spansRaw}",reason="undecodable"} 1`)

    // The same dead letter written twice (a crash between it and its batch's commit) counts once.
    let first: Buffer | undefined
    const read = await bus.subscribe({ group: 'read', topics: [TOPICS.spansRawDlq], ephemeral: true, onBatch: async (rs) => void (first ??= rs[0]!.value) })
    const again = await eventually(async () => first, 10_000, 5).finally(() => read.close())
    await bus.produce(TOPICS.spansRawDlq, [{ key, value: again }])
    await committed(GROUPS.deadLetterSink, TOPICS.spansRawDlq)
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(3)
  })

  it('drains spans.raw.v1 (a record per span, what ingest wrote before spans.raw.v2) into the same tables', async () => {
    const trace = 'b'.repeat(32)
    const key = traceKey(WS, trace)
    await bus.produce(TOPICS.spansRawV1, [
      { key, value: spanV1.encode(span(trace, '1'.repeat(16))) },
      { key, value: spanV1.encode(span(trace, '2'.repeat(16), { org_id: 'acme' })) },
    ])
    await committed(GROUPS.assembler, TOPICS.spansRawV1)
    const stored = await store.query<{ span_id: string }>('SELECT span_id FROM spans_v1 WHERE workspace_id = {ws:UUID} AND trace_id = {t:String}', { ws: WS, t: trace })
    expect(stored.map((s) => s.span_id)).toEqual(['1'.repeat(16)])
    const v1Dlq = dlqTopic(TOPICS.spansRawV1)
    await committed(GROUPS.deadLetterSink, v1Dlq)
    const rows = (await deadRows()).filter((r) => r.dlq_topic === v1Dlq)
    // A record of one span is dead-lettered whole: its bytes are the payload.
    expect(rows.map((r) => [r.original_topic, r.reason, spanV1.decode(Buffer.from(r.payload, 'base64')).span_id])).toEqual([[TOPICS.spansRawV1, 'org_id or workspace_id is not a UUID', '2'.repeat(16)]])
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(4)
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
    expect((await ingestionFigures(store, WS, Date.now(), Date.now())).deadLettersLastHour).toBe(7)
    // Nothing was written to a dead-letter topic of a dead-letter topic.
    expect(await bus.endOffsets(`${results}.dlq`).catch(() => 'no such topic')).toBe('no such topic')
  })
})
