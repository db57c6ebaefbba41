/** A loopback stand-in for the ingest API, for the SDK's unit tests. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export type Answer = { status: number; body: string } | 'hang' | 'reset'

export interface FakeIngest {
  url: string
  /** Bodies of every POST /v1/traces, decompressed. */
  exported: string[]
  requests: string[]
  whoami: Answer
  sdkConfig: Answer
  close(): Promise<void>
}

export async function fakeIngest(init: { whoami?: Answer; sdkConfig?: Answer } = {}): Promise<FakeIngest> {
  const hanging = new Set<ServerResponse>()
  const state: FakeIngest = {
    url: '',
    exported: [],
    requests: [],
    whoami: init.whoami ?? { status: 200, body: JSON.stringify({ workspace: { id: 'ws-uuid', slug: 'agents' } }) },
    sdkConfig: init.sdkConfig ?? { status: 200, body: '{"capture_text":true}' },
    close: async () => {
      for (const r of hanging) r.destroy()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
  const answer = (res: ServerResponse, a: Answer) => {
    if (a === 'hang') return void hanging.add(res)
    if (a === 'reset') return void res.socket?.destroy()
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body)
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      state.requests.push(`${req.method} ${req.url} key=${req.headers['x-svc-api-key'] ?? ''}`)
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const raw = Buffer.concat(chunks)
        state.exported.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      }
      if (req.url === '/v1/auth/whoami') return answer(res, state.whoami)
      if (req.url?.endsWith('/sdk-config')) return answer(res, state.sdkConfig)
      res.writeHead(404).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return state
}
