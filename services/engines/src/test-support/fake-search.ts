/**
 * A loopback Tavily-compatible search server for tests: POST /search with a
 * per-test handler from query to results (or an error status); every request is
 * recorded and concurrent requests are counted. Never reaches the internet.
 */
import type { SearchResult } from '../crosscheck/search.js'
import { startLoopback, type LoopbackRequest } from './loopback.js'
import type { TestJson } from '@svc/shared/test-support/json'

export type FakeSearchRequest = LoopbackRequest

export type FakeSearchAnswer = ({ results: SearchResult[] } | { status: number; message?: string }) & { delayMs?: number }
export type FakeSearchHandler = (query: string, body: TestJson) => FakeSearchAnswer | Promise<FakeSearchAnswer>

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
  const server = await startLoopback(async ({ path, body }, req, { send, sleep }) => {
    if (req.method !== 'POST' || path !== '/search') return send(404, { detail: `no route ${req.method} ${path}` })
    try {
      const answer = await current(String(body?.query ?? ''), body)
      if (answer.delayMs) await sleep(answer.delayMs)
      if ('status' in answer) return send(answer.status, { detail: { error: answer.message ?? `fake error ${answer.status}` } })
      send(200, { query: body?.query ?? '', results: answer.results.map((r) => ({ ...r, score: 0.9 })), response_time: 0.01 })
    } catch (e) {
      send(500, { detail: { error: `fake handler threw: ${(e as Error).message}` } })
    }
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: server.requests,
    get maxConcurrent() {
      return server.maxConcurrent
    },
    setHandler(h) {
      current = h
    },
    close: () => server.close(),
  }
}
