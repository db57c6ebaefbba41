/**
 * The plumbing of the tests' loopback JSON servers (fake-openai.ts, fake-search.ts):
 * a server on 127.0.0.1 that reads each request's JSON body, records it, counts
 * requests in flight, and can delay answers; close() ends open sockets and timers
 * so a test never waits on a held-back answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { TestJson } from '@svc/shared/test-support/json'

export interface LoopbackRequest {
  method: string
  path: string
  headers: Record<string, string | undefined>
  /** Parsed JSON body (null when it did not parse). */
  body: TestJson
}

export interface Loopback {
  port: number
  requests: LoopbackRequest[]
  /** Highest number of requests being handled at the same time. */
  readonly maxConcurrent: number
  close(): Promise<void>
}

export interface LoopbackTools {
  send(status: number, body: unknown): void
  sleep(ms: number): Promise<void>
}

export async function startLoopback(handle: (req: LoopbackRequest, raw: IncomingMessage, tools: LoopbackTools) => Promise<void>): Promise<Loopback> {
  const requests: LoopbackRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let inFlight = 0
  let maxConcurrent = 0

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t)
        resolve()
      }, ms)
      timers.add(t)
    })

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: TestJson = null
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      body = null
    }
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v
    const record: LoopbackRequest = { method: req.method ?? '', path: (req.url ?? '/').split('?')[0]!, headers, body }
    requests.push(record)
    const send = (status: number, payload: unknown) => {
      if (res.destroyed) return
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(payload))
    }
    inFlight++
    maxConcurrent = Math.max(maxConcurrent, inFlight)
    try {
      await handle(record, req, { send, sleep })
    } finally {
      inFlight--
    }
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch(() => res.destroy())
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    get maxConcurrent() {
      return maxConcurrent
    },
    async close() {
      for (const t of timers) clearTimeout(t)
      timers.clear()
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A loopback port with nothing listening: connecting to it is refused. */
export async function refusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
