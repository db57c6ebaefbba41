/**
 * The coding-agent benchmark's load and ceilings (tests/bench/coding-agent.ts):
 * Claude Code-style OTLP/JSON exports, encoded up front, with the usage totals they
 * add once landed; and the bare ClickHouse insert of the same rows.
 *
 * Each load client owns its sessions and sends their exports in order, one request
 * at a time, as one exporter per CLI would (cumulative points must reach the
 * consumer in order for the delta conversion; docs/coding-agent.md). Every usage
 * series grows at every export, so the usage totals reach the expected figures only
 * when the last accepted point of every series has landed.
 */
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { codingAgentEventV1, codingAgentKey, codingAgentMetricV1 } from '@svc/shared/bus/records'
import { decodeMetricsRequest } from '@svc/ingest/otlp/metrics'
import { decodeLogsRequest, stripEventText } from '@svc/ingest/otlp/logs'
import { sessionOf } from '@svc/ingest/routes/coding-agent'
import { mapEvent, metricPoint, withDeltas } from '@svc/coding-agent/map'
import { bareChdb, rowBinaryInserter } from './ceilings.js'

/** What the usage endpoint's totals gain when a body has landed. */
export interface Totals {
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_creation_tokens: number
  cost_usd: number
  lines_added: number
  lines_removed: number
  commits: number
  active_time_seconds: number
  api_requests: number
  prompts: number
  tool_calls: number
}
export const TOTAL_KEYS: Array<keyof Totals> = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'cost_usd', 'lines_added', 'lines_removed', 'commits', 'active_time_seconds', 'api_requests', 'prompts', 'tool_calls']
export const zeroTotals = (): Totals => Object.fromEntries(TOTAL_KEYS.map((k) => [k, 0])) as unknown as Totals
export function addTotals(into: Totals, t: Totals) {
  for (const k of TOTAL_KEYS) into[k] += t[k]
}

export interface CaBody {
  kind: 'metrics' | 'logs'
  json: Buffer
  /** Data points (metrics) or log records (logs) in the body. */
  items: number
  adds: Totals
}

// Per million tokens: input, output, cache read, cache write.
const MODELS = [
  { name: 'claude-sonnet-4-5-20250929', price: [3, 15, 0.3, 3.75], share: 0.8 },
  { name: 'claude-opus-4-1-20250805', price: [15, 75, 1.5, 18.75], share: 0.1 },
  { name: 'claude-haiku-4-5-20251001', price: [1, 5, 0.1, 1.25], share: 0.1 },
]
const TERMINALS = ['iTerm.app', 'vscode', 'Apple_Terminal', 'tmux', 'cursor']
const FILES = ['src/server.ts', 'src/routes/users.ts', 'src/db/schema.ts', 'src/lib/retry.ts', 'README.md', 'package.json', 'src/components/Table.tsx', 'tests/users.test.ts', 'src/index.ts', 'docs/api.md']
const COMMANDS = ['npm test', 'git status', 'pnpm build', 'ls -la src', 'git diff --stat', 'rg TODO src']

/** A small deterministic PRNG, so runs send the same shape of data. */
function rng(seed: number) {
  let s = seed >>> 0 || 1
  const next = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 4294967296
  }
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]! }
}

const str = (key: string, v: string) => ({ key, value: { stringValue: v } })
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } })
const dbl = (key: string, v: number) => ({ key, value: { doubleValue: v } })
const ns = (ms: number) => `${ms}000000`

interface Session {
  id: string
  email: string
  account: string
  terminal: string
  model: (typeof MODELS)[number]
  startMs: number
  // cumulative values
  input: number
  output: number
  cacheRead: number
  cacheCreation: number
  cost: number
  added: number
  removed: number
  commits: number
  activeUser: number
  activeCli: number
  seq: number
}

const resource = (version: string) => ({
  attributes: [str('service.name', 'claude-code'), str('service.version', version), str('os.type', 'linux'), str('os.version', '6.8.0'), str('host.arch', 'x64')],
})
const VERSION = '2.0.14'
const ORG = '9c1f0000-0000-4000-8000-0000000000b1'

function sessionAttrs(s: Session) {
  return [str('user.account_uuid', s.account), str('user.email', s.email), str('organization.id', ORG), str('session.id', s.id), str('terminal.type', s.terminal), str('app.version', VERSION)]
}

/** One export round (one interval) of a group of sessions: a metrics body and a logs body. */
function exportRound(sessions: Session[], round: number, stepMs: number, r: ReturnType<typeof rng>): CaBody[] {
  const metrics: CaBody = { kind: 'metrics', json: Buffer.alloc(0), items: 0, adds: zeroTotals() }
  const logs: CaBody = { kind: 'logs', json: Buffer.alloc(0), items: 0, adds: zeroTotals() }
  const resourceMetrics: unknown[] = []
  const resourceLogs: unknown[] = []
  for (const s of sessions) {
    const t0 = s.startMs + round * stepMs
    const tExport = t0 + stepMs - 1000
    const attrs = sessionAttrs(s)
    // The interval's activity: a prompt, two model calls, three tools (an Edit among them).
    const calls = [0, 1].map(() => ({ input: r.int(200, 3000), output: r.int(100, 2000), cacheRead: r.int(5000, 60000), cacheCreation: r.int(100, 5000), ms: r.int(1500, 9000) }))
    const price = (c: (typeof calls)[number]) => Math.round((c.input * s.model.price[0]! + c.output * s.model.price[1]! + c.cacheRead * s.model.price[2]! + c.cacheCreation * s.model.price[3]!)) / 1e6
    // The metric interval's increase (its own draw: the metrics and the events are
    // separate sources, and the usage rollup must not find the metric's figure in the events).
    const inc = { input: r.int(400, 6000), output: r.int(200, 4000), cacheRead: r.int(10000, 120000), cacheCreation: r.int(200, 10000), added: r.int(1, 120), removed: r.int(1, 40), user: r.int(5, 40), cli: r.int(10, 50) }
    const cost = Math.round(inc.input * s.model.price[0]! + inc.output * s.model.price[1]! + inc.cacheRead * s.model.price[2]! + inc.cacheCreation * s.model.price[3]!) / 1e6
    s.input += inc.input
    s.output += inc.output
    s.cacheRead += inc.cacheRead
    s.cacheCreation += inc.cacheCreation
    s.cost = Math.round((s.cost + cost) * 1e6) / 1e6
    s.added += inc.added
    s.removed += inc.removed
    s.commits += 1
    s.activeUser += inc.user
    s.activeCli += inc.cli
    const a = metrics.adds
    a.input_tokens += inc.input
    a.output_tokens += inc.output
    a.cache_read_tokens += inc.cacheRead
    a.cache_creation_tokens += inc.cacheCreation
    a.cost_usd += cost
    a.lines_added += inc.added
    a.lines_removed += inc.removed
    a.commits += 1
    a.active_time_seconds += inc.user + inc.cli
    const point = (value: { asInt?: string; asDouble?: number }, extra: unknown[] = []) => ({ startTimeUnixNano: ns(s.startMs), timeUnixNano: ns(tExport), attributes: [...attrs, ...extra], ...value })
    const sum = (name: string, unit: string, points: unknown[]) => ({ name, unit, sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points } })
    const model = str('model', s.model.name)
    const ms = [
      sum('claude_code.session.count', 'count', [point({ asInt: '1' })]),
      sum('claude_code.token.usage', 'tokens', [
        point({ asInt: String(s.input) }, [model, str('type', 'input')]),
        point({ asInt: String(s.output) }, [model, str('type', 'output')]),
        point({ asInt: String(s.cacheRead) }, [model, str('type', 'cacheRead')]),
        point({ asInt: String(s.cacheCreation) }, [model, str('type', 'cacheCreation')]),
      ]),
      sum('claude_code.cost.usage', 'USD', [point({ asDouble: s.cost }, [model])]),
      sum('claude_code.lines_of_code.count', 'count', [point({ asInt: String(s.added) }, [str('type', 'added')]), point({ asInt: String(s.removed) }, [str('type', 'removed')])]),
      sum('claude_code.commit.count', 'count', [point({ asInt: String(s.commits) })]),
      sum('claude_code.active_time.total', 's', [point({ asDouble: s.activeUser }, [str('type', 'user')]), point({ asDouble: s.activeCli }, [str('type', 'cli')])]),
    ]
    metrics.items += 11
    resourceMetrics.push({ resource: resource(VERSION), scopeMetrics: [{ scope: { name: 'com.anthropic.claude_code', version: VERSION }, metrics: ms }] })

    const records: unknown[] = []
    const event = (offsetMs: number, name: string, extra: unknown[]) => {
      const t = t0 + offsetMs
      records.push({
        timeUnixNano: ns(t),
        observedTimeUnixNano: ns(t),
        body: { stringValue: `claude_code.${name}` },
        attributes: [str('event.name', name), str('event.timestamp', new Date(t).toISOString()), int('event.sequence', s.seq++), ...attrs, ...extra],
      })
    }
    const prompt = `prompt-${s.id}-${round}`
    event(1000, 'user_prompt', [int('prompt_length', r.int(10, 600)), str('prompt', 'Refactor the retry helper and add tests'), str('prompt.id', prompt)])
    event(3000, 'api_request', [str('model', s.model.name), dbl('cost_usd', price(calls[0]!)), int('duration_ms', calls[0]!.ms), int('input_tokens', calls[0]!.input), int('output_tokens', calls[0]!.output), int('cache_read_tokens', calls[0]!.cacheRead), int('cache_creation_tokens', calls[0]!.cacheCreation), str('prompt.id', prompt)])
    event(8000, 'tool_result', [str('tool_name', 'Edit'), str('success', 'true'), int('duration_ms', r.int(3, 40)), str('decision', 'accept'), str('source', 'config'), str('tool_parameters', JSON.stringify({ file_path: `/home/dev/acme/${r.pick(FILES)}` })), str('prompt.id', prompt)])
    event(12000, 'tool_result', [str('tool_name', 'Read'), str('success', 'true'), int('duration_ms', r.int(1, 20)), str('decision', 'accept'), str('source', 'config'), str('tool_parameters', JSON.stringify({ file_path: `/home/dev/acme/${r.pick(FILES)}` })), str('prompt.id', prompt)])
    event(20000, 'api_request', [str('model', s.model.name), dbl('cost_usd', price(calls[1]!)), int('duration_ms', calls[1]!.ms), int('input_tokens', calls[1]!.input), int('output_tokens', calls[1]!.output), int('cache_read_tokens', calls[1]!.cacheRead), int('cache_creation_tokens', calls[1]!.cacheCreation), str('prompt.id', prompt)])
    event(25000, 'tool_result', [str('tool_name', 'Bash'), str('success', 'true'), int('duration_ms', r.int(50, 4000)), str('decision', 'accept'), str('source', 'user_permanent'), str('tool_parameters', JSON.stringify({ bash_command: 'npm', full_command: r.pick(COMMANDS) })), str('prompt.id', prompt)])
    logs.items += records.length
    logs.adds.api_requests += 2
    logs.adds.prompts += 1
    logs.adds.tool_calls += 3
    resourceLogs.push({ resource: resource(VERSION), scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events', version: VERSION }, logRecords: records }] })
  }
  metrics.json = Buffer.from(JSON.stringify({ resourceMetrics }))
  logs.json = Buffer.from(JSON.stringify({ resourceLogs }))
  return [metrics, logs]
}

export interface LoadPlan {
  /** Per client, its bodies in the order it must send them. */
  clients: CaBody[][]
  sessions: number
  users: number
  rounds: number
  pointsPerSession: number
  eventsPerSession: number
}

/**
 * Bodies for `clients` clients, each owning `groups` groups of `sessionsPerRequest`
 * sessions (two sessions per user), `rounds` export intervals each, the intervals
 * ending a minute ago (stepped so they stay inside the usage endpoint's day window).
 */
export function makeLoad(opts: { clients: number; groups: number; sessionsPerRequest: number; rounds: number }): LoadPlan {
  const r = rng(0x5eed)
  const now = Date.now()
  const stepMs = Math.min(60_000, Math.floor((18 * 3600_000) / (opts.rounds + 1)))
  const startMs = now - 60_000 - (opts.rounds + 1) * stepMs
  const clients: CaBody[][] = []
  let n = 0
  for (let c = 0; c < opts.clients; c++) {
    const groups: Session[][] = []
    for (let g = 0; g < opts.groups; g++) {
      const group: Session[] = []
      for (let k = 0; k < opts.sessionsPerRequest; k++, n++) {
        const user = Math.floor(n / 2)
        const x = (a: number) => a.toString(16).padStart(12, '0')
        group.push({
          id: randomUUID(),
          email: `dev${user}@acme.com`,
          account: `7a41c0de-0000-4000-8000-${x(user)}`,
          terminal: r.pick(TERMINALS),
          model: r.next() < MODELS[0]!.share ? MODELS[0]! : r.next() < 0.5 ? MODELS[1]! : MODELS[2]!,
          startMs: startMs + r.int(0, stepMs - 30_000),
          input: 0, output: 0, cacheRead: 0, cacheCreation: 0, cost: 0, added: 0, removed: 0, commits: 0, activeUser: 0, activeCli: 0, seq: 0,
        })
      }
      groups.push(group)
    }
    const bodies: CaBody[] = []
    for (let round = 0; round < opts.rounds; round++) for (const g of groups) bodies.push(...exportRound(g, round, stepMs, r))
    clients.push(bodies)
  }
  return { clients, sessions: n, users: Math.ceil(n / 2), rounds: opts.rounds, pointsPerSession: 11, eventsPerSession: 6 }
}

const tenant = { org_id: '11111111-1111-5111-8111-111111111111', workspace_id: '22222222-2222-5222-8222-222222222222' }

export interface CaSample {
  /** The Avro records ingest produces for the bodies (both topics, in body order). */
  records: Array<{ key: string; value: Buffer }>
  /** The rows the consumer inserts for them, per table. */
  rows: { metrics: Record<string, unknown>[]; events: Record<string, unknown>[]; edits: Record<string, unknown>[] }
  perRequest: number
}

/** The same bodies as ingest decodes and produces them, and as the consumer maps them to rows (first batch: no stored previous points). */
export function caSample(bodies: CaBody[]): CaSample {
  const records: CaSample['records'] = []
  const points: Array<{ row: ReturnType<typeof metricPoint>; monotonic: boolean }> = []
  const rows: CaSample['rows'] = { metrics: [], events: [], edits: [] }
  for (const b of bodies) {
    const body = JSON.parse(b.json.toString()) as unknown
    if (b.kind === 'metrics') {
      const d = decodeMetricsRequest(body, { tenant, receivedAtMs: Date.now() })
      if (!d.ok) throw new Error(d.message)
      for (const pt of d.points) {
        records.push({ key: codingAgentKey(pt.workspace_id, sessionOf(pt.attributes, pt.metric_name)), value: codingAgentMetricV1.encode(pt) })
        points.push({ row: metricPoint(pt), monotonic: pt.is_monotonic })
      }
    } else {
      const d = decodeLogsRequest(body, { tenant, receivedAtMs: Date.now() })
      if (!d.ok) throw new Error(d.message)
      for (const e of d.events) {
        stripEventText(e) // capture_text off, as in the run
        records.push({ key: codingAgentKey(e.workspace_id, sessionOf(e.attributes, e.event_name)), value: codingAgentEventV1.encode(e) })
        const m = mapEvent(e)
        rows.events.push(m.event as unknown as Record<string, unknown>)
        rows.edits.push(...(m.edits as unknown as Record<string, unknown>[]))
      }
    }
  }
  rows.metrics = withDeltas(points, new Map()) as unknown as Record<string, unknown>[]
  return { records, rows, perRequest: Math.max(1, Math.round(records.length / Math.max(1, bodies.length))) }
}

/**
 * Points + events per second of bare chdb inserts of the same rows into the same
 * tables (metric rows, event rows and the file-edit rows the events yield), in
 * 20k-row batches as the store sends them (RowBinary through INSERT ... FROM
 * INFILE), without the consumer's previous-point lookups or the bus around it.
 */
export async function caClickhouseCeiling(sample: CaSample): Promise<number> {
  const { client, dir, dispose } = await bareChdb('ceiling-ch-')
  try {
    const tables: Array<[string, Record<string, unknown>[]]> = [
      ['coding_agent_metrics_v1', sample.rows.metrics],
      ['coding_agent_events_v1', sample.rows.events],
      ['coding_agent_file_edits_v1', sample.rows.edits],
    ]
    const t0 = performance.now()
    for (const [table, rows] of tables) {
      if (!rows.length) continue
      const insert = await rowBinaryInserter(client, table, Object.keys(rows[0]!), join(dir, 'batch.bin'))
      for (let a = 0; a < rows.length; a += 20_000) await insert(rows.slice(a, a + 20_000))
    }
    return (sample.rows.metrics.length + sample.rows.events.length) / ((performance.now() - t0) / 1000)
  } finally {
    await dispose()
  }
}
