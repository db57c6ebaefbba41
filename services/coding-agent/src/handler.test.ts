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
import { codingAgentEventV1, codingAgentMetricV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import type { ConsumedRecord } from '@svc/shared/bus/types'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { migrate } from '@svc/shared/store/migrate'
import { codingAgentUsage, recentCommits, topFiles } from '@svc/shared/store/queries/coding-agent'
import type { Store } from '@svc/shared/store/types'
import { decodeActivityRequest, decodeLogsRequest } from '../../ingest/src/otlp/logs.js'
import { decodeMetricsRequest } from '../../ingest/src/otlp/metrics.js'
import { EXPECTED_COMMITS, expectedTopFiles, expectedUsage, replayRequests, T0_MS } from '../../../tests/fixtures/coding-agent/replay.js'
import { codingAgentBatchHandler } from './handler.js'

const quiet = createLogger({ level: 'silent' })
const tenant = { org_id: 'org-1', workspace_id: 'ws-1' }
let store: Store
const now = Date.now()
const { shiftMs, requests } = replayRequests(now)
const HOUR = 3_600_000
const endOfHour = Math.floor(now / HOUR) * HOUR + HOUR
const day = { fromMs: endOfHour - 24 * HOUR, toMs: endOfHour }
const week = { fromMs: endOfHour - 168 * HOUR, toMs: endOfHour }

/** Each request as the batch of bus records ingest would have produced. */
function batches(): ConsumedRecord[][] {
  let offset = 0
  const rec = (topic: string, value: Buffer): ConsumedRecord => ({ topic, partition: 0, offset: String(offset++), key: null, value, timestamp: now })
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
  const handler = codingAgentBatchHandler(store, quiet)
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

  it('an exporter retry of one cumulative export alone (its series among many stored ones) adds nothing', async () => {
    const retry = requests.findIndex((r) => r.fixture === 'claude-code-cumulative-metrics.json#1')
    await codingAgentBatchHandler(store, quiet)(batches()[retry]!)
    await checkAll()
  })
})
