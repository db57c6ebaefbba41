/**
 * The consumer over a real embedded ClickHouse: the recorded-style fixtures
 * decoded as ingest decodes them, landed batch by batch, then read with the
 * queries the API serves. A second delivery of everything (a restart that
 * replays from older offsets) must change nothing.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { codingAgentEventV1, codingAgentMetricV1, deadLetterV1, type CodingAgentEventRecord } from '@svc/shared/bus/records'
import { consumerBatchHandler, runConsumer } from '@svc/shared/bus/run-consumer'
import { dlqTopic, GROUPS, TOPICS } from '@svc/shared/bus/topics'
import type { Bus, ConsumedRecord } from '@svc/shared/bus/types'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { codingAgentUsage, recentCommits, topFiles } from '@svc/shared/store/queries/coding-agent'
import type { Store } from '@svc/shared/store/types'
import { decodeActivityRequest, decodeLogsRequest } from '../../ingest/src/otlp/logs.js'
import { decodeMetricsRequest } from '../../ingest/src/otlp/metrics.js'
import { EXPECTED_COMMITS, expectedTopFiles, expectedUsage, replayRequests, T0_MS } from '../../../tests/fixtures/coding-agent/replay.js'
import { codingAgentConsumer } from './handler.js'
import { eventually } from '@svc/shared/test-support/eventually'

/** One batch as the consumer runner hands it over (no poison in these: nothing is dead-lettered). */
const codingAgentBatchHandler = (store: Store, log: typeof quiet) => consumerBatchHandler({} as Bus, codingAgentConsumer(store, log))

const quiet = createLogger({ level: 'silent' })
const tenant = { org_id: 'org-1', workspace_id: 'ws-1' }
let store: Store
/** The batch handler that landed the fixtures, batch after batch: it remembers the points it stored (stored-points.ts). */
let handler: ReturnType<typeof codingAgentBatchHandler>
const now = Date.now()
const { shiftMs, requests } = replayRequests(now)
const HOUR = 3_600_000
const endOfHour = Math.floor(now / HOUR) * HOUR + HOUR
const day = { fromMs: endOfHour - 24 * HOUR, toMs: endOfHour }
const week = { fromMs: endOfHour - 168 * HOUR, toMs: endOfHour }

/** Each request as the batch of bus records ingest would have produced (each topic's offsets counting from 0, as on the bus). */
function batches(): ConsumedRecord[][] {
  const offsets = new Map<string, number>()
  const rec = (topic: string, value: Buffer): ConsumedRecord => {
    const offset = offsets.get(topic) ?? 0
    offsets.set(topic, offset + 1)
    return { topic, partition: 0, offset: String(offset), key: null, value, timestamp: now }
  }
  return requests.map((r) => {
    const opts = { tenant, receivedAtMs: now }
    if (r.path === 'metrics') {
      const d = decodeMetricsRequest(r.body, opts)
      if (!d.ok) throw new Error(d.message)
      return d.points.map((p) => rec(TOPICS.codingAgentMetrics, codingAgentMetricV1.encode(p)))
    }
    const d = (r.path === 'logs' ? decodeLogsRequest : decodeActivityRequest)(r.body, opts)
    if (!d.ok) throw new Error(d.message)
    return d.events.map((e) => rec(TOPICS.codingAgentEvents, codingAgentEventV1.encode(e)))
  })
}

beforeAll(async () => {
  store = await createStore(loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'coding-agent-')) }), quiet)
  await migrate(store, quiet)
  handler = codingAgentBatchHandler(store, quiet)
  for (const b of batches()) await handler(b)
}, 120_000)
afterAll(() => store?.close())

const strip = <T extends object>(rows: T[], key: keyof T) => rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== key)))
const at = (offsetS: number) => new Date(T0_MS + shiftMs + offsetS * 1000).toISOString()

async function checkAll() {
  for (const [period, w] of [['day', day], ['week', week]] as const) {
    const usage = await codingAgentUsage(store, tenant.workspace_id, w)
    expect(strip(usage, 'last_activity_at'), period).toEqual(expectedUsage(period).employees)
    const files = await topFiles(store, tenant.workspace_id, w, 50)
    expect(files, period).toEqual(expectedTopFiles(period).map(({ offsetS, ...f }) => ({ ...f, last_edited_at: at(offsetS) })))
  }
  expect(await recentCommits(store, tenant.workspace_id, 50)).toEqual(EXPECTED_COMMITS.map(({ offsetS, ...c }) => ({ ...c, committed_at: at(offsetS) })))
  expect((await recentCommits(store, tenant.workspace_id, 1)).map((c) => c.commit_id)).toEqual(['c0ffee12'])
  expect(await codingAgentUsage(store, 'another-workspace', week)).toEqual([])
}

describe('coding-agent consumer over embedded ClickHouse', () => {
  it('lands the replayed fixtures: usage, commits and top files are exact', checkAll)

  it('a restart that delivers every record again (one batch, new handler) changes nothing', async () => {
    await codingAgentBatchHandler(store, quiet)(batches().flat())
    await checkAll()
  })

  it('the same handler, its partition rewound to the start (a group reset), looks the points up again and changes nothing', async () => {
    for (const b of batches()) await handler(b)
    await checkAll()
  })

  it('converts a partition\'s next cumulative points against the points it stored last, without looking them up', async () => {
    const ws = 'ws-remember'
    const lookups: string[] = []
    const counting: Store = Object.create(store, {
      query: { value: (sql: string, params?: never, opts?: { tag?: string }) => (lookups.push(opts?.tag ?? ''), store.query(sql, params, opts)) },
    })
    const point = (type: string, minute: number, value: number) =>
      codingAgentMetricV1.encode({
        org_id: 'org-1', workspace_id: ws, metric_name: 'claude_code.token.usage', unit: 'tokens', service_name: 'claude-code', received_at_ms: now,
        metric_type: 'sum', temporality: 'cumulative', is_monotonic: true, start_time_unix_nano: BigInt(now - HOUR) * 1_000_000n,
        time_unix_nano: BigInt(now - HOUR + minute * 60_000) * 1_000_000n, value, count: 0, attributes: { 'session.id': 's-remember', type },
      })
    const exports = [[point('input', 1, 10), point('output', 1, 4)], [point('input', 2, 15), point('output', 2, 4)], [point('input', 3, 22), point('output', 3, 9)]]
    const land = codingAgentBatchHandler(counting, quiet)
    let offset = 0
    for (const values of exports) await land(values.map((value) => ({ topic: TOPICS.codingAgentMetrics, partition: 0, offset: String(offset++), key: null, value, timestamp: now })))
    // Only the first export's series were unknown.
    expect(lookups.filter((t) => t === 'coding-agent.previous-points')).toHaveLength(1)
    const rows = await store.query<{ type: string; delta: number }>(
      'SELECT type, delta FROM coding_agent_metrics_v1 FINAL WHERE workspace_id = {ws:String} ORDER BY type, time_ns',
      { ws },
    )
    expect(rows.map((r) => `${r.type} ${r.delta}`)).toEqual(['input 10', 'input 5', 'input 7', 'output 4', 'output 0', 'output 5'])
  })

  it('an exporter retry of one cumulative export alone (its series among many stored ones) adds nothing', async () => {
    const retry = requests.findIndex((r) => r.fixture === 'claude-code-cumulative-metrics.json#1')
    await codingAgentBatchHandler(store, quiet)(batches()[retry]!)
    await checkAll()
  })

  it('dead-letters a record it cannot read or map, lands the records around it and commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coding-agent-bus-'))
    const bus = await createEmbeddedBus({ dir })
    try {
      const topics = [TOPICS.codingAgentMetrics, TOPICS.codingAgentEvents]
      await bus.ensureTopics([...topics, ...topics.map(dlqTopic)].map((name) => ({ name, partitions: 1 })))
      const event = (name: string, attributes: Record<string, string>): CodingAgentEventRecord => ({
        org_id: 'org-1', workspace_id: 'ws-poison', source: 'activity', event_name: name, time_unix_nano: BigInt(now) * 1_000_000n,
        severity_text: '', body: '', service_name: 'aider', attributes, received_at_ms: now,
      })
      const key = 'ws-poison:s1'
      await bus.produce(TOPICS.codingAgentEvents, [
        { key, value: codingAgentEventV1.encode(event('activity.commit', { commit_sha: 'abc12345', files: '[]', 'user.email': 'e@x', 'session.id': 's1', agent: 'aider' })) },
        // files is not JSON: mapping throws on every delivery.
        { key, value: codingAgentEventV1.encode(event('activity.commit', { commit_sha: 'bad00001', files: '{oops', 'session.id': 's1' })) },
        { key, value: codingAgentEventV1.encode(event('activity.commit', { commit_sha: 'def67890', files: '[]', 'user.email': 'e@x', 'session.id': 's1', agent: 'aider' })) },
      ])
      await bus.produce(TOPICS.codingAgentMetrics, [{ key, value: Buffer.from('not a metric point') }])
      const sub = await runConsumer(bus, codingAgentConsumer(store, quiet))
      const committed = async () => Promise.all(topics.map(async (t) => (await bus.committedOffsets(GROUPS.codingAgent, t)).get(0)))
      for (let i = 0; i < 4000 && (await committed()).join() !== '1,3'; i++) await new Promise((r) => setTimeout(r, 5))
      expect(await committed()).toEqual(['1', '3'])
      await sub.close()

      expect((await recentCommits(store, 'ws-poison', 10)).map((c) => c.commit_id).sort()).toEqual(['abc12345', 'def67890'])
      const dead: Array<{ topic: string; d: ReturnType<typeof deadLetterV1.decode> }> = []
      const read = await bus.subscribe({ group: 'read', topics: topics.map(dlqTopic), ephemeral: true, onBatch: async (rs) => void dead.push(...rs.map((r) => ({ topic: r.topic, d: deadLetterV1.decode(r.value) }))) })
      await eventually(async () => dead.length >= 2, 10_000, 5).finally(() => read.close())
      const byTopic = Object.fromEntries(dead.map(({ topic, d }) => [topic, d]))
      expect(byTopic[dlqTopic(TOPICS.codingAgentMetrics)]).toMatchObject({ workspace_id: 'ws-poison', original_offset: 0, source: GROUPS.codingAgent })
      expect(byTopic[dlqTopic(TOPICS.codingAgentEvents)]).toMatchObject({ workspace_id: 'ws-poison', org_id: 'org-1', original_offset: 1 })
      expect(byTopic[dlqTopic(TOPICS.codingAgentEvents)]!.reason).toMatch(/^unmappable coding-agent record/)
    } finally {
      await bus.close()
    }
  })
})
