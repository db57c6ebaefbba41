/**
 * pnpm bench:coding-agent [--mode embedded|kafka] [--seconds 15] [--concurrency 8]
 *                         [--sessions-per-request 10] [--groups 10] [--max-rate 40000]
 *
 * Runs the all-in-one service as a child process (as `pnpm start` would) and sends
 * Claude Code-style telemetry as OTLP/JSON over HTTP (node:http, keep-alive, bodies
 * encoded up front): metrics exports (token.usage by type, cost.usage,
 * lines_of_code.count, commit.count, active_time.total, session.count; cumulative
 * temporality, values growing at every export, so the consumer's delta conversion
 * runs against stored previous points) to /v1/otlp/coding-agent/v1/metrics, and
 * logs exports (user_prompt, api_request, tool_result: Edit with a file_path, Read,
 * Bash) to .../logs. Each client is the exporter of its own sessions (one request
 * at a time, a rejected request is retried, as an exporter does), so a series'
 * points reach the bus in order.
 *
 * Prints data points + events accepted per second, accept latency per request,
 * and end to end: the time until the consumer has landed every accepted record.
 * Landed is read from the usage endpoint (GET .../coding-agent/usage), whose
 * totals reach the figures the accepted exports add only once the last point of
 * every series and every event are in ClickHouse (every series grows at every
 * export; polled once the service's insert counters say the rows were inserted,
 * so the heavy query does not load the run); after the service stops, exact row
 * counts (FINAL) from a store opened on its data dir confirm it. Ceilings measured
 * in the same run: raw produce of the same Avro records (the embedded log with
 * fsync, or kafkajs acks=all) and a raw ClickHouse insert of the same rows.
 *
 * The load generator shares the machine's cores with the service.
 */
import { rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import { loadConfig } from '@svc/shared/config'
import { createLogger } from '@svc/shared/log'
import { createStore } from '@svc/shared/store/index'
import { exited, spawnAllInOne, waitForHealth } from '../support/process.js'
import { busCeiling } from './ceilings.js'
import { addTotals, caClickhouseCeiling, caSample, makeLoad, TOTAL_KEYS, zeroTotals, type CaBody, type Totals } from './coding-agent-load.js'
import { fmt, peakRssMb, progress, summarize, table } from './stats.js'
import { benchServiceEnv } from './service-env.js'

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'embedded' },
    seconds: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '8' },
    // Sessions whose exports one request carries (a gateway or collector batching CLIs' exports; 1 = each CLI posting its own).
    'sessions-per-request': { type: 'string', default: '10' },
    // Session groups per client: sessions = concurrency x groups x sessions-per-request.
    groups: { type: 'string', default: '10' },
    // Records/s the pre-encoded bodies are budgeted for; the run warns when they ran out.
    'max-rate': { type: 'string', default: '40000' },
  },
})
const MODE = args.mode as 'embedded' | 'kafka'
if (MODE !== 'embedded' && MODE !== 'kafka') throw new Error('--mode is embedded or kafka')
const SECONDS = Number(args.seconds)
const CONCURRENCY = Number(args.concurrency)
const SPR = Number(args['sessions-per-request'])
const GROUPS = Number(args.groups)
const MAX_RATE = Number(args['max-rate'])
const KEY = 'dr_benchKey00000000000000000000000000000001'
const LANDED_TIMEOUT_MS = 10 * 60_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function run() {
  process.stdout.write(`\n== coding-agent, ${MODE} mode ==\n`)
  const { env, stopServices, ingestPort, apiPort } = await benchServiceEnv(MODE, KEY)
  const ingestBase = `http://127.0.0.1:${ingestPort}`
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY + 4 })
  const send = (b: CaBody) =>
    new Promise<{ status: number }>((resolve, reject) => {
      const req = request(`${ingestBase}/v1/otlp/coding-agent/v1/${b.kind}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': b.json.length, 'x-svc-api-key': KEY } }, (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }))
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(b.json)
    })
  // A kept-alive socket the server closed while idle fails the next request before anything was sent: send it again, once.
  const post = (b: CaBody) => send(b).catch((err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? send(b) : Promise.reject(err)))

  const itemsPerRound = GROUPS * SPR * 17
  const rounds = Math.max(2, Math.ceil((MAX_RATE * SECONDS) / (CONCURRENCY * itemsPerRound)))
  progress(`generating request bodies: ${CONCURRENCY} clients x ${GROUPS} groups x ${SPR} sessions, ${rounds} export rounds (budget ${fmt(MAX_RATE)} records/s)`)
  // One more client's sessions for the warm-up, so the measured clients' exports stay in order.
  const plan = makeLoad({ clients: CONCURRENCY + 1, groups: GROUPS, sessionsPerRequest: SPR, rounds })
  const warm = plan.clients.pop()!.slice(0, 2)
  const sessions = CONCURRENCY * GROUPS * SPR
  const bytes = plan.clients.flat().reduce((a, b) => a + b.json.length, 0)
  progress(`${fmt(sessions)} sessions of ${fmt(Math.ceil(sessions / 2))} users; ${fmt(bytes / 2 ** 20)} MiB of bodies`)

  progress(`starting the all-in-one service (${MODE})`)
  const child = spawnAllInOne(env)
  const expected = zeroTotals()
  let acceptedPoints = 0
  let acceptedEvents = 0
  try {
    await waitForHealth(`${apiUrl}/health`, child)
    await waitForHealth(`${ingestBase}/health`, child)
    for (const b of warm) {
      // warm-up: JIT, first inserts, first parts
      const res = await post(b)
      if (res.status !== 202) throw new Error(`warm-up ${b.kind} answered ${res.status}`)
      addTotals(expected, b.adds)
      if (b.kind === 'metrics') acceptedPoints += b.items
      else acceptedEvents += b.items
    }
    const warmPoints = acceptedPoints
    const warmEvents = acceptedEvents

    progress(`load: ${CONCURRENCY} concurrent exporters for ${SECONDS}s, ${SPR * 11} points per metrics request, ${SPR * 6} events per logs request`)
    const latencies: number[] = []
    let rejected = 0
    let ranOut = 0
    const t0 = performance.now()
    const deadline = t0 + SECONDS * 1000
    await Promise.all(plan.clients.map(async (bodies) => {
      let i = 0
      while (performance.now() < deadline) {
        if (i >= bodies.length) { ranOut++; return }
        const b = bodies[i]!
        const start = performance.now()
        const res = await post(b)
        latencies.push(performance.now() - start)
        if (res.status !== 202) {
          // Not durable: the exporter sends the same export again (the next point of these series must not overtake it).
          rejected++
          await sleep(50)
          continue
        }
        i++
        addTotals(expected, b.adds)
        if (b.kind === 'metrics') acceptedPoints += b.items
        else acceptedEvents += b.items
      }
    }))
    const tAccepted = performance.now()
    const loadPoints = acceptedPoints - warmPoints
    const loadEvents = acceptedEvents - warmEvents
    const loadRecords = loadPoints + loadEvents
    if (ranOut) progress(`warning: ${ranOut} client(s) ran out of bodies before ${SECONDS}s; raise --max-rate`)
    progress(`accepted ${fmt(loadPoints)} points + ${fmt(loadEvents)} events; waiting until the consumer has landed them all`)

    // End to end. Gate: the service's insert counters (GET /metrics) show at least every
    // accepted record inserted into the two tables, and every insert begun has finished.
    // Then the usage endpoint: landed when its totals equal what the accepted exports add.
    const scrape = async () => {
      const text = await (await fetch(`${ingestBase}/metrics`)).text()
      const val = (name: string, table: string) => Number(new RegExp(`^${name}\\{table="${table}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
      const tables = ['coding_agent_metrics_v1', 'coding_agent_events_v1']
      return {
        points: val('svc_clickhouse_insert_rows_sum', tables[0]!),
        events: val('svc_clickhouse_insert_rows_sum', tables[1]!),
        settled: tables.every((t) => val('svc_clickhouse_insert_rows_count', t) === val('svc_clickhouse_insert_duration_seconds_count', t)),
      }
    }
    let lastUsage: Totals | null = null
    const usageMatches = async () => {
      const res = await fetch(`${apiUrl}/v1/observ/orgs/bench/workspaces/bench/coding-agent/usage?period=day`, { headers: { 'x-svc-api-key': KEY } })
      if (res.status !== 200) throw new Error(`usage answered ${res.status}: ${await res.text()}`)
      const totals = ((await res.json()) as { totals: Totals }).totals
      lastUsage = totals
      return TOTAL_KEYS.every((k) => Math.abs(Number(totals[k]) - expected[k]) <= (k === 'cost_usd' ? 1e-4 + 1e-9 * expected[k] : 1e-6))
    }
    let tLanded = NaN
    let gateSince = NaN
    let usagePolls = 0
    while (performance.now() - tAccepted < LANDED_TIMEOUT_MS) {
      const tScrape = performance.now()
      const s = await scrape()
      const inserted = s.points >= acceptedPoints && s.events >= acceptedEvents
      if (inserted && Number.isNaN(gateSince)) gateSince = tScrape
      // Every insert begun has finished (or, after a failed insert left the counts apart, a second has passed).
      if (inserted && (s.settled || tScrape - gateSince > 1000)) {
        usagePolls++
        if (await usageMatches()) {
          // All those inserts had finished at the scrape when the counters settled; else at the answer.
          tLanded = s.settled && usagePolls === 1 ? tScrape : performance.now()
          break
        }
        await sleep(200)
      } else await sleep(50)
    }
    if (Number.isNaN(tLanded)) progress(`warning: not landed within ${LANDED_TIMEOUT_MS / 1000}s; last usage totals ${JSON.stringify(lastUsage)}, expected ${JSON.stringify(expected)}`)
    const acceptRate = loadRecords / ((tAccepted - t0) / 1000)
    const e2eRate = loadRecords / ((tLanded - t0) / 1000)
    const lat = summarize(latencies)
    const rss = peakRssMb(child.pid!)

    child.kill('SIGTERM')
    await exited(child)

    progress('counting the landed rows (FINAL) in a store opened on the service\'s data dir')
    const log = createLogger({ level: 'warn' })
    const store = await createStore(loadConfig({ SVC_DATA_DIR: env.SVC_DATA_DIR!, LOG_LEVEL: 'warn' }), log)
    const count = async (t: string) => Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${t} FINAL`))[0]!.n)
    const [rowsPoints, rowsEvents, rowsEdits] = [await count('coding_agent_metrics_v1'), await count('coding_agent_events_v1'), await count('coding_agent_file_edits_v1')]
    await store.close()

    progress('measuring the bare ceilings with the same records and rows')
    const sampleBodies = plan.clients.flatMap((c) => c.slice(0, Math.ceil(1000 / CONCURRENCY)))
    const sample = caSample(sampleBodies)
    const busMax = await busCeiling(MODE, env, { records: sample.records, rows: [], perRequest: sample.perRequest, itemsPerRecord: 1 }, CONCURRENCY)
    const chMax = await caClickhouseCeiling(sample)

    const ok = rowsPoints === acceptedPoints && rowsEvents === acceptedEvents
    table([
      ['records/s accepted (202)', `${fmt(acceptRate)}   (${fmt(loadPoints)} data points + ${fmt(loadEvents)} events in ${fmt((tAccepted - t0) / 1000, 1)} s; ${rejected} non-202 responses, retried)`],
      ['  data points/s, events/s accepted', `${fmt(loadPoints / ((tAccepted - t0) / 1000))} / ${fmt(loadEvents / ((tAccepted - t0) / 1000))}`],
      ['records/s end to end (landed)', `${fmt(e2eRate)}   (all landed ${fmt((tLanded - tAccepted) / 1000, 2)} s after the load ended; ${usagePolls} usage poll(s))`],
      ['accept latency p50/p95/p99', `${fmt(lat.p50, 1)} / ${fmt(lat.p95, 1)} / ${fmt(lat.p99, 1)} ms per request (${fmt(lat.n)} requests: ${SPR * 11} points or ${SPR * 6} events each)`],
      ['landed rows (FINAL) vs accepted', `points ${fmt(rowsPoints)}/${fmt(acceptedPoints)}, events ${fmt(rowsEvents)}/${fmt(acceptedEvents)}, file edits ${fmt(rowsEdits)} ${ok ? '(exact)' : '(MISMATCH)'}  (incl. warm-up)`],
      ['sessions / users (measured clients)', `${fmt(sessions)} / ${fmt(Math.ceil(sessions / 2))}`],
      ['service peak RSS', `${fmt(rss)} MiB`],
      [`ceiling: raw ${MODE === 'kafka' ? 'kafkajs acks=all' : 'embedded-log fsync'} produce`, `${fmt(busMax)} records/s → ours accepted ${fmt((acceptRate / busMax) * 100, 1)}%, end to end ${fmt((e2eRate / busMax) * 100, 1)}%`],
      ['ceiling: raw ClickHouse insert (chdb)', `${fmt(chMax)} records/s → ours end to end ${fmt((e2eRate / chMax) * 100, 1)}%`],
    ])
  } finally {
    if (child.exitCode === null && child.signalCode === null) { child.kill('SIGKILL'); await exited(child) }
    rmSync(env.SVC_DATA_DIR!, { recursive: true, force: true })
    await stopServices()
  }
}

await run()
process.exit(0)
