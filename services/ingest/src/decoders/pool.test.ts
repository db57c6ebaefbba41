import { afterAll, describe, expect, it } from 'vitest'
import { spanV1 } from '@svc/shared/bus/records'
import { TOPICS } from '@svc/shared/bus/topics'
import { loadConfig } from '@svc/shared/config'
import { HttpError } from '@svc/shared/http/errors'
import { createLogger } from '@svc/shared/log'
import { createIngestApp } from '../app.js'
import { KEY, ORG, testControlState, WS } from '../test-support/control.js'
import { flatPayload, jsExporterPayload } from '../test-support/payloads.js'
import { otlpProtobuf, tracesProtobuf } from '../test-support/protobuf.js'
import { RecordingBus } from '../test-support/recording-bus.js'
import type { DecodeJob, Prepared } from './job.js'
import { createDecoders, DecoderCrashed, ThreadDecoders } from './pool.js'

const log = createLogger({ level: 'silent' })
const inline = createDecoders(0)
const threads = new ThreadDecoders(2, log)
afterAll(() => threads.close())

const principal = { org_id: ORG.id, workspace_id: WS.id, project_id: 'default' }
const job = (over: Partial<DecodeJob> & { body: Uint8Array }): DecodeJob => ({ preparer: 'traces', signal: 'traces', format: 'json', principal, receivedAtMs: 1_718_000_000_000, captureText: true, ...over })
const json = (v: unknown) => Buffer.from(JSON.stringify(v))
// A valid span and one with a bad span id, which is rejected and dead-lettered.
const mixed = () => json([...flatPayload(), { ...flatPayload()[0], span_id: 'short' }])

/**
 * A body a thread takes long enough over (some 100 ms) that it is still decoding it when the
 * test terminates the thread, right after handing it over in the same turn.
 */
function slowBody(): Buffer {
  const payload = jsExporterPayload()
  const scope = payload.resourceSpans[0]!.scopeSpans[0]!
  scope.spans = Array.from({ length: 10_000 }, () => scope.spans).flat()
  return json(payload)
}

/** What a request does with a Prepared, in plain data: every record's key and value bytes, the rest as is. */
const plain = ({ records, ...rest }: Prepared) => ({ ...rest, records: records.map((t) => ({ topic: t.topic, records: t.records.map((r) => ({ key: r.key, value: [...r.value] })) })) })

describe('ingest decoders: threads answer as inline does', () => {
  it.each([
    ['OTLP/JSON traces', () => job({ body: json(jsExporterPayload()) })],
    ['flat spans, one rejected', () => job({ body: mixed() })],
    ['capture_text off', () => job({ body: json(jsExporterPayload()), captureText: false })],
    ['protobuf traces', () => job({ format: 'protobuf', body: tracesProtobuf(jsExporterPayload()) })],
    ['coding-agent metrics (protobuf)', () => job({ preparer: 'metrics', signal: 'metrics', format: 'protobuf', body: otlpProtobuf('metrics', { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', sum: { dataPoints: [{ asInt: '1', timeUnixNano: '1718000000000000000' }] } }] }] }] }) })],
  ])('%s', async (_name, make) => {
    const want = await inline.run(make())
    expect(want.accepted).toBeGreaterThan(0)
    expect(plain(await threads.run(make()))).toEqual(plain(want))
  })

  it('the rejected span comes back as its dead letter reason and bounded JSON payload', async () => {
    const p = await threads.run(job({ body: mixed() }))
    expect(p.rejected).toEqual([{ reason: expect.stringMatching(/span_id "short"/), payload: expect.stringContaining('"span_id":"short"') }])
    expect(p.spans).toEqual({ accepted: 1, rejected: 1 })
  })

  it('transfers the body in and the values out: the body is detached, the values share one buffer', async () => {
    const body = new Uint8Array(json(jsExporterPayload()))
    const p = await threads.run(job({ body }))
    expect(body.byteLength).toBe(0)
    // A small Buffer shares Node's pool with others: it is copied, the pool left alone.
    const pooled = json(jsExporterPayload())
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength)
    await threads.run(job({ body: pooled }))
    expect(pooled.byteLength).toBeGreaterThan(0)
    const values = p.records[0]!.records.map((r) => r.value)
    expect(values).toHaveLength(2)
    expect(values[0]!.buffer).toBe(values[1]!.buffer)
    expect(spanV1.decode(values[1]!).workspace_id).toBe(WS.id)
  })

  it('a bad body is the same 400 inline and on a thread', async () => {
    for (const bad of [job({ body: Buffer.from('{"resourceSpans": [') }), job({ body: json({ resourceSpans: 'x' }) }), job({ format: 'protobuf', body: Buffer.from([0xff, 0xff, 0xff]) })]) {
      const inlineErr = await inline.run({ ...bad, body: new Uint8Array(bad.body) }).catch((e: unknown) => e)
      const threadErr = await threads.run(bad).catch((e: unknown) => e)
      expect(inlineErr).toBeInstanceOf(HttpError)
      expect(threadErr).toBeInstanceOf(HttpError)
      expect({ status: (threadErr as HttpError).status, message: (threadErr as HttpError).message }).toEqual({ status: 400, message: (inlineErr as HttpError).message })
    }
  })

  it('a thread that dies under a job fails it with DecoderCrashed, and the next job runs on a new thread', async () => {
    const pool = new ThreadDecoders(1, log)
    try {
      await pool.run(job({ body: json(jsExporterPayload()) }))
      const [first] = pool.workers()
      const running = pool.run(job({ body: slowBody() }))
      void first!.terminate()
      await expect(running).rejects.toBeInstanceOf(DecoderCrashed)
      expect((await pool.run(job({ body: json(jsExporterPayload()) }))).accepted).toBe(2)
      expect(pool.workers()[0]).not.toBe(first)
    } finally {
      await pool.close()
    }
  })
})

describe('a decoder thread killed mid-request', () => {
  it('answers 503 with nothing produced, and the retried request is accepted', async () => {
    const bus = new RecordingBus()
    const decoders = new ThreadDecoders(1, log)
    const ingest = createIngestApp({ bus, control: { state: testControlState() }, config: loadConfig({}), log, decoders })
    const post = (body: string = JSON.stringify(jsExporterPayload())) => ingest.app.request('/v1/otlp/traces', { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-api-key': KEY } })
    try {
      expect((await post()).status).toBe(202)
      // The job is handed to the thread in the same turn as run() is called; the thread is gone before it can answer.
      const run = decoders.run.bind(decoders)
      decoders.run = (j) => {
        const p = run(j)
        void decoders.workers()[0]!.terminate()
        return p
      }
      const res = await post(slowBody().toString())
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: 'unavailable' })
      expect(bus.records(TOPICS.spansRaw)).toHaveLength(2)
      decoders.run = run
      expect((await post()).status).toBe(202)
      expect(bus.records(TOPICS.spansRaw)).toHaveLength(4)
      expect(ingest.budget.inflightBytes).toBe(0)
    } finally {
      await decoders.close()
    }
  })
})
