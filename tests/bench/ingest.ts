/**
 * pnpm bench:ingest [--mode embedded|kafka|both] [--encoding json|protobuf|grpc[,...]]
 *                   [--seconds 20] [--concurrency 16]
 *                   [--traces-per-request 10] [--spans-per-trace 20] [--fresh-rate N]
 *                   [--ingest-processes N]   (Kafka mode: N standalone ingest processes)
 *                   [--engines all|none|name,...[;...]] [--text] [--data-root DIR]
 *
 * Runs the all-in-one service as a child process (as `pnpm start` would) and sends
 * realistic agent traces as OTLP/JSON over HTTP, OTLP protobuf over HTTP
 * (SVC_INGEST_PROTOBUF=true) or OTLP/gRPC (SVC_INGEST_GRPC_PORT), one run per
 * encoding, each on a fresh service; with several encodings their figures are
 * printed side by side at the end. Prints accepted and end-to-end
 * spans/s, accept latency percentiles, accept→visible freshness at half the
 * measured rate, the service's peak RSS, and — measured in the same run — the bare
 * ceilings: raw produce of the same Avro records and raw ClickHouse insert of the
 * same rows, with our throughput as a ratio of each.
 *
 * The load generator shares the machine's cores with the service; the numbers are
 * for the whole machine, as an operator running both would see them.
 *
 * `--engines` is the service's SVC_ENGINES (default all); several, separated by `;`,
 * run one after another for a side by side (`--engines 'all;none'`). `--text` sends
 * each trace with a support conversation (messages, a tool result, a retrieved
 * passage; tests/support/traces.ts) and turns capture_text on, so the engines have an
 * answer to judge with the sentence model; without it the traces carry no text and
 * the engines have little to do. Each run ends with the engines' state as ingestion
 * health reports it (jobs analysed and skipped, sample rate, backlog).
 *
 * The service's data directory is made under `--data-root` (default the repository),
 * and the cost of creating a file there is printed first (service-env.ts
 * fileCreateMicros): on a disk that deleted many files in the last minutes it slows
 * every ClickHouse part the service writes.
 */
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import * as grpc from '@grpc/grpc-js'
import { decodeTraceRequest } from '@svc/ingest/otlp/decode'
import { decodeProtobufRequest } from '@svc/ingest/otlp/protobuf'
import { tracesProtobuf } from '@svc/ingest/test-support/protobuf'
import { exited, freePort, REPO_ROOT, spawnAllInOne, spawnService, waitForHealth } from '../support/process.js'
import { agentTrace, otlpEnvelope } from '../support/traces.js'
import { busCeiling, clickhouseCeiling, sampleRecords } from './ceilings.js'
import { cpuMs, fmt, peakRssMb, progress, summarize, table } from './stats.js'
import { benchServiceEnv, fileCreateMicros } from './service-env.js'

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    encoding: { type: 'string', default: 'json' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '16' },
    'traces-per-request': { type: 'string', default: '10' },
    'spans-per-trace': { type: 'string', default: '20' },
    // Paced rate of the freshness phase; default half the measured end-to-end rate.
    // Kafka mode: this many standalone ingest processes (pnpm start:ingest) take the
    // load instead of the all-in-one's ingest, as behind a load balancer.
    'ingest-processes': { type: 'string', default: '0' },
    'fresh-rate': { type: 'string' },
    engines: { type: 'string', default: 'all' },
    text: { type: 'boolean', default: false },
    'data-root': { type: 'string' },
  },
})
const SECONDS = Number(args.seconds)
const CONCURRENCY = Number(args.concurrency)
const TRACES_PER_REQUEST = Number(args['traces-per-request'])
const SPANS_PER_TRACE = Number(args['spans-per-trace'])
const KEY = 'dr_benchKey00000000000000000000000000000001'
/** Spans/s the bodies generated up front can sustain: phase 1 (as fast as accepted), and phase 2 without --fresh-rate (half the end-to-end rate). */
const PHASE1_BUDGET = 100_000
const PHASE2_BUDGET = 50_000
const ENCODINGS = ['json', 'protobuf', 'grpc'] as const
type Encoding = (typeof ENCODINGS)[number]

/** `json` is also what the ceilings decode; `wire` is what is sent (the same spans as protobuf for protobuf and gRPC). */
interface Body { json: Buffer; wire: Buffer; traceIds: string[]; spans: number }

function makeBodies(count: number, encoding: Encoding): Body[] {
  const out: Body[] = []
  for (let i = 0; i < count; i++) {
    const traces = Array.from({ length: TRACES_PER_REQUEST }, () => agentTrace({ spans: SPANS_PER_TRACE, startMs: Date.now() - 60_000, text: args.text }))
    const envelope = otlpEnvelope(traces.flatMap((t) => t.spans))
    const json = Buffer.from(JSON.stringify(envelope))
    out.push({ json, wire: encoding === 'json' ? json : Buffer.from(tracesProtobuf(envelope)), traceIds: traces.map((t) => t.traceId), spans: traces.length * SPANS_PER_TRACE })
  }
  return out
}

/**
 * The wire format's own cost, apart from everything else the service does: decoding
 * the sent bodies to span records on one thread of this process, ms per 1,000 spans
 * (the best of three passes over up to 200 bodies).
 */
function decodeMsPerKSpans(bodies: Body[], encoding: Encoding): number {
  const sample = bodies.slice(0, 200)
  const ctx = { principal: { org_id: 'o', workspace_id: 'w', project_id: 'p' }, receivedAtMs: Date.now() }
  const spans = sample.reduce((a, b) => a + b.spans, 0)
  let best = Infinity
  for (let pass = 0; pass < 3; pass++) {
    const t = performance.now()
    for (const b of sample) decodeTraceRequest(encoding === 'json' ? JSON.parse(b.wire.toString('utf8')) : decodeProtobufRequest('traces', b.wire), ctx)
    best = Math.min(best, performance.now() - t)
  }
  return (best / spans) * 1000
}

interface RunFigures { acceptRate: number; e2eRate: number; refused: number; lat: ReturnType<typeof summarize>; fresh: ReturnType<typeof summarize>; rss: number; bytesPerSpan: number; cpuPerKSpans: number; decodePerKSpans: number; engines: string }

type EngineHealth = { analysed_last_hour?: number; skipped_last_hour?: number; sample_rate?: number | null; backlog_seconds?: number | null }

/** The engines' state as ingestion health reports it: per engine analysed / skipped jobs, sample rate, backlog. */
async function engineState(apiUrl: string): Promise<Array<[string, string]>> {
  const res = await fetch(`${apiUrl}/v1/observ/orgs/bench/workspaces/bench/health/ingestion`, { headers: { 'x-svc-api-key': KEY } })
  const engines = ((await res.json()) as { engines: Record<string, EngineHealth> }).engines
  return Object.entries(engines)
    .filter(([, e]) => e.analysed_last_hour !== undefined)
    .map(([name, e]) => [name, `${fmt(e.analysed_last_hour!)} analysed, ${fmt(e.skipped_last_hour!)} skipped, sample rate ${e.sample_rate ?? '-'}, backlog ${e.backlog_seconds ?? '-'} s`])
}

async function runMode(mode: 'embedded' | 'kafka', encoding: Encoding, engines: string): Promise<RunFigures> {
  process.stdout.write(`\n== ${mode} mode, ${encoding === 'json' ? 'OTLP/JSON over HTTP' : encoding === 'protobuf' ? 'OTLP protobuf over HTTP' : 'OTLP/gRPC'}, SVC_ENGINES=${engines}${args.text ? ', traces with text' : ''} ==\n`)
  const dataRoot = resolve(args['data-root'] ?? REPO_ROOT)
  process.stdout.write(`  file create in ${dataRoot}: ${fmt(fileCreateMicros(dataRoot))} µs (ext4 near recent deletions: ~300-1,000; clean: ~25)\n`)
  const { env, stopServices, ingestPort, apiPort } = await benchServiceEnv(mode, KEY, dataRoot)
  env.SVC_ENGINES = engines
  if (encoding === 'protobuf') env.SVC_INGEST_PROTOBUF = 'true'
  const INGEST_PROCESSES = mode === 'kafka' ? Number(args['ingest-processes']) : 0
  const ingestPorts = INGEST_PROCESSES > 0 ? await Promise.all(Array.from({ length: INGEST_PROCESSES }, () => freePort())) : [ingestPort]
  const ingestUrls = ingestPorts.map((p) => `http://127.0.0.1:${p}/v1/traces`)
  // gRPC: a port per ingest process (the all-in-one's, or each standalone one's).
  const grpcPorts = encoding === 'grpc' ? await Promise.all(ingestPorts.map(() => freePort())) : []
  if (encoding === 'grpc' && INGEST_PROCESSES === 0) env.SVC_INGEST_GRPC_PORT = String(grpcPorts[0])
  let posted = 0
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const detail = (id: string) => fetch(`${apiUrl}/v1/observ/orgs/bench/workspaces/bench/traces/${id}`, { headers: { 'x-svc-api-key': KEY } })
  const visibleSpans = async (id: string) => {
    const res = await detail(id)
    if (res.status !== 200) return 0
    return ((await res.json()) as { spans: unknown[] }).spans.length
  }
  const PROBE_POLL_MS = 50
  const PROBE_GAP_MS = 200
  // SVC_TRACE_QUIET_MS (5 s) plus time to emit the completions.
  const SETTLE_MS = 10_000
  // node:http with keep-alive and pre-encoded bodies: the load generator shares the
  // two cores with the service, and fetch costs it about twice the CPU per request.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY + 4 })
  const contentType = encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json'
  const sendHttp = (b: Body) =>
    new Promise<{ ok: boolean }>((resolve, reject) => {
      const req = request(ingestUrls[posted++ % ingestUrls.length]!, { method: 'POST', agent, headers: { 'content-type': contentType, 'content-length': b.wire.length, 'x-svc-api-key': KEY } }, (res) => {
        res.resume()
        res.on('end', () => resolve({ ok: res.statusCode === 202 }))
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(b.wire)
    })
  // gRPC: one channel per ingest process, the calls multiplexed on it (as the stock exporters do).
  const grpcClients = grpcPorts.map((p) => new grpc.Client(`127.0.0.1:${p}`, grpc.credentials.createInsecure()))
  const metadata = new grpc.Metadata()
  metadata.set('x-svc-api-key', KEY)
  const raw = (x: Buffer) => x
  const sendGrpc = (b: Body) =>
    new Promise<{ ok: boolean }>((resolve) =>
      grpcClients[posted++ % grpcClients.length]!.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', raw, raw, b.wire, metadata, (err) => resolve({ ok: !err })),
    )
  // A kept-alive socket the server closed while idle (its keep-alive timeout) fails the
  // next request on it before anything was sent: that request goes again, once.
  const post = (b: Body) =>
    encoding === 'grpc' ? sendGrpc(b) : sendHttp(b).catch((err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? sendHttp(b) : Promise.reject(err)))

  progress('generating request bodies')
  // Phase 1 has bodies for PHASE1_BUDGET spans/s (it warns when it runs out early); phase 2 its own, for its pace.
  const spansPerRequest = TRACES_PER_REQUEST * SPANS_PER_TRACE
  const bodies = makeBodies(Math.ceil((PHASE1_BUDGET * SECONDS) / spansPerRequest), encoding)
  const phase2Bodies = makeBodies(Math.ceil((Number(args['fresh-rate'] ?? PHASE2_BUDGET) * Math.min(10, SECONDS)) / spansPerRequest), encoding)
  progress(`starting the all-in-one service (${mode})`)
  const child = spawnAllInOne(env)
  const ingestChildren =
    INGEST_PROCESSES > 0 ? ingestPorts.map((p, i) => spawnService('services/ingest/src/main.ts', { ...env, SVC_INGEST_PORT: String(p), ...(encoding === 'grpc' ? { SVC_INGEST_GRPC_PORT: String(grpcPorts[i]) } : {}) })) : []
  try {
    await waitForHealth(`${apiUrl}/health`, child)
    await waitForHealth(`http://127.0.0.1:${ingestPort}/health`, child)
    for (const [i, c] of ingestChildren.entries()) await waitForHealth(`http://127.0.0.1:${ingestPorts[i]}/health`, c)
    if (ingestChildren.length) progress(`${ingestChildren.length} standalone ingest process(es) take the load`)
    // The engines judge text only where the workspace captures it.
    if (args.text) {
      const patch = await fetch(`${apiUrl}/v1/observ/orgs/bench/workspaces/bench/settings/capture-text`, { method: 'PATCH', headers: { 'x-svc-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ capture_text: true }) })
      if (patch.status !== 200) throw new Error(`capture-text: ${patch.status}`)
    }
    await post(bodies.pop()!) // warm-up: JIT, first insert, first parts

    // Phase 1: as fast as the service accepts.
    progress(`phase 1: ${CONCURRENCY} concurrent clients for ${SECONDS}s, ${TRACES_PER_REQUEST * SPANS_PER_TRACE} spans per request`)
    const latencies: number[] = []
    let accepted = 0
    let rejected = 0
    let next = 0
    const sentOrder: Body[] = []
    // The service's CPU so far (every process of it), and per 1,000 phase-1 spans since phase 1 began.
    const serviceCpu = () => [...ingestChildren, child].reduce((a, c) => a + cpuMs(c.pid!), 0)
    const serviceCpu0 = serviceCpu()
    const cpuPerKSpansSinceStart = () => ((serviceCpu() - serviceCpu0) / Math.max(1, accepted)) * 1000
    const t0 = performance.now()
    const deadline = t0 + SECONDS * 1000
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && next < bodies.length) {
        const b = bodies[next++]!
        const start = performance.now()
        const res = await post(b)
        latencies.push(performance.now() - start)
        if (res.ok) { accepted += b.spans; sentOrder.push(b) } else rejected++
      }
    }))
    const tAccepted = performance.now()
    if (tAccepted < deadline - 500) progress(`warning: phase 1 ran out of request bodies after ${fmt((tAccepted - t0) / 1000, 1)} s (budget ${fmt(PHASE1_BUDGET)} spans/s)`)
    // The service's own CPU per span while accepting: the client's cost (a gRPC client costs more than node:http) is not in it.
    const cpuPerKSpans = cpuPerKSpansSinceStart()
    progress(`accepted ${fmt(accepted)} spans; waiting until the newest traces are listed`)
    const lastTraces = sentOrder.slice(-5).flatMap((b) => b.traceIds)
    for (const id of lastTraces) while ((await visibleSpans(id)) < SPANS_PER_TRACE) await new Promise((r) => setTimeout(r, 20))
    const tVisible = performance.now()
    // Everything the service spent on phase 1's spans until the last of them was listed: the figure that
    // bounds end to end on a saturated machine, and steadier run to run than the rates (merges still due are not in it).
    const cpuToListedPerKSpans = cpuPerKSpansSinceStart()
    const acceptRate = accepted / ((tAccepted - t0) / 1000)
    const e2eRate = accepted / ((tVisible - t0) / 1000)
    const lat = summarize(latencies)

    // Phase 2: freshness at half the end-to-end rate, in a steady state: first let the
    // burst that phase 1 leaves behind (every trace going quiet at once, so engine jobs
    // and completion rows for all of them) drain.
    progress('letting phase 1 traces complete before phase 2')
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const halfRate = args['fresh-rate'] ? Number(args['fresh-rate']) : e2eRate / 2
    const phase2Seconds = Math.min(10, SECONDS)
    progress(`phase 2: paced at ${fmt(halfRate)} spans/s for ${phase2Seconds}s, probing accept→visible`)
    const fresh: number[] = []
    const probes: Promise<void>[] = []
    // One poller, one request in flight, oldest probe first: the probing must not
    // itself load the store whose freshness it measures.
    const pendingProbes: Array<{ id: string; acceptedAt: number }> = []
    let sending = true
    const poller = (async () => {
      while (sending || pendingProbes.length) {
        const head = pendingProbes[0]
        if (head && (await visibleSpans(head.id)) >= SPANS_PER_TRACE) {
          fresh.push(performance.now() - head.acceptedAt)
          pendingProbes.shift()
        } else await new Promise((r) => setTimeout(r, PROBE_POLL_MS))
      }
    })()
    const interval = (TRACES_PER_REQUEST * SPANS_PER_TRACE) / halfRate * 1000
    // A check costs a trace lookup (tens of ms under load); probes arrive at most every
    // PROBE_GAP_MS so the one poller always keeps up. Otherwise probes queue behind it
    // and the queue, not the service, sets the measured freshness.
    const probeEvery = Math.max(1, Math.ceil(PROBE_GAP_MS / interval))
    const p2Start = performance.now()
    for (let i = 0; performance.now() - p2Start < phase2Seconds * 1000 && i < phase2Bodies.length; i++) {
      const b = phase2Bodies[i]!
      const due = p2Start + i * interval
      const wait = due - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      probes.push(post(b).then((r) => {
        if (r.ok && i % probeEvery === 0) pendingProbes.push({ id: b.traceIds[0]!, acceptedAt: performance.now() })
      }))
    }
    await Promise.all(probes)
    sending = false
    await poller
    const fr = summarize(fresh)
    const rss = peakRssMb(child.pid!) + ingestChildren.reduce((a, c) => a + peakRssMb(c.pid!), 0)
    const engineRows = await engineState(apiUrl)

    for (const c of grpcClients) c.close()
    for (const c of [...ingestChildren, child]) c.kill('SIGTERM')
    await Promise.all([...ingestChildren, child].map(exited))

    progress('measuring the bare ceilings with the same records and rows')
    const sample = sampleRecords(bodies.slice(0, Math.min(bodies.length, 1000)).map((b) => b.json.toString()))
    const busMax = await busCeiling(mode, env, sample, CONCURRENCY)
    const chMax = await clickhouseCeiling(sample)

    const bytesPerSpan = bodies.reduce((a, b) => a + b.wire.length, 0) / bodies.reduce((a, b) => a + b.spans, 0)
    const decodePerKSpans = decodeMsPerKSpans(bodies, encoding)
    table([
      ['spans/s accepted (202 / OK)', `${fmt(acceptRate)}   (${fmt(accepted)} spans, ${rejected} refused responses)`],
      ['request body', `${fmt(bytesPerSpan)} bytes per span (${encoding === 'json' ? 'JSON' : 'protobuf'}, uncompressed)`],
      ['decode alone (one thread)', `${fmt(decodePerKSpans, 1)} ms per 1,000 spans (${encoding === 'json' ? 'JSON.parse' : 'protobufjs decode + toObject'} + the OTLP decoder)`],
      ['service CPU while accepting', `${fmt(cpuPerKSpans, 1)} ms per 1,000 spans accepted (all its work in phase 1: ingest, assembly, inserts)`],
      ['service CPU, accept to listed', `${fmt(cpuToListedPerKSpans, 1)} ms per 1,000 spans (from phase 1's start until its last traces were listed)`],
      ['spans/s end to end (listed)', fmt(e2eRate)],
      ['accept latency p50/p95/p99', `${fmt(lat.p50, 1)} / ${fmt(lat.p95, 1)} / ${fmt(lat.p99, 1)} ms per ${TRACES_PER_REQUEST * SPANS_PER_TRACE}-span request`],
      [args['fresh-rate'] ? 'accept→visible p50/p95 @ --fresh-rate' : 'accept→visible p50/p95 @ half rate', `${fmt(fr.p50)} / ${fmt(fr.p95)} ms (${fr.n} probes at ${fmt(halfRate)} spans/s)`],
      ['service peak RSS', `${fmt(rss)} MiB`],
      [`ceiling: raw ${mode === 'kafka' ? 'kafkajs' : 'embedded-log'} produce`, `${fmt(busMax)} spans/s → ours accepted ${fmt((acceptRate / busMax) * 100, 1)}%, end to end ${fmt((e2eRate / busMax) * 100, 1)}%`],
      ['ceiling: raw ClickHouse insert (chdb)', `${fmt(chMax)} rows/s → ours end to end ${fmt((e2eRate / chMax) * 100, 1)}%`],
    ])
    if (engineRows.length) {
      process.stdout.write(`\nengines at the end of phase 2 (ingestion health; ${fmt(accepted / SPANS_PER_TRACE)} traces accepted in phase 1)\n`)
      table(engineRows)
    }
    const reliability = engineRows.find(([name]) => name === 'content_reliability')?.[1] ?? 'no engine'
    return { acceptRate, e2eRate, refused: rejected, lat, fresh: fr, rss, bytesPerSpan, cpuPerKSpans, decodePerKSpans, engines: reliability }
  } finally {
    for (const c of [...ingestChildren, child]) if (c.exitCode === null) { c.kill('SIGKILL'); await exited(c) }
    rmSync(env.SVC_DATA_DIR!, { recursive: true, force: true })
    await stopServices()
  }
}

const modes = args.mode === 'both' ? (['embedded', 'kafka'] as const) : ([args.mode as 'embedded' | 'kafka'] as const)
const encodings = args.encoding.split(',').map((e) => e.trim()) as Encoding[]
for (const e of encodings) if (!ENCODINGS.includes(e)) throw new Error(`--encoding ${e}: one of ${ENCODINGS.join(', ')} (or a comma list)`)
const engineSets = args.engines.split(';').map((e) => e.trim())
const runs: Array<{ label: string; f: RunFigures }> = []
for (const m of modes) for (const e of encodings) for (const en of engineSets) runs.push({ label: `${m} ${e}${engineSets.length > 1 ? ` ${en}` : ''}`, f: await runMode(m, e, en) })
if (runs.length > 1) {
  process.stdout.write('\n== side by side ==\n')
  const rows: Array<[string, (f: RunFigures) => string]> = [
    ['spans/s accepted', (f) => fmt(f.acceptRate)],
    ['spans/s end to end', (f) => fmt(f.e2eRate)],
    ['accept p50/p95/p99 ms', (f) => `${fmt(f.lat.p50, 1)}/${fmt(f.lat.p95, 1)}/${fmt(f.lat.p99, 1)}`],
    ['accept→visible p50/p95 ms', (f) => `${fmt(f.fresh.p50)}/${fmt(f.fresh.p95)}`],
    ['decode alone ms / 1k spans', (f) => fmt(f.decodePerKSpans, 1)],
    ['service CPU ms / 1k spans', (f) => fmt(f.cpuPerKSpans, 1)],
    ['peak RSS MiB', (f) => fmt(f.rss)],
    ['bytes per span sent', (f) => fmt(f.bytesPerSpan)],
    ['refused responses', (f) => String(f.refused)],
    ['content_reliability', (f) => f.engines],
  ]
  const cells = [['', ...runs.map((r) => r.label)], ...rows.map(([name, get]) => [name, ...runs.map((r) => get(r.f))])]
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)))
  for (const row of cells) process.stdout.write(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ')}\n`)
}
process.exit(0)
