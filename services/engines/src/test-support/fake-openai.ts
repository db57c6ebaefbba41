/**
 * A loopback OpenAI-compatible chat-completions server for tests: each test sets a
 * handler that sees the request body and says what to answer, and every request
 * is recorded (path, headers, body) so a test can check what the engine sent: the
 * model, the key, the messages, the response_format. Never reaches the internet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface FakeRequest {
  method: string
  path: string
  headers: Record<string, string | undefined>
  /** Parsed JSON body (null when it did not parse). */
  body: any
}

/**
 * What to answer:
 * - `{ object }`: a completion whose content is that value as JSON;
 * - `{ content }`: a completion with exactly this text (e.g. malformed JSON);
 * - `{ status, message? }`: an OpenAI-style error response with that HTTP status;
 * - `{ drop: true }`: the connection is destroyed without a response.
 * `delayMs` holds the answer back; `usage` overrides the token counts.
 */
export type FakeAnswer = (
  | { object: unknown }
  | { content: string }
  | { status: number; message?: string }
  | { drop: true }
) & { delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } }

export type FakeHandler = (body: any, req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>

export interface FakeOpenAi {
  /** Base URL including /v1, as an api_base would be stored. */
  readonly url: string
  readonly port: number
  readonly requests: FakeRequest[]
  /** Highest number of chat requests being handled at the same time. */
  readonly maxConcurrent: number
  setHandler(h: FakeHandler): void
  /** The messages of the i-th request joined as text, for "the prompt mentions X" checks. */
  promptText(i?: number): string
  close(): Promise<void>
}

/** Rough token counts so tests can check accounting without a tokenizer. */
const approxTokens = (s: string) => Math.max(1, Math.ceil(s.length / 4))

/** The JSON schema (if any) the request asked the answer to follow. */
export function requestedSchema(body: any): unknown {
  return body?.response_format?.json_schema?.schema ?? null
}

export async function startFakeOpenAi(handler?: FakeHandler): Promise<FakeOpenAi> {
  let current: FakeHandler = handler ?? (() => ({ status: 500, message: 'no handler set' }))
  const requests: FakeRequest[] = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let inFlight = 0
  let maxConcurrent = 0
  let seq = 0

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t)
        resolve()
      }, ms)
      timers.add(t)
    })

  const send = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: any = null
    try {
      body = JSON.parse(raw)
    } catch {
      body = null
    }
    const path = (req.url ?? '/').split('?')[0]!
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v
    const record: FakeRequest = { method: req.method ?? '', path, headers, body }
    requests.push(record)

    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions'))
      return send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } })

    inFlight++
    maxConcurrent = Math.max(maxConcurrent, inFlight)
    try {
      const answer = await current(body, record)
      if (answer.delayMs) await sleep(answer.delayMs)
      if ('drop' in answer) {
        req.socket.destroy()
        return
      }
      if ('status' in answer)
        return send(res, answer.status, {
          error: { message: answer.message ?? `fake error ${answer.status}`, type: answer.status === 401 ? 'invalid_api_key' : 'server_error', code: null },
        })
      const content = 'object' in answer ? JSON.stringify(answer.object) : answer.content
      const promptText = JSON.stringify(body?.messages ?? '')
      const usage = answer.usage ?? { prompt_tokens: approxTokens(promptText), completion_tokens: approxTokens(content) }
      send(res, 200, {
        id: `chatcmpl-fake-${++seq}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      })
    } catch (e) {
      send(res, 500, { error: { message: `fake handler threw: ${(e as Error).message}`, type: 'server_error' } })
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
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get maxConcurrent() {
      return maxConcurrent
    },
    setHandler(h) {
      current = h
    },
    promptText(i = requests.length - 1) {
      const msgs = requests[i]?.body?.messages
      if (!Array.isArray(msgs)) return ''
      return msgs.map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n')
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
