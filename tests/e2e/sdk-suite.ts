import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { context, propagation, trace } from '@opentelemetry/api'
import { agentSpan, init, retrievalSpan, setEndUser, toolSpan, withProject, type SvcSdk } from '@svc/sdk'
import { eventually, startTestStack, TEST_KEY, type BusMode } from '../support/stack.js'

type Stack = Awaited<ReturnType<typeof startTestStack>>
type ConfigFault = 'none' | 'http-500' | 'hang'

/**
 * A loopback proxy in front of ingest: records every exported request body (what
 * left the SDK's process) and can break only the sdk-config lookup.
 */
async function ingestProxy(target: string) {
  const exported: string[] = []
  const hanging = new Set<IncomingMessage>()
  let fault: ConfigFault = 'none'
  const t = new URL(target)
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      if (req.url?.endsWith('/sdk-config') && fault !== 'none') {
        if (fault === 'hang') return void hanging.add(req)
        return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"internal","message":"injected"}}')
      }
      if (req.method === 'POST') exported.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'))
      const up = request({ host: t.hostname, port: t.port, path: req.url, method: req.method, headers: { ...req.headers, host: t.host } }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers)
        upRes.pipe(res)
      })
      up.on('error', () => res.writeHead(502).end())
      up.end(raw)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exported,
    setFault: (f: ConfigFault) => void (fault = f),
    close: async () => {
      for (const r of hanging) r.socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

const TEXT_KEYS = [
  'input.value', 'output.value', 'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.prompt.0.content', 'gen_ai.completion.0.content',
  'llm.input_messages.0.message.content', 'llm.output_messages.0.message.content', 'traceloop.entity.input', 'traceloop.entity.output',
  'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result',
]

/** One agent run through the SDK's helpers, with text in every convention; returns its trace id. */
async function agentRun(sdk: SvcSdk, secret: string): Promise<string> {
  let traceId = ''
  await withProject('sdk-project', () =>
    agentSpan('support-bot', async (agent) => {
      traceId = agent.spanContext().traceId
      setEndUser('user-77')
      agent.setAttributes({ 'input.value': `${secret} question`, 'output.value': `${secret} answer`, 'traceloop.entity.input': secret, 'traceloop.entity.output': secret })
      await retrievalSpan('kb', async (s) => s.setAttribute('retrieval.documents.0.document.id', 'kb/refunds.md'))
      await toolSpan('lookup_order', async (s) => s.setAttributes({ 'gen_ai.tool.call.arguments': `{"q":"${secret}"}`, 'gen_ai.tool.call.result': secret }))
      const llm = sdk.tracer.startSpan('chat gpt-4o', {
        attributes: {
          'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 30,
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: secret }] }]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: secret }] }]),
          'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': secret, 'gen_ai.completion.0.content': secret,
          'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': secret, 'llm.output_messages.0.message.content': secret,
        },
      })
      llm.addEvent('gen_ai.choice', { index: 0, message: secret })
      llm.end()
    }),
  )
  await sdk.forceFlush()
  return traceId
}

/** The SDK against a running stack: capture on, capture off, and fail-closed when sdk-config fails. */
export function sdkSuite(mode: BusMode) {
  describe(`SDK (${mode} bus)`, () => {
    let s: Stack
    let proxy: Awaited<ReturnType<typeof ingestProxy>>
    const WS = '/v1/observ/orgs/acme/workspaces/agents'
    const api = (path: string, init: RequestInit = {}) =>
      fetch(s.apiUrl + path, { ...init, headers: { 'content-type': 'application/json', 'x-svc-api-key': TEST_KEY, ...(init.headers ?? {}) } })
    const setCapture = async (on: boolean) => {
      expect((await api(`${WS}/settings/capture-text`, { method: 'PATCH', body: JSON.stringify({ capture_text: on }) })).status).toBe(200)
      // The setting reaches ingest through the control topic: wait until sdk-config says so.
      await eventually(async () => {
        const r = await fetch(`${s.ingestUrl}/v1/workspaces/agents/sdk-config`, { headers: { 'x-svc-api-key': TEST_KEY } })
        return ((await r.json()) as { capture_text: boolean }).capture_text === on ? true : undefined
      })
    }
    /** The stored spans of a trace, once all four are in: attributes through the read API, events from ClickHouse. */
    const stored = async (traceId: string) => {
      const spans = await eventually(async () => {
        const r = await api(`${WS}/traces/${traceId}`)
        if (r.status !== 200) return undefined
        const body = (await r.json()) as { spans: Array<{ name: string; attributes: Record<string, unknown> }> }
        return body.spans.length === 4 ? body.spans : undefined
      }, 15_000)
      const rows = await s.store.query<{ events: string }>('SELECT events FROM spans_v1 WHERE trace_id = {t:String}', { t: traceId })
      return { spans, events: rows.map((r) => r.events).join('\n') }
    }
    let sdk: SvcSdk | undefined
    const start = async (opts: { configTimeoutMs?: number } = {}) => {
      proxy.exported.length = 0
      sdk = await init({ apiKey: TEST_KEY, endpoint: proxy.url, serviceName: `sdk-e2e-${mode}`, configRefreshMs: 0, ...opts })
      return sdk
    }
    const stop = async () => {
      await sdk?.shutdown()
      sdk = undefined
      trace.disable()
      context.disable()
      propagation.disable()
    }
    const byName = (spans: Array<{ name: string; attributes: Record<string, unknown> }>, name: string) => spans.find((x) => x.name === name)!.attributes

    beforeAll(async () => {
      s = await startTestStack(mode)
      proxy = await ingestProxy(s.ingestUrl)
    })
    afterAll(async () => {
      await stop()
      await proxy?.close()
      await s?.close()
    })

    it('capture off at the server (the default): the SDK sends no text, the marked spans and their tags arrive', async () => {
      const secret = `SECRET-${mode}-off-${Date.now()}`
      try {
        const sdk = await start()
        expect(sdk.captureText).toBe(false)
        expect(sdk.config.error).toBeUndefined()
        const traceId = await agentRun(sdk, secret)
        expect(proxy.exported.length).toBeGreaterThan(0)
        expect(proxy.exported.join('\n')).not.toContain(secret)
        const { spans, events } = await stored(traceId)
        expect(JSON.stringify(spans) + events).not.toContain(secret)
        for (const sp of spans) for (const k of TEXT_KEYS) expect(sp.attributes[k], `${sp.name} ${k}`).toBeUndefined()
        expect(byName(spans, 'invoke_agent support-bot')).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'openinference.span.kind': 'AGENT', 'svc.end_user': 'user-77', 'svc.project_id': 'sdk-project' })
        expect(byName(spans, 'execute_tool lookup_order')).toMatchObject({ 'gen_ai.tool.name': 'lookup_order', 'openinference.span.kind': 'TOOL' })
        expect(byName(spans, 'retrieval kb')).toMatchObject({ 'gen_ai.operation.name': 'retrieval', 'openinference.span.kind': 'RETRIEVER' })
        expect(byName(spans, 'chat gpt-4o')).toMatchObject({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 120, 'gen_ai.prompt.0.role': 'user', 'llm.input_messages.0.message.role': 'user' })
      } finally {
        await stop()
      }
    })

    it('capture on at the server: prompt and completion text of every convention arrives', async () => {
      await setCapture(true)
      const secret = `SECRET-${mode}-on-${Date.now()}`
      try {
        const sdk = await start()
        expect(sdk.captureText).toBe(true)
        const traceId = await agentRun(sdk, secret)
        expect(proxy.exported.join('\n')).toContain(secret)
        const { spans, events } = await stored(traceId)
        expect(byName(spans, 'invoke_agent support-bot')).toMatchObject({ 'input.value': `${secret} question`, 'output.value': `${secret} answer`, 'traceloop.entity.input': secret })
        expect(byName(spans, 'execute_tool lookup_order')['gen_ai.tool.call.result']).toBe(secret)
        const llm = byName(spans, 'chat gpt-4o')
        expect(llm).toMatchObject({ 'gen_ai.prompt.0.content': secret, 'gen_ai.completion.0.content': secret, 'llm.input_messages.0.message.content': secret, 'llm.output_messages.0.message.content': secret })
        expect(JSON.stringify(llm['gen_ai.input.messages'])).toContain(secret)
        expect(events).toContain(secret)
      } finally {
        await stop()
      }
    })

    for (const fault of ['http-500', 'hang'] as const) {
      it(`fail-closed: capture on at the server but sdk-config ${fault === 'hang' ? 'never answers' : 'fails (500)'} → no text leaves the process`, async () => {
        await setCapture(true)
        const secret = `SECRET-${mode}-${fault}-${Date.now()}`
        proxy.setFault(fault)
        try {
          const t0 = Date.now()
          const sdk = await start({ configTimeoutMs: 1000 })
          expect(Date.now() - t0).toBeLessThan(5000)
          expect(sdk.captureText).toBe(false)
          expect(sdk.config.error).toBeTruthy()
          const traceId = await agentRun(sdk, secret)
          // What left the process: the exporter's requests, as the proxy received them.
          expect(proxy.exported.length).toBeGreaterThan(0)
          const sent = proxy.exported.join('\n')
          expect(sent).toContain('gen_ai.request.model')
          expect(sent).not.toContain(secret)
          for (const k of TEXT_KEYS) expect(sent, k).not.toContain(`"${k}"`)
          // What the service stored, although its workspace captures text.
          const { spans, events } = await stored(traceId)
          expect(JSON.stringify(spans) + events).not.toContain(secret)
          for (const sp of spans) for (const k of TEXT_KEYS) expect(sp.attributes[k], `${sp.name} ${k}`).toBeUndefined()
          expect(byName(spans, 'chat gpt-4o')).toMatchObject({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.output_tokens': 30 })
          expect(byName(spans, 'invoke_agent support-bot')['svc.end_user']).toBe('user-77')
        } finally {
          proxy.setFault('none')
          await stop()
        }
      })
    }
  })
}
