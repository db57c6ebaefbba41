/**
 * Fuzzing the ingest app over the real embedded log: a few thousand mutated
 * OTLP/JSON trace, flat span, metrics, logs and activity bodies (test-support/fuzz)
 * on every ingest route, a share of them as mutated OTLP protobuf (protobuf is on
 * here); then mutated protobuf messages over OTLP/gRPC. No answer may be a 5xx (or
 * a gRPC INTERNAL/UNKNOWN), every HTTP error must be the JSON error body, nothing
 * may reject unhandled, and ingest must still answer afterwards. The sequence is
 * fixed by a seed, printed on failure; FUZZ_SEED=<n> runs another.
 */
import { readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBus, topicSpecsFor } from '@svc/shared/bus/index'
import type { Bus } from '@svc/shared/bus/types'
import { mapBounded } from '@svc/shared/concurrency'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { fuzzSeed, mutateBytes, mutateJson, rng, transport, type Rng } from '@svc/shared/test-support/fuzz'
import { createIngestApp, type IngestApp } from './app.js'
import { startGrpcIngest, type RunningGrpc } from './grpc.js'
import type { OtlpSignal } from './otlp/protobuf.js'
import { KEY, OTHER_KEY, testControlState, WS } from './test-support/control.js'
import { collectorPayload, flatPayload, jsExporterPayload } from './test-support/payloads.js'
import { otlpProtobuf, tracesProtobuf } from './test-support/protobuf.js'

const SEED = fuzzSeed(20261124)
const REQUESTS = 2500
const fixture = (f: string): unknown => JSON.parse(readFileSync(new URL(`../../../tests/fixtures/coding-agent/${f}`, import.meta.url), 'utf8'))

const BASES: Array<{ path: string; body: unknown }> = [
  { path: '/v1/otlp/traces', body: jsExporterPayload() },
  { path: '/v1/traces', body: collectorPayload() },
  { path: '/v1/otlp/traces', body: flatPayload() },
  { path: '/v1/otlp/coding-agent/v1/traces', body: jsExporterPayload() },
  { path: '/v1/otlp/coding-agent/v1/metrics', body: fixture('claude-code-metrics.json') },
  { path: '/v1/otlp/coding-agent/v1/metrics', body: fixture('claude-code-cumulative-metrics.json') },
  { path: '/v1/otlp/coding-agent/v1/logs', body: fixture('claude-code-logs.json') },
  { path: '/v1/otlp/coding-agent/v1/logs', body: fixture('codex-logs.json') },
  { path: '/v1/otlp/coding-agent/v1/activity', body: fixture('activity.json') },
  { path: '/v1/otlp/coding-agent/v1/activity', body: fixture('claude-code-logs.json') },
]

/** The OTLP bases as protobuf, by their route's message. */
const PROTOBUF_BASES: Array<{ path: string; signal: OtlpSignal; body: Uint8Array }> = [
  { path: '/v1/otlp/traces', signal: 'traces', body: tracesProtobuf(jsExporterPayload()) },
  { path: '/v1/traces', signal: 'traces', body: tracesProtobuf(collectorPayload()) },
  { path: '/v1/otlp/coding-agent/v1/metrics', signal: 'metrics', body: otlpProtobuf('metrics', fixture('claude-code-metrics.json') as Record<string, unknown>) },
  { path: '/v1/otlp/coding-agent/v1/logs', signal: 'logs', body: otlpProtobuf('logs', fixture('claude-code-logs.json') as Record<string, unknown>) },
  { path: '/v1/otlp/coding-agent/v1/activity', signal: 'logs', body: otlpProtobuf('logs', fixture('claude-code-logs.json') as Record<string, unknown>) },
]
const GRPC_REQUESTS = 600

/** A protobuf body: mostly mutated bytes, sometimes the valid base, sometimes another route's message. */
function protobufBody(r: Rng, base: (typeof PROTOBUF_BASES)[number]): { body: Uint8Array; note: string } {
  if (r.chance(0.1)) return { body: base.body, note: 'valid protobuf' }
  if (r.chance(0.1)) return { body: r.pick(PROTOBUF_BASES).body, note: 'another message' }
  return mutateBytes(base.body, r)
}

interface Case {
  i: number
  method: string
  path: string
  body?: Uint8Array | string
  headers: Record<string, string>
  note: string
}

function cases(seed: number): Case[] {
  const r = rng(seed)
  return Array.from({ length: REQUESTS }, (_, i): Case => {
    const auth: Record<string, string> = r.chance(0.03) ? {} : { 'x-svc-api-key': r.chance(0.2) ? OTHER_KEY : KEY }
    if (r.chance(0.03)) return { i, method: 'GET', path: r.pick([`/v1/workspaces/${r.pick([WS.slug, WS.id, '%00', 'x'.repeat(300), '..'])}/sdk-config`, '/v1/auth/whoami', '/v1/otlp/traces']), headers: auth, note: 'get' }
    if (r.chance(0.25)) {
      const pb = r.pick(PROTOBUF_BASES)
      const { body, note } = protobufBody(r, pb)
      const gz = r.chance(0.1)
      return { i, method: 'POST', path: pb.path, body: gz ? gzipSync(body) : body, headers: { 'content-type': 'application/x-protobuf', ...(gz ? { 'content-encoding': 'gzip' } : {}), ...auth }, note: `${note}${gz ? ' | gzip' : ''}` }
    }
    const base = r.pick(BASES)
    const json = r.chance(0.9) ? mutateJson(base.body, r) : { text: JSON.stringify(base.body), note: 'valid' }
    const sent = transport(json.text, r)
    return { i, method: 'POST', path: base.path, body: sent.body, headers: { ...sent.headers, ...auth }, note: `${json.note} | ${sent.note}` }
  })
}

let bus: Bus
let ingest: IngestApp
let grpcIngest: RunningGrpc
const unhandled: unknown[] = []
const onUnhandled = (err: unknown) => unhandled.push(err)

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  const config = loadConfig({ SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'ingest-fuzz-')), SVC_INGEST_MAX_BODY_BYTES: String(4 * 1024 * 1024), SVC_INGEST_PROTOBUF: 'true' })
  const log = createLogger({ level: 'silent' })
  bus = await createBus(config, log)
  await bus.ensureTopics(topicSpecsFor(config))
  ingest = createIngestApp({ bus, control: { state: testControlState() }, config, log })
  grpcIngest = await startGrpcIngest(ingest.routeDeps, { host: '127.0.0.1', port: 0, log })
})
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
  await grpcIngest?.close()
  await bus?.close()
})

describe(`ingest fuzz (seed ${SEED})`, () => {
  it(`${REQUESTS} mutated requests: no 5xx, every error a JSON error body, no unhandled rejection`, async () => {
    const failures: string[] = []
    const statuses = new Map<number, number>()
    await mapBounded(cases(SEED), 8, async (c) => {
      const res = await ingest.app.request(c.path, { method: c.method, body: c.body as BodyInit | undefined, headers: c.headers })
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      const text = await res.text()
      let error: unknown
      try {
        error = (JSON.parse(text) as { error?: unknown }).error
      } catch {
        error = undefined
      }
      if (res.status >= 500 && res.status !== 503) failures.push(`#${c.i} ${c.method} ${c.path} [${c.note}] -> ${res.status} ${text.slice(0, 200)}`)
      else if (res.status >= 400 && typeof error !== 'string') failures.push(`#${c.i} ${c.method} ${c.path} [${c.note}] -> ${res.status} without a JSON error: ${text.slice(0, 200)}`)
    })
    const summary = `seed ${SEED} (rerun with FUZZ_SEED=${SEED}); statuses ${JSON.stringify(Object.fromEntries(statuses))}`
    expect(failures, `${summary}\n${failures.slice(0, 20).join('\n')}`).toEqual([])
    expect(unhandled, summary).toEqual([])
    // Every request was charged and released, and the app still answers.
    expect(ingest.budget.inflightBytes).toBe(0)
    expect((await ingest.app.request('/health')).status).toBe(200)
    expect((await ingest.app.request('/v1/otlp/traces', { method: 'POST', body: JSON.stringify(jsExporterPayload()), headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY } })).status).toBe(202)
    // 503 only when the bus did not acknowledge, which the embedded log always does here.
    expect(statuses.get(503) ?? 0, summary).toBe(0)
  }, 60_000)

  it(`${GRPC_REQUESTS} mutated OTLP/gRPC messages: only OK, INVALID_ARGUMENT, UNAUTHENTICATED or RESOURCE_EXHAUSTED`, async () => {
    const r = rng(SEED + 1)
    const client = new grpc.Client(`127.0.0.1:${grpcIngest.port}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 })
    const raw = (b: Buffer) => b
    const service = { traces: 'trace.v1.TraceService', metrics: 'metrics.v1.MetricsService', logs: 'logs.v1.LogsService' }
    const allowed = new Set([grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.UNAUTHENTICATED, grpc.status.RESOURCE_EXHAUSTED])
    const failures: string[] = []
    const codes = new Map<string, number>()
    const calls = Array.from({ length: GRPC_REQUESTS }, (_, i) => {
      const base = r.pick(PROTOBUF_BASES)
      const md = new grpc.Metadata()
      if (!r.chance(0.03)) md.set('x-svc-api-key', r.chance(0.2) ? OTHER_KEY : KEY)
      return { i, base, md, ...protobufBody(r, base) }
    })
    try {
      await mapBounded(calls, 8, async (c) => {
        const code = await new Promise<grpc.status>((resolve) =>
          client.makeUnaryRequest(`/opentelemetry.proto.collector.${service[c.base.signal]}/Export`, raw, raw, Buffer.from(c.body), c.md, (err) => resolve(err?.code ?? grpc.status.OK)),
        )
        codes.set(grpc.status[code], (codes.get(grpc.status[code]) ?? 0) + 1)
        if (!allowed.has(code)) failures.push(`#${c.i} ${c.base.signal} [${c.note}] -> ${grpc.status[code]}`)
      })
    } finally {
      client.close()
    }
    const summary = `seed ${SEED} (rerun with FUZZ_SEED=${SEED}); codes ${JSON.stringify(Object.fromEntries(codes))}`
    expect(failures, `${summary}\n${failures.slice(0, 20).join('\n')}`).toEqual([])
    expect(unhandled, summary).toEqual([])
    // The mutations reach both sides: messages accepted and messages refused as malformed.
    expect(codes.get('OK'), summary).toBeGreaterThan(0)
    expect(codes.get('INVALID_ARGUMENT'), summary).toBeGreaterThan(0)
    expect(ingest.budget.inflightBytes).toBe(0)
  }, 60_000)
})
