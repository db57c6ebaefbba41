import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { egressFetch, EgressRefusedError } from './egress.js'

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }
const seen: Seen[] = []
let server: Server
let port: number

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` })
        res.end()
      } else if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        res.end(gzipSync(JSON.stringify({ zipped: true })))
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 5_000).unref()
      } else {
        res.writeHead(201, { 'content-type': 'application/json', 'x-answer': '42' })
        res.end(JSON.stringify({ echo: chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})
beforeEach(() => {
  seen.length = 0
})

/** The refusal inside the TypeError('fetch failed') the call rejects with, as the global fetch does. */
async function refusal(p: Promise<Response>): Promise<EgressRefusedError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(TypeError)
  expect((err as TypeError).message).toBe('fetch failed')
  const cause = (err as TypeError).cause
  expect(cause).toBeInstanceOf(EgressRefusedError)
  return cause as EgressRefusedError
}

describe('egressFetch without private egress', () => {
  const refused: EgressRefusedError[] = []
  const guarded = egressFetch({
    allowPrivate: false,
    onRefused: (e) => refused.push(e),
    // A resolver under the test's control: what a rebinding DNS server would answer.
    lookup: async (host) => {
      if (host === 'rebind.test') return [{ address: '127.0.0.1', family: 4 }]
      if (host === 'mixed.test') return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }]
      if (host === 'metadata.test') return [{ address: '::ffff:169.254.169.254', family: 6 }]
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    },
  })

  it('refuses an IP literal in a private range before connecting', async () => {
    const e = await refusal(guarded(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer sk-secret' } }))
    expect(e).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1', reason: 'loopback', code: 'EGRESS_REFUSED' })
    expect(e.message).toMatch(/SVC_EGRESS_ALLOW_PRIVATE=true/)
    await refusal(guarded(`http://[::1]:${port}/`))
    await refusal(guarded(`http://[::ffff:127.0.0.1]:${port}/`))
    await refusal(guarded(`http://0.0.0.0:${port}/`))
    expect(seen).toEqual([])
  })

  it('refuses a name that resolves to a private address when it connects (DNS rebinding)', async () => {
    expect(await refusal(guarded(`http://rebind.test:${port}/v1`, { method: 'POST', body: '{}' }))).toMatchObject({ host: 'rebind.test', address: '127.0.0.1', reason: 'loopback' })
    expect(await refusal(guarded(`http://metadata.test:${port}/latest`))).toMatchObject({ reason: 'link-local' })
    // One private address among public ones is enough: the connection could pick it.
    expect(await refusal(guarded(`http://mixed.test:${port}/`))).toMatchObject({ address: '10.0.0.7', reason: 'private' })
    expect(seen).toEqual([])
    expect(refused.map((e) => e.host)).toEqual(expect.arrayContaining(['127.0.0.1', 'rebind.test', 'metadata.test', 'mixed.test']))
  })

  it('refuses localhost through the system resolver', async () => {
    const plain = egressFetch({ allowPrivate: false })
    expect(await refusal(plain(`http://localhost:${port}/`))).toMatchObject({ host: 'localhost', reason: 'loopback' })
    expect(seen).toEqual([])
  })

  it('passes resolver failures on as a failed fetch, and refuses schemes other than http(s)', async () => {
    const err = await guarded(`http://nowhere.test:${port}/`).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TypeError)
    expect(((err as TypeError).cause as Error).message).toMatch(/ENOTFOUND/)
    expect(await refusal(guarded('file:///etc/passwd'))).toMatchObject({ reason: 'scheme file: is not http or https' })
  })
})

describe('egressFetch with private egress allowed (the same transport)', () => {
  const open = egressFetch({ allowPrivate: true })

  it('sends method, headers and body, and answers status, headers and body like fetch', async () => {
    const res = await open(`http://127.0.0.1:${port}/v1/echo?q=1`, { method: 'POST', headers: { authorization: 'Bearer sk-1', 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) })
    expect(res.status).toBe(201)
    expect(res.ok).toBe(true)
    expect(res.headers.get('x-answer')).toBe('42')
    expect(await res.json()).toEqual({ echo: { a: 1 } })
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/echo?q=1', body: '{"a":1}' })
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer sk-1', 'content-type': 'application/json', 'content-length': '7' })
  })

  it('decodes a gzip answer', async () => {
    const res = await open(`http://localhost:${port}/gzip`, { headers: { 'accept-encoding': 'gzip' } })
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await res.json()).toEqual({ zipped: true })
  })

  it('answers a redirect as it is, without following it anywhere', async () => {
    const res = await open(`http://127.0.0.1:${port}/redirect`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(/\/elsewhere$/)
    expect(seen.map((s) => s.url)).toEqual(['/redirect'])
  })

  it('stops when its signal aborts', async () => {
    const abort = new AbortController()
    const pending = open(`http://127.0.0.1:${port}/slow`, { signal: abort.signal })
    abort.abort(new DOMException('deadline', 'TimeoutError'))
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' })
  })
})
