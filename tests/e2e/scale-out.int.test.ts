import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { expectAckedSpansStored, sendTraces } from '../support/acked-spans.js'
import { freePort } from '../support/process.js'
import { operatorSecrets } from '../support/secrets.js'
import { eventually } from '../support/stack.js'
import { Topology, type ProcessType } from '../support/topology.js'
import { agentTrace, hex, otlpEnvelope } from '../support/traces.js'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { rollupFigures, rollupReference } from '@svc/shared/store/queries/rollups.testkit'
import type { TestJson } from '@svc/shared/test-support/json'

const WS = '/v1/observ/orgs/default/workspaces/default'
const KILL_ORDER: ProcessType[] = ['ingest', 'assembler', 'clickhouse', 'engines', 'coding-agent', 'api']
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * deploy/compose.yaml's shape on one machine, in Kafka mode: the embedded store
 * behind ClickHouse's HTTP protocol (`pnpm start:clickhouse`), two ingest processes,
 * two assemblers, the engines, the coding-agent consumer and two api replicas, each a
 * process of its own reaching the store through CLICKHOUSE_URL as the `svc` user.
 * The api replicas bootstrap the first organization, owner and key at once: one
 * generates them. Traces are sent under load through both ingest processes (a
 * client behind a load balancer: the other one when one does not answer, again
 * when neither does) while each process type in turn is killed with SIGKILL (every
 * process of the type) and restarted; the store's restart is on the same data
 * directory. Every span answered 202 must be readable through the API, no trace's
 * totals or hourly roll-up may count a span twice, and after each kill a record
 * sent along that type's path (a trace; an engine result; a coding-agent commit)
 * must come through. Prints the figures and each type's recovery times.
 */
describe('scale-out shape on one machine (Kafka, one process per service)', () => {
  const topo = new Topology()
  const root = mkdtempSync(join(tmpdir(), 'svc-scale-out-'))
  afterAll(async () => {
    await topo.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('bootstraps once, loses no accepted span and counts none twice while each process type is killed and restarted', async () => {
    const svcPassword = randomBytes(18).toString('base64url')
    const chPort = await freePort()
    const secrets = operatorSecrets()
    const common: Record<string, string> = {
      SVC_BUS: 'kafka',
      KAFKA_BROKERS: inject('kafkaBrokers'),
      KAFKA_TOPIC_PREFIX: `${inject('kafkaTopicRoot')}scale${Date.now().toString(36)}.`,
      KAFKA_TOPIC_PARTITIONS: '4',
      REDIS_URL: inject('redisUrl'),
      CLICKHOUSE_URL: `http://127.0.0.1:${chPort}`,
      CLICKHOUSE_USER: 'svc',
      CLICKHOUSE_PASSWORD: svcPassword,
      SVC_HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SVC_TRACE_QUIET_MS: '500',
      SVC_PASSWORD_SCRYPT_N: '1024',
      SVC_QUIET_BOOTSTRAP: 'true',
    }
    const dataDir = (name: string) => join(root, name)
    topo.add('clickhouse', 'clickhouse', {
      LOG_LEVEL: 'warn', SVC_DATA_DIR: dataDir('clickhouse'), CLICKHOUSE_URL: '', SVC_CLICKHOUSE_HTTP_HOST: '127.0.0.1', SVC_CLICKHOUSE_HTTP_PORT: String(chPort),
      SVC_CLICKHOUSE_SVC_PASSWORD: svcPassword, SVC_QUIET_BOOTSTRAP: 'true',
    }, `http://127.0.0.1:${chPort}/ping`)
    const ingestUrls: string[] = []
    const apiUrls: string[] = []
    for (const n of [1, 2]) {
      const port = await freePort()
      ingestUrls.push(`http://127.0.0.1:${port}`)
      topo.add('ingest', `ingest-${n}`, { ...common, SVC_DATA_DIR: dataDir(`ingest-${n}`), SVC_INGEST_PORT: String(port) }, `http://127.0.0.1:${port}/health`)
    }
    for (const n of [1, 2]) {
      const port = await freePort()
      apiUrls.push(`http://127.0.0.1:${port}`)
      topo.add('api', `api-${n}`, { ...common, ...secrets, SVC_DATA_DIR: dataDir(`api-${n}`), SVC_API_PORT: String(port) }, `http://127.0.0.1:${port}/health`)
    }
    const withMetricsPort = async (type: ProcessType, name: string, env: Record<string, string>) => {
      const port = await freePort()
      topo.add(type, name, { ...common, ...env, SVC_DATA_DIR: dataDir(name), SVC_METRICS_PORT: String(port) }, `http://127.0.0.1:${port}/health`)
    }
    await withMetricsPort('assembler', 'assembler-1', {})
    await withMetricsPort('assembler', 'assembler-2', {})
    await withMetricsPort('engines', 'engines', secrets)
    await withMetricsPort('coding-agent', 'coding-agent', {})

    // The store, then everything else at once (the api replicas racing their bootstrap).
    const started = Date.now()
    await topo.start('clickhouse')
    await topo.start('api', 'ingest', 'assembler', 'engines', 'coding-agent')
    console.info(`[scale-out] ${topo.members.length} processes serving ${((Date.now() - started) / 1000).toFixed(1)} s after the first start`)

    // One replica generated the owner's password and the key, kept in its data dir; the other none.
    const files = topo.of('api').map((m) => join(m.env.SVC_DATA_DIR!, 'init-credentials.json')).filter((f) => existsSync(f))
    expect(files).toHaveLength(1)
    const credentials = JSON.parse(readFileSync(files[0]!, 'utf8')) as { api_key: string; user_email: string; user_password: string }
    const key = credentials.api_key
    expect(key).toMatch(/^dr_/)
    for (const api of apiUrls) {
      const login = await fetch(`${api}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: credentials.user_email, password: credentials.user_password }) })
      expect(login.status, `login at ${api}`).toBe(200)
      expect((await fetch(`${api}${WS}/traces`, { headers: { 'x-svc-api-key': key } })).status, `key at ${api}`).toBe(200)
    }

    // A client of the api behind a load balancer: the first replica that answers.
    const apiFetch = async (path: string, init: RequestInit = {}): Promise<Response> => {
      let last: unknown
      for (const api of apiUrls) {
        try {
          return await fetch(api + path, { ...init, headers: { 'x-svc-api-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) } })
        } catch (err) {
          last = err
        }
      }
      throw last
    }
    const get = async (path: string) => {
      const res = await apiFetch(path)
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
      return (await res.json()) as TestJson
    }
    // One engine is enough to follow the engines' path; all of them would make this test about engine CPU.
    const engineNames = Object.keys((await get(`${WS}/engine-settings`)).engines as Record<string, boolean>)
    const engines = Object.fromEntries(engineNames.map((e) => [e, e === 'decision_trace']))
    expect((await apiFetch(`${WS}/engine-settings`, { method: 'PUT', body: JSON.stringify({ engines }) })).status).toBe(200)

    // Ingest through both processes, as a load balancer would spread it.
    let turn = 0
    const ingest = async (path: string, body: unknown): Promise<number> => {
      const first = turn++ % ingestUrls.length
      let last: unknown
      let status = 0
      for (let i = 0; i < ingestUrls.length; i++) {
        try {
          status = (await fetch(ingestUrls[(first + i) % ingestUrls.length] + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': key }, body: JSON.stringify(body) })).status
          if (status === 202) return status
        } catch (err) {
          last = err
        }
      }
      if (status) return status
      throw last
    }
    /** Sends until accepted; resolves at the 202. */
    const accepted = async (path: string, body: unknown) => {
      while ((await ingest(path, body).catch(() => 0)) !== 202) await sleep(200)
    }

    const commitShas: string[] = []
    const traceProbe = async () => {
      const t = agentTrace({ spans: 3 })
      await accepted('/v1/traces', otlpEnvelope(t.spans))
      await eventually(async () => ((await get(`${WS}/traces/${t.traceId}`).catch(() => null))?.spans?.length === 3 ? true : undefined), 150_000, 250)
      return t.traceId
    }

    /** After a kill: a record along the killed type's path, sent at once (retried until accepted), and when it shows through the API. */
    const probes: Record<ProcessType, () => Promise<unknown>> = {
      ingest: traceProbe,
      assembler: traceProbe,
      clickhouse: traceProbe,
      api: traceProbe,
      engines: async () => {
        const traceId = await traceProbe()
        await eventually(async () => ((await get(`${WS}/traces/${traceId}/decision-trace`).catch(() => null))?.computed_at ? true : undefined), 150_000, 250)
      },
      'coding-agent': async () => {
        const sha = hex(20)
        await accepted('/v1/otlp/coding-agent/v1/activity', { agent: 'aider', user_email: 'dana@acme.test', session_id: `s-${sha.slice(0, 8)}`, activities: [{ type: 'commit', timestamp: Date.now(), commit_sha: sha, repository: 'acme/api', files: [{ path: 'src/app.ts', lines_added: 3 }] }] })
        commitShas.push(sha)
        await eventually(async () => ((await get(`${WS}/coding-agent/commits?limit=500`).catch(() => null))?.commits?.some((c: TestJson) => c.commit_id === sha) ? true : undefined), 150_000, 250)
      },
    }
    const load = sendTraces({ workers: 2, mode: 'retry', pauseMs: 250, post: (body) => ingest('/v1/traces', body) })
    const recovery: Array<{ type: ProcessType; processes: number; readyMs: number; throughMs: number }> = []
    try {
      await sleep(2000)
      for (const type of KILL_ORDER) {
        const killedAt = Date.now()
        await topo.kill(type)
        const probe = probes[type]().then(() => Date.now() - killedAt)
        probe.catch(() => {}) // awaited below, after the restart
        await sleep(500) // down under load
        await topo.start(type)
        const readyMs = Date.now() - killedAt
        const throughMs = await probe.catch((err: Error) => Promise.reject(new Error(`after killing ${type}: ${err.message}\n${topo.tails()}`)))
        recovery.push({ type, processes: topo.of(type).length, readyMs, throughMs })
        console.info(`[scale-out] ${describeRecovery(recovery.at(-1)!)} (${load.figures().spansAccepted} spans accepted so far)`)
        await sleep(1000) // load on the restarted process before the next kill
      }
    } finally {
      await load.stop()
    }

    const figures = load.figures()
    expect(figures.spansAccepted).toBeGreaterThan(1000)
    const { found, stored } = await expectAckedSpansStored(get, `${WS}/traces`, load.sent, 120_000)
    expect(found).toBe(figures.spansAccepted)

    // Each probe commit landed once, whatever the coding-agent consumer replayed.
    const commits = (await get(`${WS}/coding-agent/commits?limit=500`)).commits as TestJson[]
    for (const sha of commitShas) expect(commits.filter((c) => c.commit_id === sha), sha).toHaveLength(1)

    // The hourly roll-ups count every distinct stored span once, read through the store's HTTP interface.
    const store = await createStore(loadConfig({ CLICKHOUSE_URL: `http://127.0.0.1:${chPort}`, CLICKHOUSE_USER: 'svc', CLICKHOUSE_PASSWORD: svcPassword }), createLogger({ level: 'silent' }))
    try {
      const [ws] = await store.query<{ ws: string }>('SELECT DISTINCT workspace_id AS ws FROM spans_v1')
      const rollups = await rollupFigures(store, ws!.ws)
      expect(rollups).toEqual(await rollupReference(store, ws!.ws))
    } finally {
      await store.close()
    }

    console.info(
      `[scale-out] ${figures.traces} traces: ${figures.spansSent} spans sent, ${figures.spansAccepted} accepted (202), ${found} of them found, ${stored} stored in those traces; ` +
        `${recovery.reduce((a, r) => a + r.processes, 0)} processes killed in ${recovery.length} kills\n` +
        recovery.map((r) => `  ${describeRecovery(r)}`).join('\n'),
    )
  }, 480_000)
})

function describeRecovery(r: { type: ProcessType; processes: number; readyMs: number; throughMs: number }): string {
  return `${r.type.padEnd(12)} ×${r.processes}: serving again ${(r.readyMs / 1000).toFixed(1)} s after SIGKILL; a record sent after the kill read through the API ${(r.throughMs / 1000).toFixed(1)} s after it`
}
