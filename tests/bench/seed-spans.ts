/**
 * Seeds spans_v1 directly with rows shaped like the assembler's (SpanRow), for
 * query benchmarks that should not pay for ingest. Traces of 20 spans: an agent
 * root, LLM calls with model, tokens and cost, retriever and tool spans, spread
 * uniformly over the last `days` days across a few projects. One trace in ten
 * carries no LLM content at all, so include_empty has something to include.
 * Deterministic for a given workspace id, so runs compare like for like.
 */
import { createHash } from 'node:crypto'
import type { SpanRow } from '@svc/assembler/assemble'
import type { Store } from '@svc/shared/store/types'

const SPANS_PER_TRACE = 20
const BATCH_ROWS = 100_000
const MODELS: Array<{ model: string; system: string; inPerTok: number; outPerTok: number }> = [
  { model: 'gpt-4o-mini', system: 'openai', inPerTok: 0.15e-6, outPerTok: 0.6e-6 },
  { model: 'gpt-4o', system: 'openai', inPerTok: 2.5e-6, outPerTok: 10e-6 },
  { model: 'claude-3-5-sonnet', system: 'anthropic', inPerTok: 3e-6, outPerTok: 15e-6 },
]
const TOOLS = ['lookup_order', 'search_web', 'send_email', 'get_weather']
const RETENTION_HOURS = 720

/** mulberry32: small, fast, seedable. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export async function seedSpans(
  store: Store,
  opts: { workspaceId: string; spans: number; orgId?: string; projects?: string[]; days?: number },
): Promise<void> {
  const orgId = opts.orgId ?? '00000000-0000-4000-8000-00000000b0b0'
  const projects = opts.projects ?? ['proj-1', 'proj-2', 'proj-3', 'proj-4', 'proj-5']
  const days = opts.days ?? 1
  const traces = Math.ceil(opts.spans / SPANS_PER_TRACE)
  const seed = createHash('sha256').update(opts.workspaceId).digest().readUInt32LE(0)
  const rand = rng(seed)
  const hex = (chars: number) => {
    let s = ''
    while (s.length < chars) s += Math.floor(rand() * 0x100000000).toString(16).padStart(8, '0')
    return s.slice(0, chars)
  }
  const nowMs = Date.now()
  const windowMs = days * 86_400_000
  let batch: SpanRow[] = []
  let written = 0
  const t0 = performance.now()

  const flush = async () => {
    if (batch.length === 0) return
    await store.insert('spans_v1', batch, { tag: 'bench.seed' })
    written += batch.length
    const s = (performance.now() - t0) / 1000
    process.stderr.write(`  · seeded ${written.toLocaleString('en-US')} / ${opts.spans.toLocaleString('en-US')} spans (${Math.round(written / s).toLocaleString('en-US')}/s)\n`)
    batch = []
  }

  for (let t = 0; t < traces && written + batch.length < opts.spans; t++) {
    const traceId = hex(32)
    const rootId = hex(16)
    const project = projects[Math.floor(rand() * projects.length)]!
    const withLlm = rand() >= 0.1
    // Leave a minute of headroom so every trace has ended by now.
    const startMs = nowMs - 60_000 - Math.floor(rand() * windowMs)
    const startNs = BigInt(startMs) * 1_000_000n + BigInt(Math.floor(rand() * 1_000_000))
    const count = Math.min(SPANS_PER_TRACE, opts.spans - written - batch.length)
    const stepNs = 150_000_000n + BigInt(Math.floor(rand() * 100_000_000))
    const traceEndNs = startNs + stepNs * BigInt(count) + 20_000_000n
    const user = `user-${Math.floor(rand() * 500)}`

    const row = (p: {
      spanId: string
      parent: string
      name: string
      kind: string
      start: bigint
      end: bigint
      attributes: Record<string, string>
      jsonKeys?: string[]
      model?: string
      input?: number
      output?: number
      cost?: number
      isLlm?: boolean
    }): SpanRow => ({
      org_id: orgId,
      workspace_id: opts.workspaceId,
      project_id: project,
      trace_id: traceId,
      span_id: p.spanId,
      parent_span_id: p.parent,
      name: p.name,
      kind: p.kind,
      start_time: p.start.toString(),
      end_time: p.end.toString(),
      duration_ns: (p.end - p.start).toString(),
      status_code: rand() < 0.02 ? 'ERROR' : 'OK',
      status_message: '',
      service_name: 'support-bot',
      scope_name: 'opentelemetry.instrumentation.openai',
      model: p.model ?? '',
      provider: p.model ? 'openai' : '',
      span_type: p.isLlm ? 'llm' : p.kind === 'SERVER' ? 'agent' : 'tool',
      input_tokens: p.input ?? 0,
      output_tokens: p.output ?? 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      cost_usd: p.cost ?? 0,
      cost_source: p.isLlm ? 'reported' : '',
      pricing_version: '',
      is_llm: p.isLlm ? 1 : 0,
      resource_attributes: { 'service.name': 'support-bot', 'deployment.environment': 'bench' },
      attributes: p.attributes,
      json_attribute_keys: p.jsonKeys ?? [],
      events: '[]',
      links: '[]',
      // Spans reach ingest shortly after they end.
      received_at: String(Number((p.end + 50_000_000n) / 1_000_000n)),
      expires_at: Number(p.start / 1_000_000_000n) + RETENTION_HOURS * 3600,
      first_delivery: 1,
      batch_id: '0',
    })

    batch.push(
      row({
        spanId: rootId,
        parent: '',
        name: withLlm ? 'invoke_agent support-bot' : 'handle_request',
        kind: 'SERVER',
        start: startNs,
        end: traceEndNs,
        attributes: withLlm
          ? { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support-bot', 'svc.end_user': user, 'svc.project_id': project }
          : { 'http.route': '/healthz', 'svc.project_id': project },
        isLlm: withLlm,
      }),
    )
    for (let i = 1; i < count; i++) {
      const start = startNs + stepNs * BigInt(i)
      const end = start + stepNs - 10_000_000n
      const spanId = hex(16)
      const slot = i % 4
      if (!withLlm) {
        batch.push(row({ spanId, parent: rootId, name: 'db.query', kind: 'CLIENT', start, end, attributes: { 'db.system': 'postgresql', 'db.operation': 'SELECT' } }))
      } else if (slot === 1 || slot === 3) {
        const m = MODELS[Math.floor(rand() * MODELS.length)]!
        const input = 400 + Math.floor(rand() * 2000)
        const output = 50 + Math.floor(rand() * 500)
        const cost = Math.round((input * m.inPerTok + output * m.outPerTok) * 1e8) / 1e8
        batch.push(
          row({
            spanId,
            parent: rootId,
            name: `chat ${m.model}`,
            kind: 'CLIENT',
            start,
            end,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.system': m.system,
              'gen_ai.request.model': m.model,
              'gen_ai.response.model': m.model,
              'gen_ai.usage.input_tokens': String(input),
              'gen_ai.usage.output_tokens': String(output),
              'gen_ai.request.temperature': '0.2',
              'svc.cost_usd': String(cost),
              'gen_ai.prompt': `User ${user} asks about order ${hex(8)}: where is my package and when will it arrive?`,
              'gen_ai.completion': 'Your order shipped yesterday and should arrive within two business days.',
            },
            jsonKeys: ['gen_ai.request.temperature', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'svc.cost_usd'],
            model: m.model,
            input,
            output,
            cost,
            isLlm: true,
          }),
        )
      } else if (slot === 2) {
        batch.push(
          row({
            spanId,
            parent: rootId,
            name: 'retrieve docs',
            kind: 'INTERNAL',
            start,
            end,
            attributes: {
              'gen_ai.operation.name': 'retrieval',
              'gen_ai.retrieval.documents': JSON.stringify([{ id: 'kb/refunds.md', score: 0.83 }, { id: 'kb/shipping.md', score: 0.71 }]),
            },
            jsonKeys: ['gen_ai.retrieval.documents'],
            isLlm: true,
          }),
        )
      } else {
        const tool = TOOLS[Math.floor(rand() * TOOLS.length)]!
        batch.push(
          row({
            spanId,
            parent: rootId,
            name: `execute_tool ${tool}`,
            kind: 'INTERNAL',
            start,
            end,
            attributes: { 'gen_ai.tool.name': tool, 'tool.ok': 'true' },
            jsonKeys: ['tool.ok'],
          }),
        )
      }
    }
    if (batch.length >= BATCH_ROWS) await flush()
  }
  await flush()
  // A steady state: every seeded trace already had its engine jobs emitted, so a
  // service started on this data has no completion backlog competing with the reads.
  await store.command(
    `INSERT INTO trace_completions_v1 (workspace_id, trace_id, last_received_at, span_count, completed_at)
SELECT workspace_id, trace_id, max(last_received_at), toUInt32(sum(span_count)), now64(3)
FROM traces_v1 WHERE workspace_id = {ws:UUID} GROUP BY workspace_id, trace_id`,
    { ws: opts.workspaceId },
    { tag: 'bench.seed' },
  )
}
