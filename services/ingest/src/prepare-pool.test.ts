import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { HttpError } from '@svc/shared/http/errors'
import { createLogger } from '@svc/shared/log'
import { inlinePrepare, threadPool } from './prepare-pool.js'
import type { PrepareJob } from './prepare.js'
import { collectorPayload, flatPayload, jsExporterPayload } from './test-support/payloads.js'
import { tracesProtobuf } from './test-support/protobuf.js'

const fixture = (f: string) => readFileSync(new URL(`../../../tests/fixtures/coding-agent/${f}`, import.meta.url))
const tenant = { org_id: '11111111-1111-4111-8111-111111111111', workspace_id: '22222222-2222-4222-8222-222222222222', project_id: 'default' }
const job = (over: Partial<PrepareJob> & Pick<PrepareJob, 'bytes'>): PrepareJob => ({ preparer: 'traces', signal: 'traces', format: 'json', tenant, receivedAtMs: 1_718_000_000_000, captureText: true, ...over })
const json = (v: unknown) => Buffer.from(JSON.stringify(v))

/** A span the decoder rejects (a short id), beside good ones: its dead letter's payload is made on the thread. */
function withRejectedSpan() {
  const p = jsExporterPayload()
  const spans = p.resourceSpans[0]!.scopeSpans[0]!.spans as Array<Record<string, unknown>>
  spans.push({ ...spans[0], spanId: 'short', attributes: [{ key: 'deep', value: nested(40) }] })
  return p
}
const nested = (depth: number): unknown => (depth === 0 ? { stringValue: 'x' } : { kvlistValue: { values: [{ key: 'k', value: nested(depth - 1) }] } })

const JOBS: Array<[string, PrepareJob]> = [
  ['OTLP/JSON traces from the JS exporter', job({ bytes: json(jsExporterPayload()) })],
  ['the collector\'s traces with capture_text off', job({ bytes: json(collectorPayload()), captureText: false })],
  ['the flat span array', job({ bytes: json(flatPayload()) })],
  ['a rejected span carrying a deep value', job({ bytes: json(withRejectedSpan()) })],
  ['OTLP protobuf traces', job({ bytes: tracesProtobuf(jsExporterPayload()), format: 'protobuf' })],
  ['coding-agent metrics', job({ preparer: 'coding-agent.metrics', signal: 'metrics', bytes: fixture('claude-code-metrics.json') })],
  ['coding-agent logs', job({ preparer: 'coding-agent.logs', signal: 'logs', bytes: fixture('claude-code-logs.json'), captureText: false })],
  ['coding-agent activity', job({ preparer: 'coding-agent.activity', signal: 'logs', bytes: fixture('activity.json') })],
]

const pool = threadPool(2, createLogger({ level: 'silent' }))
afterAll(() => pool.close())

/** A job with a body of its own: the pool moves a body that owns its memory to the thread, leaving it empty here. */
const fresh = (j: PrepareJob): PrepareJob => ({ ...j, bytes: new Uint8Array(j.bytes) })

/** A Prepared as comparable data: record values as hex. */
const plain = (p: Awaited<ReturnType<typeof pool.run>>) => ({ ...p, records: p.records.map((t) => ({ topic: t.topic, records: t.records.map((r) => ({ key: r.key, value: Buffer.from(r.value).toString('hex') })) })) })

describe('ingest threads (prepare-pool.ts)', () => {
  it.each(JOBS)('prepare %s exactly as the request\'s own thread does', async (_, j) => {
    const inline = await inlinePrepare.run(fresh(j))
    expect(inline.accepted).toBeGreaterThan(0)
    expect(plain(await pool.run(fresh(j)))).toEqual(plain(inline))
  })

  it('run many requests at once on both threads, each answered with its own records', async () => {
    const all = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.run(fresh(JOBS[i % JOBS.length]![1]))))
    for (const [i, p] of all.entries()) expect(plain(p)).toEqual(plain(await inlinePrepare.run(fresh(JOBS[i % JOBS.length]![1]))))
  })

  it('answer a body that is not what it claims with the same 400 as the request\'s own thread', async () => {
    for (const j of [job({ bytes: Buffer.from('{"resourceSpans": [') }), job({ bytes: Buffer.from([0xff, 0x01]), format: 'protobuf' }), job({ bytes: json({ resourceSpans: 'no' }) })]) {
      const inline = await inlinePrepare.run(fresh(j)).catch((e: unknown) => e)
      const threaded = await pool.run(fresh(j)).catch((e: unknown) => e)
      expect(inline).toBeInstanceOf(HttpError)
      expect(threaded).toBeInstanceOf(HttpError)
      expect({ status: (threaded as HttpError).status, message: (threaded as HttpError).message }).toEqual({ status: 400, message: (inline as HttpError).message })
    }
  })

  it('move a body that owns its memory to the thread, and copy one that shares it', async () => {
    const owned = fresh(JOBS[0]![1])
    await pool.run(owned)
    expect(owned.bytes.byteLength).toBe(0)
    const shared = Buffer.concat([Buffer.from('padding'), Buffer.from(JOBS[0]![1].bytes)]).subarray(7)
    await pool.run({ ...JOBS[0]![1], bytes: shared })
    expect(shared.byteLength).toBe(JOBS[0]![1].bytes.byteLength)
  })

  it('refuse work once closed with a 503 the exporter retries', async () => {
    const closing = threadPool(1, createLogger({ level: 'silent' }))
    await closing.run(fresh(JOBS[0]![1]))
    await closing.close()
    await expect(closing.run(fresh(JOBS[0]![1]))).rejects.toMatchObject({ status: 503 })
  })
})
