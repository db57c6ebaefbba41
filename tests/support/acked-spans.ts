/**
 * What the crash tests share: clients sending agent traces the way exporters do
 * while processes are killed under them, and the check that every span answered 202
 * is readable and nothing is counted twice.
 */
import { expect } from 'vitest'
import { mapBounded } from '@svc/shared/concurrency'
import type { TestJson } from '@svc/shared/test-support/json'
import { eventually } from './stack.js'
import { agentTrace, otlpEnvelope } from './traces.js'

export interface SentTrace {
  traceId: string
  spans: Array<Record<string, TestJson>>
  /** Spans of requests answered 202. */
  ackedSpanIds: Set<string>
}

export interface TraceLoad {
  sent: SentTrace[]
  /** Stops the clients and resolves once each has finished its request. */
  stop(): Promise<void>
  /** Spans sent (each once, however often retried) and spans answered 202. */
  figures(): { traces: number; spansSent: number; spansAccepted: number }
}

/**
 * `workers` clients, each sending 12-span agent traces one after another until
 * stopped: half the traces arrive in two requests, and every fifth batch is sent
 * twice, as an exporter does after a timeout. `post` sends one OTLP/JSON body and
 * answers its status; it throws when no ingest could be reached. Then a client either
 * gives up (`untilUnreachable`: the one process it talks to died) or, as a client
 * behind a load balancer, sends the batch again after `retryMs` until it is accepted
 * or the load stops.
 */
export function sendTraces(opts: {
  workers: number
  post: (body: unknown) => Promise<number>
  mode: 'untilUnreachable' | 'retry'
  retryMs?: number
  /** Pause between a client's traces (0: as fast as answers come). */
  pauseMs?: number
}): TraceLoad {
  const sent: SentTrace[] = []
  let stopped = false
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
  /** True once the batch was answered 202 (or answered at all, in untilUnreachable mode); false to give up. */
  const deliver = async (batch: Array<Record<string, TestJson>>, entry: SentTrace): Promise<boolean> => {
    for (;;) {
      try {
        const status = await opts.post(otlpEnvelope(batch))
        if (status === 202) {
          for (const sp of batch) entry.ackedSpanIds.add(sp.spanId as string)
          return true
        }
        if (opts.mode === 'untilUnreachable') return true
      } catch {
        if (opts.mode === 'untilUnreachable') return false
      }
      if (stopped) return false
      await pause(opts.retryMs ?? 200)
    }
  }
  const worker = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const t = agentTrace({ spans: 12 })
      const entry: SentTrace = { traceId: t.traceId, spans: t.spans as Array<Record<string, TestJson>>, ackedSpanIds: new Set() }
      sent.push(entry)
      const batches = i % 2 === 0 ? [t.spans] : [t.spans.slice(0, 6), t.spans.slice(6)]
      for (const batch of batches) {
        for (let attempt = 0; attempt < (i % 5 === n % 5 ? 2 : 1); attempt++) {
          if (!(await deliver(batch as Array<Record<string, TestJson>>, entry))) return
        }
      }
      if (opts.pauseMs) await pause(opts.pauseMs)
    }
  }
  const workers = Array.from({ length: opts.workers }, (_, n) => worker(n))
  return {
    sent,
    stop: async () => {
      stopped = true
      await Promise.all(workers)
    },
    figures: () => ({
      traces: sent.length,
      spansSent: sent.reduce((a, t) => a + t.spans.length, 0),
      spansAccepted: sent.reduce((a, t) => a + t.ackedSpanIds.size, 0),
    }),
  }
}

type StoredSpan = { span_id: string; attributes: Record<string, unknown> }

/**
 * Every acknowledged span is in its trace's detail (waiting up to `timeoutMs` for the
 * pipeline to catch up), no span is stored twice, and the trace list's span count,
 * tokens and cost equal the sums over the trace's distinct stored spans. `get` reads
 * the API as JSON. Answers how many acknowledged spans were found, and how many spans
 * those traces hold (acknowledged or not).
 */
export async function expectAckedSpansStored(
  get: (path: string) => Promise<TestJson>,
  tracesPath: string,
  sent: SentTrace[],
  timeoutMs = 60_000,
): Promise<{ found: number; stored: number }> {
  const acked = sent.filter((t) => t.ackedSpanIds.size > 0)
  await mapBounded(acked, 8, (t) =>
    eventually(async () => {
      const d = await get(`${tracesPath}/${t.traceId}`)
      const ids = new Set((d.spans ?? []).map((sp: TestJson) => sp.span_id))
      return [...t.ackedSpanIds].every((id) => ids.has(id)) ? true : undefined
    }, timeoutMs, 200),
  )

  // The list against fresh details: spans sent but never acknowledged may still be
  // landing (their process died after producing them), so a difference is looked at
  // again for a while; a span counted twice stays counted and fails below.
  const figures = { found: 0, stored: 0 }
  const compare = async (assert: boolean): Promise<boolean> => {
    const rows = new Map<string, TestJson>()
    let cursor: string | null = null
    do {
      const page: TestJson = await get(`${tracesPath}?include_empty=true&page_size=500${cursor ? `&cursor=${cursor}` : ''}`)
      for (const r of page.data) rows.set(r.trace_id, r)
      cursor = page.next_cursor
    } while (cursor)
    const details = await mapBounded(acked, 8, async (t) => (await get(`${tracesPath}/${t.traceId}`)).spans as StoredSpan[])
    figures.stored = details.reduce((a, d) => a + d.length, 0)
    figures.found = acked.reduce((a, t, i) => a + details[i]!.filter((x) => t.ackedSpanIds.has(x.span_id)).length, 0)
    return acked.every((t, i) => {
      const row = rows.get(t.traceId)
      const stored = details[i]!
      const sum = (key: string) => stored.reduce((acc, x) => acc + Number(x.attributes[key] ?? 0), 0)
      if (assert) {
        expect(row, t.traceId).toBeDefined()
        expect(new Set(stored.map((x) => x.span_id)).size, t.traceId).toBe(stored.length)
        expect(row.span_count, t.traceId).toBe(stored.length)
        expect(row.span_count, t.traceId).toBeLessThanOrEqual(t.spans.length)
        expect(row.input_tokens, t.traceId).toBe(sum('gen_ai.usage.input_tokens'))
        expect(row.output_tokens, t.traceId).toBe(sum('gen_ai.usage.output_tokens'))
        expect(row.cost_usd_total, t.traceId).toBeCloseTo(sum('svc.cost_usd'), 9)
      }
      return (
        row !== undefined &&
        new Set(stored.map((x) => x.span_id)).size === stored.length &&
        row.span_count === stored.length &&
        row.input_tokens === sum('gen_ai.usage.input_tokens') &&
        row.output_tokens === sum('gen_ai.usage.output_tokens') &&
        Math.abs(row.cost_usd_total - sum('svc.cost_usd')) < 1e-9
      )
    })
  }
  const deadline = Date.now() + 20_000
  let same = await compare(false)
  while (!same && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000))
    same = await compare(false)
  }
  if (!same) await compare(true)
  return figures
}
