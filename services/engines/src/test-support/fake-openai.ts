/**
 * A loopback OpenAI-compatible chat-completions server for tests: each test sets a
 * handler that sees the request body and says what to answer, and every request
 * is recorded (path, headers, body) so a test can check what the engine sent: the
 * model, the key, the messages, the response_format. Never reaches the internet.
 */
import { startLoopback, type LoopbackRequest } from './loopback.js'
import type { TestJson } from '@svc/shared/test-support/json'

export { refusedPort } from './loopback.js'

export type FakeRequest = LoopbackRequest

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

export type FakeHandler = (body: TestJson, req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>

export interface FakeOpenAi {
  /** Base URL including /v1, as an api_base would be stored. */
  readonly url: string
  readonly port: number
  readonly requests: FakeRequest[]
  /** Highest number of requests being handled at the same time. */
  readonly maxConcurrent: number
  setHandler(h: FakeHandler): void
  /** The messages of the i-th request joined as text, for "the prompt mentions X" checks. */
  promptText(i?: number): string
  close(): Promise<void>
}

/** Rough token counts so tests can check accounting without a tokenizer. */
const approxTokens = (s: string) => Math.max(1, Math.ceil(s.length / 4))

/** The JSON schema (if any) the request asked the answer to follow. */
export function requestedSchema(body: TestJson): unknown {
  return body?.response_format?.json_schema?.schema ?? null
}

export async function startFakeOpenAi(handler?: FakeHandler): Promise<FakeOpenAi> {
  let current: FakeHandler = handler ?? (() => ({ status: 500, message: 'no handler set' }))
  let seq = 0
  const server = await startLoopback(async (record, req, { send, sleep }) => {
    const { path, body } = record
    // Embeddings: a deterministic vector per input (8 dims from its characters), so tests can check the provider path.
    if (req.method === 'POST' && (path === '/v1/embeddings' || path === '/embeddings')) {
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')]
      const vec = (s: string) => Array.from({ length: 8 }, (_, d) => [...s].reduce((a, ch, i) => a + ((ch.charCodeAt(0) * (i + 1) * (d + 3)) % 17), 0) / Math.max(1, s.length))
      return send(200, {
        object: 'list',
        model: body?.model ?? 'unknown',
        data: inputs.map((s, index) => ({ object: 'embedding', index, embedding: vec(s) })),
        usage: { prompt_tokens: inputs.reduce((a, s) => a + approxTokens(s), 0), total_tokens: inputs.reduce((a, s) => a + approxTokens(s), 0) },
      })
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions'))
      return send(404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } })
    try {
      const answer = await current(body, record)
      if (answer.delayMs) await sleep(answer.delayMs)
      if ('drop' in answer) {
        req.socket.destroy()
        return
      }
      if ('status' in answer)
        return send(answer.status, {
          error: { message: answer.message ?? `fake error ${answer.status}`, type: answer.status === 401 ? 'invalid_api_key' : 'server_error', code: null },
        })
      const content = 'object' in answer ? JSON.stringify(answer.object) : answer.content
      const promptText = JSON.stringify(body?.messages ?? '')
      const usage = answer.usage ?? { prompt_tokens: approxTokens(promptText), completion_tokens: approxTokens(content) }
      send(200, {
        id: `chatcmpl-fake-${++seq}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'unknown',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      })
    } catch (e) {
      send(500, { error: { message: `fake handler threw: ${(e as Error).message}`, type: 'server_error' } })
    }
  })
  const { requests } = server
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    port: server.port,
    requests,
    get maxConcurrent() {
      return server.maxConcurrent
    },
    setHandler(h) {
      current = h
    },
    promptText(i = requests.length - 1) {
      const msgs = requests[i]?.body?.messages
      if (!Array.isArray(msgs)) return ''
      return msgs.map((m: TestJson) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n')
    },
    close: () => server.close(),
  }
}
