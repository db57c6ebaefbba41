import { deflateSync, gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { jsonErrorHandler } from '@svc/shared/http/errors'
import { createLogger } from '@svc/shared/log'
import { bodyFormat, readBodyBytes, readIngestBody, type ReadBody } from './body.js'
import { parseBody } from './prepare.js'

const MAX = 1024
/** The body as the request's preparer sees it (prepare.ts parses it there, 400 when invalid). */
const parsed = (b: ReadBody) => ({ value: parseBody(b.bytes, b.format, 'traces'), bytes: b.charged, format: b.format })

function app() {
  const a = new Hono()
  a.post('/', async (c) => c.json(parsed(await readIngestBody(c, { maxBytes: MAX, protobuf: false }))))
  a.onError(jsonErrorHandler(createLogger({ level: 'silent' })))
  return a
}

const post = (body: BodyInit | null, headers: Record<string, string> = {}) => app().request('/', { method: 'POST', body, headers })

describe('content type', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/otlp+json', undefined])('accepts %s', (ct) => {
    expect(() => bodyFormat(ct)).not.toThrow()
  })
  it.each(['application/x-protobuf', 'application/protobuf', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])('refuses %s with 415', (ct) => {
    expect(() => bodyFormat(ct)).toThrow(expect.objectContaining({ status: 415, code: 'unsupported_media_type' }))
  })
  it('answers protobuf with the way to OTLP/JSON for each producer', async () => {
    const res = await post('x', { 'content-type': 'application/x-protobuf' })
    expect(res.status).toBe(415)
    expect(await res.json()).toMatchObject({
      error: 'unsupported_media_type',
      message: expect.stringMatching(/OTLP\/JSON/),
      detail: {
        routes: {
          python: expect.stringMatching(/svc-sdk.*OTEL_TRACES_EXPORTER=otlp_json_http/),
          javascript: expect.stringMatching(/http\/json/),
          collector: expect.stringMatching(/encoding: json/),
          other: expect.stringMatching(/SVC_INGEST_PROTOBUF=true/),
        },
      },
    })
  })
  it.each(['application/x-protobuf', 'application/protobuf; charset=binary'])('takes %s as protobuf where the operator turned it on', (ct) => {
    expect(bodyFormat(ct, true)).toBe('protobuf')
    expect(bodyFormat('application/json', true)).toBe('json')
    expect(() => bodyFormat('text/plain', true)).toThrow(/application\/json or application\/x-protobuf/)
  })
})

describe('readIngestBody', () => {
  it('parses plain JSON and reports its size', async () => {
    const res = await post('{"a":[1,2]}', { 'content-type': 'application/json' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ value: { a: [1, 2] }, bytes: 11, format: 'json' })
  })

  it('takes a missing content type as JSON and tolerates a BOM', async () => {
    const res = await app().request('/', { method: 'POST', body: new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('[]')]) })
    expect(res.status).toBe(200)
  })

  it('decompresses gzip and deflate', async () => {
    for (const [enc, data] of [['gzip', gzipSync('{"ok":true}')], ['deflate', deflateSync('{"ok":true}')]] as const) {
      const res = await post(data, { 'content-type': 'application/json', 'content-encoding': enc })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ value: { ok: true }, bytes: 11, format: 'json' })
    }
  })

  it('answers 400 for invalid JSON, an empty body and invalid gzip', async () => {
    for (const [body, headers] of [
      ['{"a":', {}],
      ['', {}],
      ['not gzip at all', { 'content-encoding': 'gzip' }],
      [gzipSync('{"a":1}').subarray(0, 12), { 'content-encoding': 'gzip' }],
    ] as const) {
      const res = await post(body, { 'content-type': 'application/json', ...headers })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'bad_request' })
    }
  })

  it('answers 415 for an unknown content encoding', async () => {
    expect((await post('{}', { 'content-encoding': 'br' })).status).toBe(415)
  })

  it('answers 413 past the limit, with or without a content-length', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(MAX) })
    const res = await post(big, { 'content-type': 'application/json' })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ error: 'payload_too_large', detail: { max_bytes: MAX } })
    // A streamed body has no content-length: the reader cuts it off.
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < 10; i++) ctl.enqueue(new Uint8Array(512))
        ctl.close()
      },
    })
    expect((await app().request('/', { method: 'POST', body: stream, duplex: 'half' } as RequestInit)).status).toBe(413)
  })

  it('measures the limit after decompression (a gzip bomb is 413)', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20))
    expect(bomb.length).toBeLessThan(MAX * 100)
    const res = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    expect(res.status).toBe(413)
  })
})

describe('charging the in-flight budget while reading', () => {
  /** A chunked body (no content-length) that counts what the reader pulled from it. */
  function counted(chunks: Uint8Array[]) {
    let pulled = 0
    let i = 0
    const stream = new ReadableStream<Uint8Array>({ pull: (ctl) => (i < chunks.length ? ((pulled += chunks[i]!.byteLength), ctl.enqueue(chunks[i++]!)) : ctl.close()) }, { highWaterMark: 0 })
    return { stream, pulled: () => pulled }
  }
  const refuseAbove = (limit: number, seen: number[]) => (bytes: number) => {
    seen.push(bytes)
    if (bytes > limit) throw new Error('over budget')
  }

  it('charges a chunked body as it arrives and stops reading when the charge is refused', async () => {
    const seen: number[] = []
    const body = counted(Array.from({ length: 100 }, () => new Uint8Array(512).fill(0x20)))
    await expect(readBodyBytes(body.stream, 'identity', { maxBytes: 1024 * 1024, charge: refuseAbove(4096, seen) })).rejects.toThrow('over budget')
    expect(seen.slice(0, 3)).toEqual([512, 1024, 1536])
    expect(Math.max(...seen)).toBeLessThanOrEqual(4096 + 512)
    expect(body.pulled()).toBeLessThanOrEqual(4096 + 2 * 512)
  })

  it('charges gzip output as it is produced: a bomb is refused long before it is inflated', async () => {
    const seen: number[] = []
    const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20))
    const before = process.memoryUsage().arrayBuffers
    await expect(readBodyBytes(counted([bomb]).stream, 'gzip', { maxBytes: 64 * 1024 * 1024, charge: refuseAbove(256 * 1024, seen) })).rejects.toThrow('over budget')
    expect(Math.max(...seen)).toBeLessThanOrEqual(256 * 1024 + 64 * 1024)
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024)
  })

  it('readIngestBody passes the charge through and reports the decompressed size', async () => {
    const seen: number[] = []
    const a = new Hono()
    a.post('/', async (c) => c.json(parsed(await readIngestBody(c, { maxBytes: MAX, protobuf: false, charge: (n) => void seen.push(n) }))))
    const res = await a.request('/', { method: 'POST', body: gzipSync('{"ok":true}'), headers: { 'content-encoding': 'gzip' } })
    expect(await res.json()).toEqual({ value: { ok: true }, bytes: 11, format: 'json' })
    expect(seen.at(-1)).toBe(11)
  })
})

describe('helpers', () => {
  it('readBodyBytes concatenates chunks up to the cap', async () => {
    const s = new ReadableStream<Uint8Array>({
      start(ctl) {
        ctl.enqueue(Buffer.from('ab'))
        ctl.enqueue(Buffer.from('cd'))
        ctl.close()
      },
    })
    expect((await readBodyBytes(s, 'identity', { maxBytes: 4 })).toString()).toBe('abcd')
    expect((await readBodyBytes(null, 'identity', { maxBytes: 4 })).length).toBe(0)
  })

  it('a gzip bomb stops at maxBytes of output instead of being inflated whole', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    const before = process.memoryUsage().arrayBuffers
    await expect(readBodyBytes(new Blob([bomb]).stream(), 'gzip', { maxBytes: 1024 * 1024 })).rejects.toMatchObject({ status: 413 })
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024)
  })
})
