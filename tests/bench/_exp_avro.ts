import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { decodeTraceRequest } from '@svc/ingest/otlp/decode'
import { spanV1 } from '@svc/shared/bus/records'
const principal = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: '22222222-2222-5222-8222-222222222222', project_id: 'bench' }
const spans: any[] = []
for (let i = 0; i < 500; i++) { const ts = Array.from({ length: 10 }, () => agentTrace({ spans: 20 })); const d = decodeTraceRequest(JSON.parse(JSON.stringify(otlpEnvelope(ts.flatMap((t) => t.spans)))), { principal, receivedAtMs: Date.now() }); if (d.ok) spans.push(...d.spans) }
const bufs = spans.map((s) => spanV1.encode(s))
const sizes = bufs.map((b) => b.length).sort((a, b) => a - b)
console.log('n', spans.length, 'size p50', sizes[sizes.length >> 1], 'max', sizes[sizes.length - 1], '>1024:', sizes.filter((x) => x > 1024).length)
for (let k = 0; k < 3; k++) {
  let t0 = performance.now(); for (const s of spans) spanV1.encode(s); const enc = performance.now() - t0
  t0 = performance.now(); for (const b of bufs) spanV1.decode(b); const dec = performance.now() - t0
  console.log('encode µs/rec', (enc * 1000 / spans.length).toFixed(2), 'decode µs/rec', (dec * 1000 / spans.length).toFixed(2))
}
