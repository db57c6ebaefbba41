import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { exited, freePort, spawnAllInOne, waitForHealth } from '../support/process.js'
import { operatorSecrets } from '../support/secrets.js'
import { eventually } from '../support/stack.js'
import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { rollupFigures, rollupReference } from '@svc/shared/store/queries/rollups.testkit'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = 'dr_crashTestKey000000000000000000000000001'
const TRACES = '/v1/observ/orgs/crash/workspaces/w/traces'

interface Sent { traceId: string; spans: Array<Record<string, TestJson>>; ackedSpanIds: Set<string> }

/**
 * SIGKILL the all-in-one process while clients are sending: every span that got a
 * 202 must be queryable after a restart, and no trace's span count, cost or tokens
 * may be counted twice (clients also retry some batches, as exporters do), nor any
 * span be missing from or counted twice in the hourly usage and latency roll-ups.
 */
describe.each(['embedded', 'kafka'] as const)('crash recovery (%s bus, SIGKILL during ingest)', (mode) => {
  let child: ReturnType<typeof spawnAllInOne> | undefined
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL')
      await exited(child)
    }
  })

  it('loses no acknowledged span and double-counts nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'))
    const [ingestPort, apiPort] = [await freePort(), await freePort()]
    const busEnv: Record<string, string> = mode === 'kafka'
      ? { SVC_BUS: 'kafka', KAFKA_BROKERS: inject('kafkaBrokers'), REDIS_URL: inject('redisUrl'), KAFKA_TOPIC_PREFIX: `crash-${process.pid}-${Date.now()}.`, ...operatorSecrets() }
      : { SVC_BUS: 'embedded', KAFKA_BROKERS: '', REDIS_URL: '' }
    const env = {
      ...busEnv, SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_INGEST_PORT: String(ingestPort), SVC_API_PORT: String(apiPort),
      SVC_INIT_ORG_SLUG: 'crash', SVC_INIT_WORKSPACE_SLUG: 'w', SVC_INIT_API_KEY: KEY, SVC_INIT_USER_PASSWORD: 'pw-crash-test', SVC_QUIET_BOOTSTRAP: 'true',
      LOG_LEVEL: 'warn', SVC_TRACE_QUIET_MS: '500', CLICKHOUSE_URL: '',
    }
    const ingestUrl = `http://127.0.0.1:${ingestPort}`
    const apiUrl = `http://127.0.0.1:${apiPort}`
    child = spawnAllInOne(env)
    await waitForHealth(`${apiUrl}/health`, child)
    await waitForHealth(`${ingestUrl}/health`, child)

    const sent: Sent[] = []
    let stop = false
    const post = (body: unknown) =>
      fetch(`${ingestUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(body) })
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const t = agentTrace({ spans: 12 })
        const entry: Sent = { traceId: t.traceId, spans: t.spans, ackedSpanIds: new Set() }
        sent.push(entry)
        // Half the traces arrive in two requests; every fifth batch is retried, as an exporter would after a timeout.
        const batches = i % 2 === 0 ? [t.spans] : [t.spans.slice(0, 6), t.spans.slice(6)]
        for (const batch of batches) {
          for (let attempt = 0; attempt < (i % 5 === n % 5 ? 2 : 1); attempt++) {
            try {
              const res = await post(otlpEnvelope(batch))
              if (res.status === 202) for (const sp of batch) entry.ackedSpanIds.add(sp.spanId as string)
            } catch {
              return // the process died under us
            }
          }
        }
      }
    }
    const workers = Array.from({ length: 8 }, (_, n) => worker(n))
    await new Promise((r) => setTimeout(r, 2500))
    child.kill('SIGKILL')
    stop = true
    await exited(child)
    await Promise.all(workers)

    const acked = sent.filter((t) => t.ackedSpanIds.size > 0)
    expect(acked.length).toBeGreaterThan(20)

    child = spawnAllInOne(env)
    await waitForHealth(`${apiUrl}/health`, child)
    const get = async (path: string) => (await fetch(apiUrl + path, { headers: { 'x-svc-api-key': KEY } })).json() as Promise<TestJson>

    // Every acknowledged span is there (the assembler catches up from its committed offset).
    for (const t of acked) {
      await eventually(async () => {
        const d = await get(`${TRACES}/${t.traceId}`)
        const ids = new Set((d.spans ?? []).map((sp: TestJson) => sp.span_id))
        return [...t.ackedSpanIds].every((id) => ids.has(id)) ? true : undefined
      }, 60_000, 200)
    }

    // And the list's sums equal the sums over the distinct stored spans: nothing counted twice.
    const rows = new Map<string, TestJson>()
    let cursor: string | null = null
    do {
      const page: TestJson = await get(`${TRACES}?include_empty=true&page_size=500${cursor ? `&cursor=${cursor}` : ''}`)
      for (const r of page.data) rows.set(r.trace_id, r)
      cursor = page.next_cursor
    } while (cursor)
    for (const t of acked) {
      const row = rows.get(t.traceId)
      expect(row, t.traceId).toBeDefined()
      const detail = await get(`${TRACES}/${t.traceId}`)
      const stored = detail.spans as Array<{ span_id: string; attributes: Record<string, unknown> }>
      expect(new Set(stored.map((x) => x.span_id)).size).toBe(stored.length)
      expect(row.span_count).toBe(stored.length)
      expect(row.span_count).toBeLessThanOrEqual(t.spans.length)
      const sum = (key: string) => stored.reduce((acc, x) => acc + Number(x.attributes[key] ?? 0), 0)
      expect(row.input_tokens).toBe(sum('gen_ai.usage.input_tokens'))
      expect(row.output_tokens).toBe(sum('gen_ai.usage.output_tokens'))
      expect(row.cost_usd_total).toBeCloseTo(sum('svc.cost_usd'), 9)
    }
    console.info(`[crash ${mode}] ${acked.length} acknowledged traces (${acked.reduce((a, t) => a + t.ackedSpanIds.size, 0)} spans) all present after SIGKILL + restart`)
    child.kill('SIGTERM')
    await exited(child)

    // The hourly roll-ups (usage, latency) count every distinct stored span once too.
    const store = await createStore(loadConfig({ SVC_DATA_DIR: dataDir, CLICKHOUSE_URL: '' }), createLogger({ level: 'silent' }))
    try {
      const [ws] = await store.query<{ ws: string }>('SELECT DISTINCT workspace_id AS ws FROM spans_v1')
      const figures = await rollupFigures(store, ws!.ws)
      expect(figures).toEqual(await rollupReference(store, ws!.ws))
      expect(figures.usage.length).toBeGreaterThan(0)
    } finally {
      await store.close()
    }
  }, 180_000)
})
