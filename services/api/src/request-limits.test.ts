/**
 * What a hostile request can make the read API do: never a 500, never more than
 * the documented limits, never a /metrics series per path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Bus, OutgoingRecord } from '@svc/shared/bus/types'
import { apiHarness, type Harness } from './test-support/harness.js'

const ADMIN = `dr_${'a'.repeat(40)}`
const WS_PATH = '/v1/observ/orgs/acme/workspaces/agents'
const MAX_BODY = 128 * 1024
const MAX_DOC = 512 * 1024
const produced: OutgoingRecord[] = []
const bus = { kind: 'embedded', produce: async (_topic: string, records: OutgoingRecord[]) => (produced.push(...records), []) } as unknown as Bus
let h: Harness

beforeAll(async () => {
  h = await apiHarness({ keys: { [ADMIN]: 'admin' }, bus, maxBodyBytes: MAX_BODY, alignmentMaxDocBytes: MAX_DOC })
}, 60_000)
afterAll(() => h?.close())

const send = (method: string, path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  h.app.request(path, { method, body, headers: { 'content-type': 'application/json', 'x-svc-api-key': ADMIN, ...headers } })

/** JSON text of `levels` nested objects under `key`: JSON.stringify itself cannot write it. */
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)

describe('deeply nested JSON bodies', () => {
  const routes: Array<[string, string, (deep: string) => string]> = [
    ['PUT', '/v1/observ/orgs/acme/llm-credentials', (deep) => `{"provider":"openai","model_id":"gpt-4o","api_key":"sk-test-1234","provider_config":${deep}}`],
    ['PUT', `${WS_PATH}/alignment/policy`, (deep) => `{"description":"x","enabled":true,"extra":${deep}}`],
    ['PATCH', `${WS_PATH}/settings/capture-text`, (deep) => `{"capture_text":${deep}}`],
    ['PUT', `${WS_PATH}/cost-budget`, (deep) => `{"budgets":${deep}}`],
    ['POST', `${WS_PATH}/retention:preview`, (deep) => `{"hours":${deep}}`],
    ['POST', '/v1/auth/login', (deep) => `{"email":${deep},"password":"x"}`],
  ]

  it('a body nested 10,000 levels deep is a 400 on every JSON route', async () => {
    for (const [method, path, body] of routes) {
      const res = await send(method, path, body(deepObject(10_000)))
      expect(res.status, `${method} ${path}`).toBe(400)
      expect(await res.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/nested deeper than 32 levels/) })
    }
  })

  it('provider_config nested within the limit is stored', async () => {
    const res = await send('PUT', '/v1/observ/orgs/acme/llm-credentials', routes[0]![2](deepObject(20)))
    expect(res.status).toBe(200)
  })
})

const CHUNK = 64 * 1024

/** A body sent in chunks without content-length (chunked transfer), counting what the server pulled. */
function chunkedBody(total: number, opts: { head?: string; tail?: string } = {}) {
  const parts = [Buffer.from(opts.head ?? ''), ...Array.from({ length: Math.ceil(total / CHUNK) }, () => Buffer.alloc(CHUNK, 'a')), Buffer.from(opts.tail ?? '')]
  let pulled = 0
  let i = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(ctrl) {
        if (i === parts.length) return ctrl.close()
        pulled += parts[i]!.byteLength
        ctrl.enqueue(parts[i++]!)
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, pulled: () => pulled }
}
const streamed = (method: string, path: string, stream: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  h.app.request(path, { method, body: stream, duplex: 'half', headers: { 'content-type': 'application/json', 'x-svc-api-key': ADMIN, ...headers } } as RequestInit)

const BOUNDARY = 'xBOUNDARYx'
const multipart = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }
const fileHead = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="policy.txt"\r\nContent-Type: text/plain\r\n\r\n`
const fileTail = `\r\n--${BOUNDARY}--\r\n`

describe('request body size', () => {
  it('a 17 MiB login body is refused with a JSON 413, announced or not', async () => {
    const big = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(17 * 1024 * 1024) })
    for (const headers of [{}, { 'content-length': String(big.length) }] as Array<Record<string, string>>) {
      const res = await h.app.request('/v1/auth/login', { method: 'POST', body: big, headers: { 'content-type': 'application/json', ...headers } })
      expect(res.status).toBe(413)
      expect(await res.json()).toMatchObject({ error: 'payload_too_large', detail: { max_bytes: MAX_BODY } })
    }
  })

  it('a chunked JSON body stops being read at the limit', async () => {
    const body = chunkedBody(8 * 1024 * 1024, { head: '{"description":"', tail: '"}' })
    const res = await streamed('PUT', `${WS_PATH}/alignment/policy`, body.stream)
    expect(res.status).toBe(413)
    expect(body.pulled()).toBeLessThanOrEqual(MAX_BODY + 2 * CHUNK)
  })

  it('every route has the limit, unknown routes too', async () => {
    for (const [method, path] of [['PATCH', `${WS_PATH}/settings/capture-text`], ['DELETE', `${WS_PATH}/api-keys/k1`], ['POST', '/v1/nope']] as const) {
      const res = await streamed(method, path, chunkedBody(MAX_BODY + CHUNK).stream)
      expect(res.status, `${method} ${path}`).toBe(413)
    }
  })

  it('the alignment upload has its own larger limit, checked while streaming', async () => {
    const ok = chunkedBody(MAX_BODY + 4 * CHUNK, { head: fileHead, tail: fileTail })
    const accepted = await streamed('POST', `${WS_PATH}/alignment/docs`, ok.stream, multipart)
    expect(accepted.status).toBe(202)
    expect(await accepted.json()).toMatchObject({ status: 'uploaded', bytes: MAX_BODY + 4 * CHUNK })
    const huge = chunkedBody(64 * 1024 * 1024, { head: fileHead, tail: fileTail })
    const refused = await streamed('POST', `${WS_PATH}/alignment/docs`, huge.stream, multipart)
    expect(refused.status).toBe(413)
    expect(await refused.json()).toMatchObject({ error: 'payload_too_large' })
    expect(huge.pulled()).toBeLessThanOrEqual(MAX_DOC + 64 * 1024 + 2 * CHUNK)
  })
})

describe('/metrics cardinality', () => {
  const requestSeries = async () => (await (await h.app.request('/metrics')).text()).split('\n').filter((l) => l.startsWith('svc_api_request_duration_seconds_count{')).map((l) => l.replace(/ \d+$/, ''))

  it('1,000 requests to random paths add a handful of request-duration series, labelled by route pattern', async () => {
    const before = new Set(await requestSeries())
    const random = (i: number) => `${i.toString(36)}-${Math.random().toString(36).slice(2)}`
    for (let i = 0; i < 1000; i++) {
      const path = [`/v1/${random(i)}`, `/v1/observ/orgs/${random(i)}/workspaces/${random(i)}/traces/${random(i)}`, `/${random(i)}`, `${WS_PATH}/traces/${random(i)}`][i % 4]!
      await h.app.request(path, { headers: i % 2 ? { 'x-svc-api-key': ADMIN } : {} })
    }
    const added = (await requestSeries()).filter((s) => !before.has(s))
    expect(added.length).toBeGreaterThan(0)
    expect(added.length).toBeLessThanOrEqual(4)
    expect(added).toContain('svc_api_request_duration_seconds_count{route="/v1/observ/orgs/:org/workspaces/:ws/traces/:trace_id",status="404"}')
    expect(added).toContain('svc_api_request_duration_seconds_count{route="unmatched",status="401"}')
  }, 60_000)
})
