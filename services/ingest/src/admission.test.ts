/**
 * Admission: a request is refused (503 + Retry-After, nothing written) while its
 * records' consumer is more than SVC_MAX_LAG_SECONDS behind, or while the embedded
 * log is at its disk budget; on the real embedded log, with a real consumer run by
 * the consumer runner standing in for the assembler.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createEmbeddedBus } from '@svc/shared/bus/embedded/index'
import { spanBatchV2 } from '@svc/shared/bus/span-batch'
import { runConsumer } from '@svc/shared/bus/run-consumer'
import { GROUPS, TOPICS, allTopicSpecs } from '@svc/shared/bus/topics'
import type { Bus } from '@svc/shared/bus/types'
import { createMemoryCache } from '@svc/shared/cache/memory'
import { loadConfig } from '@svc/shared/config'
import { readAdmissionStatus, refusalsSincePreviousHour } from '@svc/shared/domain/ingest-admission'
import { createLogger } from '@svc/shared/log'
import { admissionVerdict } from './admission.js'
import { createIngestApp, type IngestApp } from './app.js'
import { KEY, testControlState, WS } from './test-support/control.js'
import { jsExporterPayload } from './test-support/payloads.js'

const log = createLogger({ level: 'silent' })
const cleanup: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

async function embedded(maxBytes?: number): Promise<{ bus: Bus; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'admission-'))
  const bus = await createEmbeddedBus({ dir, maxBytes })
  await bus.ensureTopics(allTopicSpecs({ partitions: 2, replicationFactor: 1 }))
  cleanup.push(async () => {
    await bus.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return { bus, dir }
}

function ingestOn(bus: Bus, env: Record<string, string>, cache?: ReturnType<typeof createMemoryCache>): IngestApp {
  const ingest = createIngestApp({ bus, cache, control: { state: testControlState() }, config: loadConfig({ SVC_DATA_DIR: '/tmp/admission-test', ...env }), log })
  cleanup.push(() => ingest.admission.stop())
  return ingest
}

const post = (ingest: IngestApp, path = '/v1/otlp/traces', body: unknown = jsExporterPayload()) =>
  ingest.app.request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY } })
const total = async (bus: Bus, topic: string) => [...(await bus.endOffsets(topic)).values()].reduce((a, b) => a + Number(b), 0)

describe('admissionVerdict', () => {
  it('admits while the consumer is within the bound, or has not reported, or no bound is set', () => {
    expect(admissionVerdict(29_000, 30_000, null)).toBeNull()
    expect(admissionVerdict(null, 30_000, null)).toBeNull()
    expect(admissionVerdict(10 * 60_000, 0, null)).toBeNull()
    expect(admissionVerdict(0, 30_000, { bytes: 10, maxBytes: 100 })).toBeNull()
  })

  it('refuses past the bound, asking for a wait that grows with how far over it is, at most 30 s', () => {
    expect(admissionVerdict(30_400, 30_000, null)).toMatchObject({ reason: 'lag', retryAfterSeconds: 2, detail: { lag_seconds: 30.4, max_lag_seconds: 30 } })
    expect(admissionVerdict(45_000, 30_000, null)?.retryAfterSeconds).toBe(16)
    expect(admissionVerdict(3_600_000, 30_000, null)?.retryAfterSeconds).toBe(30)
  })

  it('refuses at the disk budget whatever the lag', () => {
    expect(admissionVerdict(0, 30_000, { bytes: 100, maxBytes: 100 })).toMatchObject({ reason: 'disk', retryAfterSeconds: 5, detail: { log_bytes: 100, log_max_bytes: 100 } })
  })
})

describe('ingest admission', () => {
  it('answers 503 + Retry-After while the assembler holds records past SVC_MAX_LAG_SECONDS, writes nothing then, and admits again once it caught up', async () => {
    const { bus } = await embedded()
    const ingest = ingestOn(bus, { SVC_MAX_LAG_SECONDS: '0.05' })
    // The assembler's group, stuck in its first batch.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const sub = await runConsumer(bus, { group: GROUPS.assembler, topics: { [TOPICS.spansRaw]: spanBatchV2 }, log, handle: () => held })
    cleanup.push(async () => {
      release()
      await sub.close()
    })

    expect((await post(ingest)).status).toBe(202)
    const written = await total(bus, TOPICS.spansRaw)
    await new Promise((r) => setTimeout(r, 100))
    await ingest.admission.refresh()
    const refused = await post(ingest)
    expect(refused.status).toBe(503)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await refused.json()).toMatchObject({ error: 'unavailable', detail: { reason: 'lag', max_lag_seconds: 0.05 } })
    expect(await total(bus, TOPICS.spansRaw)).toBe(written)
    expect(ingest.metrics.refused_for_lag).toBe(1)
    const scraped = await (await ingest.app.request('/metrics')).text()
    expect(scraped).toContain('svc_ingest_refused_for_lag_total 1')
    expect(scraped).toMatch(/svc_ingest_lag_seconds\{topic="spans\.raw\.v2"\} 0\.[1-9]|svc_ingest_lag_seconds\{topic="spans\.raw\.v2"\} [1-9]/)
    expect(scraped).toContain('svc_ingest_max_lag_seconds 0.05')

    // Coding-agent records have their own consumer, which is not behind.
    expect((await post(ingest, '/v1/otlp/coding-agent/v1/traces')).status).toBe(503)
    const activity = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1718000000000000000', body: { stringValue: 'x' }, attributes: [{ key: 'event.name', value: { stringValue: 'user_prompt' } }, { key: 'session.id', value: { stringValue: 's1' } }] }] }] }] }
    expect((await post(ingest, '/v1/otlp/coding-agent/v1/logs', activity)).status).toBe(202)

    release()
    const committed = async () => [...(await bus.committedOffsets(GROUPS.assembler, TOPICS.spansRaw)).values()].reduce((a, b) => a + Number(b), 0)
    for (let i = 0; i < 500 && (await committed()) < written; i++) await new Promise((r) => setTimeout(r, 10))
    expect(await committed()).toBe(written)
    await ingest.admission.refresh()
    expect((await post(ingest)).status).toBe(202)
  })

  it('publishes what it admits against and counts refusals per workspace for ingestion health', async () => {
    const { bus } = await embedded(1)
    const cache = createMemoryCache()
    cleanup.push(() => cache.close())
    const ingest = ingestOn(bus, {}, cache)
    // The empty log is under its one-byte budget; the first request's records (its active segment, unread) fill it.
    expect((await post(ingest)).status).toBe(202)
    expect((await post(ingest)).status).toBe(503)
    expect((await post(ingest)).status).toBe(503)
    await ingest.admission.refresh()
    const ns = 'embedded:/tmp/admission-test'
    expect(await readAdmissionStatus(cache, ns)).toMatchObject({ refusing: 'disk', max_lag_ms: 30_000, log_max_bytes: 1 })
    expect(await refusalsSincePreviousHour(cache, ns, WS.id, Date.now())).toBe(2)
  })

  it('answers 503 at the embedded log\'s disk budget, with nothing written', async () => {
    const { bus } = await embedded(1)
    const ingest = ingestOn(bus, {})
    expect((await post(ingest)).status).toBe(202)
    const written = await total(bus, TOPICS.spansRaw)
    const res = await post(ingest)
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(await res.json()).toMatchObject({ error: 'unavailable', detail: { reason: 'disk', log_max_bytes: 1 } })
    expect(await total(bus, TOPICS.spansRaw)).toBe(written)
    expect(ingest.metrics.refused_for_disk).toBe(1)
    const scraped = await (await ingest.app.request('/metrics')).text()
    expect(scraped).toContain('svc_ingest_refused_for_disk_total 1')
    expect(scraped).toContain('svc_embedded_log_max_bytes 1')
  })
})
