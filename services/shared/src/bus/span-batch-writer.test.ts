import { describe, expect, it } from 'vitest'
import type { SpanRecord } from './records.js'
import { spanBatchV2 } from './span-batch.js'
import { encodeSpanBatch } from './span-batch-writer.js'

// A seeded generator, so a failure names the case that failed.
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

// Lengths around avsc's switch from its own loop to utf8Write (64 bytes) and the one-byte zigzag length (63 characters).
const TEXTS = ['', 'a', 'x'.repeat(62), 'x'.repeat(63), 'x'.repeat(64), 'x'.repeat(65), 'é'.repeat(31), 'é'.repeat(32), 'é'.repeat(33), '漢'.repeat(21), '漢'.repeat(22), 'Grüße 😀', 'lone \ud800 x', '\udc00', 'end \ud83d', `${'y'.repeat(70)}\ud800`, 'long '.repeat(3000), '"q" \\ \n\u0000']
const LONGS: Array<number | bigint> = [0, 1, -1, 63, 64, -64, -65, 2 ** 31, 2 ** 52 - 1, -(2 ** 52), 1_700_000_000_123_456_789n, 2n ** 63n - 1n, -(2n ** 63n), 9_007_199_254_740_993n]

function randomSpans(next: () => number, n: number): SpanRecord[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
  const map = () => Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [pick(TEXTS).slice(0, 80) + String(Math.floor(next() * 9)), pick(TEXTS)]))
  const shared = { org_id: pick(TEXTS), workspace_id: pick(TEXTS), project_id: pick(TEXTS), trace_id: pick(TEXTS), received_at_ms: pick([0, 1_700_000_000_123, 2 ** 53 - 1, -5]) }
  return Array.from({ length: n }, () => ({
    ...shared,
    span_id: pick(TEXTS), parent_span_id: pick(TEXTS), name: pick(TEXTS), kind: pick(TEXTS),
    start_time_unix_nano: pick(LONGS), end_time_unix_nano: pick(LONGS),
    status_code: pick(TEXTS), status_message: pick(TEXTS), service_name: pick(TEXTS), scope_name: pick(TEXTS),
    resource_attributes: map(), attributes: map(), json_attribute_keys: Array.from({ length: Math.floor(next() * 3) }, () => pick(TEXTS)),
    events_json: pick(TEXTS), links_json: pick(TEXTS),
  }))
}

/** What avsc writes for the same spans. */
function avscBytes(spans: SpanRecord[]): Buffer {
  const { org_id, workspace_id, project_id, trace_id, received_at_ms } = spans[0]!
  const batched = spans.map(({ org_id: _o, workspace_id: _w, project_id: _p, trace_id: _t, received_at_ms: _r, ...span }) => span)
  return Buffer.from(spanBatchV2.encode({ org_id, workspace_id, project_id, trace_id, received_at_ms, spans: batched }))
}

describe('encodeSpanBatch', () => {
  it("writes avsc's bytes, over 3,000 random batches", () => {
    const next = rng(17)
    for (let k = 0; k < 3000; k++) {
      const spans = randomSpans(next, 1 + Math.floor(next() * 6))
      const ours = encodeSpanBatch(spans)
      expect(ours.equals(avscBytes(spans)), `batch ${k}`).toBe(true)
    }
  })

  it('leaves nothing of a record that fails half way (a time that is not an integer)', () => {
    const next = rng(29)
    const [good, bad] = [randomSpans(next, 2), randomSpans(next, 2)]
    expect(() => encodeSpanBatch([bad[0]!, { ...bad[1]!, end_time_unix_nano: 1.5 }])).toThrow()
    expect(encodeSpanBatch(good).equals(avscBytes(good))).toBe(true)
  })

  it('hands out records that stay as written while later ones are written (across slabs too)', () => {
    const next = rng(23)
    const batches = Array.from({ length: 300 }, () => randomSpans(next, 3))
    const written = batches.map((b) => encodeSpanBatch(b))
    for (const [i, b] of batches.entries()) expect(written[i]!.equals(avscBytes(b)), `record ${i}`).toBe(true)
  })
})
