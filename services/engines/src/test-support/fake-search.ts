/**
 * A loopback Tavily-compatible search server for tests: POST /search with a
 * per-test handler from query to results (or an error status); every request is
 * recorded and concurrent requests are counted. Never reaches the internet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { SearchResult } from '../crosscheck/search.js'

export interface FakeSearchRequest {
  path: string
  headers: Record<string, string | undefined>
  body: any
}

export type FakeSearchAnswer = ({ results: SearchResult[] } | { status: number; message?: string }) & { delayMs?: number }
export type FakeSearchHandler = (query: string, body: any) => FakeSearchAnswer | Promise<FakeSearchAnswer>

export interface FakeSearch {
  /** Base URL as the search configuration would hold it (the client appends /search). */
  readonly url: string
  readonly requests: FakeSearchRequest[]
  readonly maxConcurrent: number
  setHandler(h: FakeSearchHandler): void
  close(): Promise<void>
}

export async function startFakeSearch(handler?: FakeSearchHandler): Promise<FakeSearch> {
  let current: FakeSearchHandler = handler ?? (() => ({ results: [] }))
  const requests: FakeSearchRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let inFlight = 0
  let maxConcurrent = 0

  const send = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: any = null
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      body = null
    }
    const path = (req.url ?? '/').split('?')[0]!
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v
    requests.push({ path, headers, body })
    if (req.method !== 'POST' || path !== '/search') return send(res, 404, { detail: `no route ${req.method} ${path}` })

    inFlight++
    maxConcurrent = Math.max(maxConcurrent, inFlight)
    try {
      const answer = await current(String(body?.query ?? ''), body)
      if (answer.delayMs)
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            timers.delete(t)
            resolve()
          }, answer.delayMs)
          timers.add(t)
        })
      if ('status' in answer) return send(res, answer.status, { detail: { error: answer.message ?? `fake error ${answer.status}` } })
      send(res, 200, { query: body?.query ?? '', results: answer.results.map((r) => ({ ...r, score: 0.9 })), response_time: 0.01 })
    } catch (e) {
      send(res, 500, { detail: { error: `fake handler threw: ${(e as Error).message}` } })
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
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxConcurrent() {
      return maxConcurrent
    },
    setHandler(h) {
      current = h
    },
    async close() {
      for (const t of timers) clearTimeout(t)
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
