/**
 * Overload, end to end in the all-in-one process on both buses: with a tiny
 * SVC_MAX_LAG_SECONDS, clients sending as fast as answers come make the assembler
 * fall behind the bound, and ingest answers 503 + Retry-After (a JSON error naming
 * the reason) instead of accepting more. The clients send refused batches again, as
 * OTLP exporters do; every span answered 202 is then readable and counted once, and
 * the refusals show on /metrics and in ingestion health.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestJson } from '@svc/shared/test-support/json'
import { expectAckedSpansStored, sendTraces } from '../support/acked-spans.js'
import { eventually, startTestStack, TEST_KEY, type BusMode } from '../support/stack.js'

type Stack = Awaited<ReturnType<typeof startTestStack>>

const TRACES = '/v1/observ/orgs/acme/workspaces/agents/traces'
const HEALTH = '/v1/observ/orgs/acme/workspaces/agents/health/ingestion'

describe.each(['embedded', 'kafka'] as const)('backpressure (%s bus)', (mode: BusMode) => {
  let s: Stack
  beforeAll(async () => {
    // A bound any batch in the assembler's hands passes: refusals come with the first load.
    s = await startTestStack(mode, { SVC_MAX_LAG_SECONDS: '0.001', SVC_ENGINES: 'none' })
  }, 120_000)
  afterAll(async () => {
    await s?.close()
  })

  it('refuses past SVC_MAX_LAG_SECONDS with 503 + Retry-After, and every span it accepted is stored once', async () => {
    let refused = 0
    const bodies: TestJson[] = []
    const retryAfter: number[] = []
    const load = sendTraces({
      workers: 6,
      mode: 'retry',
      retryMs: 100,
      post: async (body) => {
        const res = await fetch(`${s.ingestUrl}/v1/traces`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY } })
        if (res.status === 503) {
          refused++
          retryAfter.push(Number(res.headers.get('retry-after')))
          if (bodies.length < 3) bodies.push((await res.json()) as TestJson)
          else await res.body?.cancel()
        } else await res.body?.cancel()
        return res.status
      },
    })
    await eventually(async () => (refused >= 5 && load.figures().spansAccepted >= 500 ? true : undefined), 120_000, 100)
    await load.stop()
    // (the client's post swallows what it throws, as a retrying exporter would: checked here)
    for (const b of bodies) expect(b).toMatchObject({ error: 'unavailable', detail: { reason: 'lag', max_lag_seconds: 0.001 } })
    expect(retryAfter.every((v) => v >= 1 && v <= 30)).toBe(true)

    const get = async (path: string) => (await fetch(s.apiUrl + path, { headers: { 'x-svc-api-key': TEST_KEY } })).json() as Promise<TestJson>
    const { found } = await expectAckedSpansStored(get, TRACES, load.sent)
    expect(found).toBe(load.figures().spansAccepted)

    const metrics = await (await fetch(`${s.ingestUrl}/metrics`)).text()
    expect(Number(/^svc_ingest_refused_for_lag_total (\d+)/m.exec(metrics)?.[1])).toBe(refused)
    expect(metrics).toMatch(/^svc_consumer_lag_seconds\{group="assembler",topic="spans\.raw\.v2"\} /m)
    expect(metrics).toMatch(/^svc_ingest_max_lag_seconds 0\.001$/m)

    // Refusals reach ingestion health within a second or two (counted per workspace through the cache).
    const health = await eventually(async () => {
      const h = await get(HEALTH)
      return h.backpressure?.refused_last_hour === refused ? h : undefined
    }, 20_000, 200)
    expect(health.status).toBe('degraded')
    expect(health.backpressure).toMatchObject({ max_lag_seconds: 0.001 })
    if (mode === 'embedded') expect(health.backpressure.log_max_bytes).toBe(10 * 2 ** 30)
    else expect(health.backpressure.log_bytes).toBeNull()
    console.info(`[backpressure ${mode}] ${refused} requests refused, ${load.figures().spansAccepted} spans accepted and all stored`)
  }, 240_000)
})
