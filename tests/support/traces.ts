import { randomBytes } from 'node:crypto'

export const hex = (bytes: number) => randomBytes(bytes).toString('hex')

const pick = <T>(xs: readonly T[]) => xs[randomBytes(1)[0]! % xs.length]!
const num = (lo: number, hi: number) => lo + (randomBytes(4).readUInt32BE(0) % (hi - lo + 1))

/**
 * The text of a support conversation (`agentTrace({ text: true })`), its figures
 * drawn per trace, so an engine reading it embeds new sentences rather than hitting
 * its cache: what the tool returned, the policy passage retrieved, and the answer,
 * whose claims the tool result and the passage back (one is a paraphrase).
 */
function supportConversation() {
  const order = `A${num(10_000, 99_999)}`
  const [month, monthName] = pick([['03', 'March'], ['04', 'April'], ['05', 'May'], ['06', 'June']] as const)
  const day = num(1, 28)
  const amount = `${num(10, 400)}.${String(num(0, 99)).padStart(2, '0')}`
  const days = num(3, 10)
  const carrier = pick(['UPS', 'DHL', 'FedEx', 'La Poste'])
  const city = pick(['Leipzig', 'Rotterdam', 'Lyon', 'Porto'])
  const question = `Where is my order ${order}, and when will I get my refund for the damaged item?`
  const toolResult = JSON.stringify({ order_id: order, status: 'shipped', shipped_on: `2026-${month}-${String(day).padStart(2, '0')}`, carrier, refund: { approved: true, amount_usd: Number(amount) } })
  const passage = `Approved refunds are paid back to the original payment method within ${days} business days. All orders ship from our warehouse in ${city}.`
  const answer = `Your order ${order} shipped on ${monthName} ${day} with ${carrier}. A refund of $${amount} was approved for the damaged item. You will see the money on your original payment method within ${days} business days. Orders are sent from our ${city} warehouse.`
  const messages = (...m: Array<[string, string]>) => JSON.stringify(m.map(([role, content]) => ({ role, parts: [{ type: 'text', content }] })))
  return {
    order,
    toolResult,
    passage,
    input: messages(['system', `You are the support assistant. Policy: ${passage}`], ['user', question], ['tool', toolResult]),
    output: messages(['assistant', answer]),
  }
}

/**
 * A realistic agent trace as OTLP/JSON: an agent root span, a retriever, a tool
 * call and LLM calls carrying gen_ai usage, the way OpenTelemetry instrumentations
 * of agent frameworks emit them. With `text`, the LLM calls carry their messages, the
 * tool call its arguments and result and the retriever its passage (GenAI
 * semantic conventions), so the reconstruction engines have an answer to judge.
 */
export function agentTrace(opts: { spans?: number; startMs?: number; service?: string; costPerLlm?: number; text?: boolean } = {}) {
  const spans = Math.max(2, opts.spans ?? 20)
  const convo = opts.text ? supportConversation() : null
  const traceId = hex(16)
  const rootId = hex(8)
  const t0 = BigInt(opts.startMs ?? Date.now() - 5000) * 1_000_000n
  const out: Array<Record<string, unknown>> = []
  let inputTokens = 0
  let outputTokens = 0
  let cost = 0
  out.push({
    traceId, spanId: rootId, name: 'invoke_agent support-bot', kind: 1,
    startTimeUnixNano: t0.toString(), endTimeUnixNano: (t0 + BigInt(spans) * 50_000_000n + 10_000_000n).toString(),
    status: { code: 1 },
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
      { key: 'gen_ai.agent.name', value: { stringValue: 'support-bot' } },
      { key: 'svc.end_user', value: { stringValue: 'user-42' } },
    ],
  })
  for (let i = 1; i < spans; i++) {
    const start = t0 + BigInt(i) * 50_000_000n
    const end = start + 40_000_000n
    const base = { traceId, spanId: hex(8), parentSpanId: rootId, startTimeUnixNano: start.toString(), endTimeUnixNano: end.toString(), status: { code: 0 } }
    const kind = i % 4
    if (kind === 1) {
      const inTok = 800 + i
      const outTok = 120 + i
      const c = opts.costPerLlm ?? 0.0025
      inputTokens += inTok
      outputTokens += outTok
      cost += c
      out.push({ ...base, name: 'chat gpt-4o-mini', kind: 3, attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.provider.name', value: { stringValue: 'openai' } },
        { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
        { key: 'gen_ai.usage.input_tokens', value: { intValue: String(inTok) } },
        { key: 'gen_ai.usage.output_tokens', value: { intValue: outTok } },
        { key: 'gen_ai.request.temperature', value: { doubleValue: 0.2 } },
        { key: 'svc.cost_usd', value: { doubleValue: c } },
        ...(convo ? [{ key: 'gen_ai.input.messages', value: { stringValue: convo.input } }, { key: 'gen_ai.output.messages', value: { stringValue: convo.output } }] : []),
      ] })
    } else if (kind === 2) {
      out.push({ ...base, name: 'retrieve docs', kind: 1, attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'retrieval' } },
        { key: 'gen_ai.retrieval.documents', value: { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'id', value: { stringValue: 'kb/refunds.md' } }, { key: 'score', value: { doubleValue: 0.83 } }, ...(convo ? [{ key: 'content', value: { stringValue: convo.passage } }] : [])] } }] } } },
      ] })
    } else if (kind === 3) {
      out.push({ ...base, name: 'execute_tool lookup_order', kind: 1, attributes: [
        { key: 'gen_ai.tool.name', value: { stringValue: 'lookup_order' } },
        { key: 'tool.ok', value: { boolValue: true } },
        ...(convo ? [{ key: 'gen_ai.tool.call.arguments', value: { stringValue: JSON.stringify({ order_id: convo.order }) } }, { key: 'gen_ai.tool.call.result', value: { stringValue: convo.toolResult } }] : []),
      ] })
    } else {
      out.push({ ...base, name: 'HTTP GET', kind: 3, attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }, { key: 'http.response.status_code', value: { intValue: 200 } }] })
    }
  }
  return { traceId, spans: out, inputTokens, outputTokens, cost, spanCount: spans }
}

export function otlpEnvelope(spans: Array<Record<string, unknown>>, service = 'support-bot') {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [{ scope: { name: 'agent-instrumentation', version: '1.0.0' }, spans }],
      },
    ],
  }
}
