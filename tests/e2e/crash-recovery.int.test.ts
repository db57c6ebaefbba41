import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { exited, freePort, spawnAllInOne, waitForHealth } from '../support/process.js'
import { operatorSecrets } from '../support/secrets.js'
import { expectAckedSpansStored, sendTraces } from '../support/acked-spans.js'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { rollupFigures, rollupReference } from '@svc/shared/store/queries/rollups.testkit'
import type { TestJson } from '@svc/shared/test-support/json'

const KEY = 'dr_crashTestKey000000000000000000000000001'
const TRACES = '/v1/observ/orgs/crash/workspaces/w/traces'

/**
 * SIGKILL the all-in-one process while clients are sending: every span that got a
 * 202 must be queryable after a restart, and no trace's span count, cost or tokens
 * may be counted twice (clients also retry some batches, as exporters do), nor any
 * span be missing from or counted twice in the hourly usage and latency roll-ups.
 */
describe.each(['embedded', 'kafka'] as const)('crash recovery (%s bus, SIGKILL during ingest)', (mode) => {
  let child: ReturnType<typeof spawnAllInOne> | undefined
  let dataDir: string | undefined
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL')
      await exited(child)
    }
    // Only after the child is gone: it holds the data directory until then.
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('loses no acknowledged span and double-counts nothing', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'))
    const [ingestPort, apiPort] = [await freePort(), await freePort()]
    const busEnv: Record<string, string> = mode === 'kafka'
      ? { SVC_BUS: 'kafka', KAFKA_BROKERS: inject('kafkaBrokers'), REDIS_URL: inject('redisUrl'), KAFKA_TOPIC_PREFIX: `${inject('kafkaTopicRoot')}crash-${process.pid}-${Date.now()}.`, ...operatorSecrets() }
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

    const load = sendTraces({
      workers: 8,
      mode: 'untilUnreachable',
      post: async (body) =>
        (await fetch(`${ingestUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY }, body: JSON.stringify(body) })).status,
    })
    await new Promise((r) => setTimeout(r, 2500))
    child.kill('SIGKILL')
    await exited(child)
    await load.stop()

    const acked = load.sent.filter((t) => t.ackedSpanIds.size > 0)
    expect(acked.length).toBeGreaterThan(20)

    child = spawnAllInOne(env)
    await waitForHealth(`${apiUrl}/health`, child)
    const get = async (path: string) => (await fetch(apiUrl + path, { headers: { 'x-svc-api-key': KEY } })).json() as Promise<TestJson>

    // Every acknowledged span is there (the assembler catches up from its committed
    // offset), and the list's sums equal the sums over the distinct stored spans.
    await expectAckedSpansStored(get, TRACES, load.sent)
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
