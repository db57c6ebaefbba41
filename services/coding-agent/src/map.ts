/**
 * Coding-agent telemetry -> ClickHouse rows. Pure functions of the bus records
 * (docs/coding-agent.md lists what is mapped from which attribute):
 * - metricPoint / toDelta: a metric data point and the temporality conversion
 *   (cumulative -> delta per series; a reset starts over; gauges keep the value;
 *   histograms convert count and sum).
 * - mapEvent: an event row, and the commits and file edits the event reports.
 */
import type { CodingAgentEventRecord, CodingAgentMetricRecord } from '@svc/shared/bus/records'
import { attributeSetId } from './ids.js'

/** Attribute values as sent: JSON text for numbers, digits for int64s, verbatim strings. */
export function num(v: string | undefined): number {
  if (v === undefined || v === '') return 0
  const n = Number(v.startsWith('"') ? JSON.parse(v) : v)
  return Number.isFinite(n) ? n : 0
}

/** The employee: user.email, else the account id (Claude Code user.account_uuid, Codex user.account_id). */
export const employeeOf = (a: Record<string, string>) => a['user.email'] || a['user.account_uuid'] || a['user.account_id'] || ''
/** The session: session.id (Claude Code, activity) or conversation.id (Codex). */
export const sessionIdOf = (a: Record<string, string>) => a['session.id'] || a['conversation.id'] || ''

export function agentOf(serviceName: string, name: string, attrs: Record<string, string>): string {
  if (name.startsWith('activity.')) return attrs.agent || 'activity'
  if (name.startsWith('claude_code.') || serviceName === 'claude-code' || serviceName === 'claude_code') return 'claude_code'
  if (name.startsWith('codex.') || serviceName.startsWith('codex')) return 'codex'
  return serviceName || 'unknown'
}

const nanosToMs = (ns: bigint | number) => String(BigInt(ns) / 1_000_000n)

/** Orders non-negative integers written in decimal without leading zeros (times as the rows keep them), without parsing them. */
export const compareDecimal = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)

// ---------------------------------------------------------------- metrics

export interface MetricRow {
  workspace_id: string
  metric_name: string
  series_id: string
  time_ns: string
  start_ns: string
  metric_type: string
  temporality: string
  agent: string
  employee: string
  session_id: string
  model: string
  type: string
  value: number
  count: number
  delta: number
  count_delta: number
  attributes: Record<string, string>
  received_at: string
}

/** The previous point of a series, as the conversion needs it. */
export interface PrevPoint {
  value: number
  count: number
}

/** Series identity: metric name + attribute set + start time (a new start time is a new series). */
export function seriesIdOf(p: CodingAgentMetricRecord): string {
  return attributeSetId([p.workspace_id, p.metric_name, p.metric_type], p.attributes, [String(p.start_time_unix_nano)])
}

/** A metric point's row, its delta not yet known. */
export function metricPoint(p: CodingAgentMetricRecord): MetricRow {
  const a = p.attributes
  return {
    workspace_id: p.workspace_id,
    metric_name: p.metric_name,
    series_id: seriesIdOf(p),
    time_ns: String(p.time_unix_nano),
    start_ns: String(p.start_time_unix_nano),
    metric_type: p.metric_type,
    temporality: p.temporality,
    agent: agentOf(p.service_name, p.metric_name, a),
    employee: employeeOf(a),
    session_id: sessionIdOf(a),
    model: a.model ?? '',
    type: a.type ?? '',
    value: p.value,
    count: p.count,
    delta: 0,
    count_delta: 0,
    attributes: a,
    received_at: String(p.received_at_ms),
  }
}

/** Differences of float values, cut to 1e-9 so 0.3 - 0.1 sums back exactly. */
const diff = (a: number, b: number) => Math.round((a - b) * 1e9) / 1e9

/**
 * What a point adds. Delta points add their value. A cumulative point adds its
 * increase over `prev`, the series' previous point (same series id, so same
 * start time); with no previous point it adds its whole value (everything since
 * the start time). A monotonic sum or a histogram whose value (count) dropped
 * was reset without a new start time: the new value is all it adds. A
 * non-monotonic sum adds its (possibly negative) change. Gauges add nothing.
 */
export function toDelta(row: Pick<MetricRow, 'metric_type' | 'temporality' | 'value' | 'count'>, prev: PrevPoint | undefined, monotonic = true): { delta: number; count_delta: number } {
  if (row.metric_type === 'gauge') return { delta: 0, count_delta: 0 }
  if (row.temporality === 'delta' || !prev) return { delta: row.value, count_delta: row.count }
  if (row.metric_type === 'histogram') {
    if (row.count < prev.count || row.value < prev.value) return { delta: row.value, count_delta: row.count }
    return { delta: diff(row.value, prev.value), count_delta: row.count - prev.count }
  }
  if (monotonic && row.value < prev.value) return { delta: row.value, count_delta: 0 }
  return { delta: diff(row.value, prev.value), count_delta: 0 }
}

/**
 * Deltas of a batch's points: points of a series in time order, each against the
 * one before it (in the batch, else `stored`, the series' latest stored point
 * older than the batch's first). A repeat of a point (same series and time) gets
 * the same delta as its first copy. Sets each row's delta and count_delta in place
 * and returns the rows, grouped by series.
 */
export function withDeltas(points: Array<{ row: MetricRow; monotonic: boolean }>, stored: Map<string, PrevPoint>): MetricRow[] {
  const bySeries = new Map<string, Array<{ row: MetricRow; monotonic: boolean }>>()
  for (const p of points) {
    const list = bySeries.get(p.row.series_id)
    if (list) list.push(p)
    else bySeries.set(p.row.series_id, [p])
  }
  const out: MetricRow[] = []
  for (const [id, list] of bySeries) {
    list.sort((a, b) => compareDecimal(a.row.time_ns, b.row.time_ns))
    let prev = stored.get(id)
    let prevTime: string | null = null
    let prevOfPrev = prev
    for (const { row, monotonic } of list) {
      // A repeated time: compare with the point before the first copy.
      const against = row.time_ns === prevTime ? prevOfPrev : prev
      const d = toDelta(row, against, monotonic)
      row.delta = d.delta
      row.count_delta = d.count_delta
      out.push(row)
      if (row.time_ns !== prevTime) {
        prevOfPrev = prev
        prevTime = row.time_ns
      }
      prev = { value: row.value, count: row.count }
    }
  }
  return out
}

/** Each series' earliest point in a batch: the stored previous point must be older than it (its metric name locates it in the sort key). */
export function firstTimes(rows: MetricRow[]): Map<string, { metricName: string; timeNs: string }> {
  const first = new Map<string, { metricName: string; timeNs: string }>()
  for (const r of rows) {
    const t = first.get(r.series_id)
    if (t === undefined || compareDecimal(r.time_ns, t.timeNs) < 0) first.set(r.series_id, { metricName: r.metric_name, timeNs: r.time_ns })
  }
  return first
}

// ---------------------------------------------------------------- events

export interface EventRow {
  workspace_id: string
  event_time: string
  event_id: string
  agent: string
  event_name: string
  employee: string
  session_id: string
  model: string
  cost_usd: number
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_creation_tokens: number
  lines_added: number
  lines_removed: number
  duration_ms: number
  tool_name: string
  success: number
  decision: string
  attributes: Record<string, string>
  received_at: string
}

export interface CommitRow {
  workspace_id: string
  commit_id: string
  committed_at: string
  agent: string
  employee: string
  session_id: string
  repository: string
  branch: string
  message: string
  files: string[]
  lines_added: number
  lines_removed: number
  source: string
  received_at: string
}

export interface FileEditRow {
  workspace_id: string
  edited_at: string
  edit_id: string
  file_path: string
  agent: string
  employee: string
  session_id: string
  tool_name: string
  commit_id: string
  lines_added: number
  lines_removed: number
}

export interface MappedEvent {
  event: EventRow
  commits: CommitRow[]
  edits: FileEditRow[]
}

/** Claude Code tools whose parameters name the file they write. */
export const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])

/** The normalized event name: no claude_code./codex./activity. prefix; Codex's completed response is model_response. */
export function eventNameOf(e: CodingAgentEventRecord): string {
  const n = e.event_name
  if (n === 'codex.sse_event') return e.attributes['event.kind'] === 'response.completed' ? 'model_response' : 'sse_event'
  if (n === 'codex.conversation_starts') return 'session_start'
  return n.replace(/^(claude_code|codex|activity)\./, '')
}

function jsonObject(text: string | undefined): Record<string, unknown> | null {
  if (!text) return null
  try {
    const v = JSON.parse(text)
    // A JSON-text attribute holding a string of JSON (double-encoded) is unwrapped once.
    const o = typeof v === 'string' ? JSON.parse(v) : v
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** Files of an apply_patch patch ("*** Update File: path", Add, Delete) with their +/- line counts. */
export function patchFiles(patch: string): Array<{ path: string; lines_added: number; lines_removed: number }> {
  const files: Array<{ path: string; lines_added: number; lines_removed: number }> = []
  let cur: (typeof files)[number] | null = null
  for (const line of patch.split('\n')) {
    const m = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/.exec(line.trimEnd())
    if (m) {
      cur = { path: m[1]!.trim(), lines_added: 0, lines_removed: 0 }
      files.push(cur)
      continue
    }
    if (!cur || line.startsWith('***')) continue
    if (line.startsWith('+')) cur.lines_added++
    else if (line.startsWith('-')) cur.lines_removed++
  }
  return files
}

export function mapEvent(e: CodingAgentEventRecord): MappedEvent {
  const a = e.attributes
  const name = eventNameOf(e)
  const agent = agentOf(e.service_name, e.event_name, a)
  const timeMs = nanosToMs(e.time_unix_nano)
  const eventId = attributeSetId([e.workspace_id, e.source, e.event_name, String(e.time_unix_nano)], a, [e.body])
  const employee = employeeOf(a)
  const session = sessionIdOf(a)
  const success = a.success === 'true' ? 1 : a.success === 'false' ? 0 : -1
  const event: EventRow = {
    workspace_id: e.workspace_id,
    event_time: timeMs,
    event_id: eventId,
    agent,
    event_name: name,
    employee,
    session_id: session,
    model: a.model ?? '',
    cost_usd: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    lines_added: 0,
    lines_removed: 0,
    duration_ms: num(a.duration_ms),
    tool_name: a.tool_name ?? '',
    success,
    decision: a.decision ?? '',
    attributes: a,
    received_at: String(e.received_at_ms),
  }
  const commits: CommitRow[] = []
  const edits: FileEditRow[] = []
  const base = { workspace_id: e.workspace_id, agent, employee, session_id: session }
  const edit = (path: string, tool: string, commitId = '', added = 0, removed = 0) =>
    edits.push({ ...base, edited_at: timeMs, edit_id: eventId, file_path: path, tool_name: tool, commit_id: commitId, lines_added: added, lines_removed: removed })

  if (name === 'api_request' && agent !== 'codex') {
    // Claude Code / activity: input_tokens excludes cache reads and writes.
    event.cost_usd = num(a.cost_usd)
    event.input_tokens = num(a.input_tokens)
    event.output_tokens = num(a.output_tokens)
    event.cache_read_tokens = num(a.cache_read_tokens)
    event.cache_creation_tokens = num(a.cache_creation_tokens)
  } else if (name === 'model_response') {
    // Codex: input_token_count includes the cached tokens; kept apart as cache reads.
    const cached = num(a.cached_token_count)
    event.input_tokens = Math.max(0, num(a.input_token_count) - cached)
    event.output_tokens = num(a.output_token_count)
    event.cache_read_tokens = cached
  } else if (name === 'tool_result' && success !== 0) {
    const params = jsonObject(a.tool_parameters) ?? jsonObject(a.tool_input) ?? {}
    const commitId = typeof params.git_commit_id === 'string' ? params.git_commit_id.toLowerCase() : ''
    if (commitId && /^[0-9a-f]{4,64}$/.test(commitId))
      commits.push({ ...base, commit_id: commitId, committed_at: timeMs, repository: '', branch: '', message: '', files: [], lines_added: 0, lines_removed: 0, source: 'tool_result', received_at: String(e.received_at_ms) })
    const tool = event.tool_name
    if (EDIT_TOOLS.has(tool)) {
      const path = params.file_path ?? params.notebook_path ?? a.file_path
      if (typeof path === 'string' && path) edit(path, tool)
    } else if (agent === 'codex' && (tool === 'apply_patch' || (a.arguments ?? '').includes('*** Begin Patch'))) {
      const args = jsonObject(a.arguments)
      const patch = typeof args?.input === 'string' ? args.input : typeof args?.patch === 'string' ? args.patch : (a.arguments ?? '')
      for (const f of patchFiles(patch)) edit(f.path, 'apply_patch', '', f.lines_added, f.lines_removed)
    }
  } else if (name === 'commit' && e.source === 'activity') {
    const files = (JSON.parse(a.files ?? '[]') as Array<{ path: string; lines_added: number; lines_removed: number }>) ?? []
    const commitId = (a.commit_sha ?? '').toLowerCase()
    commits.push({
      ...base,
      commit_id: commitId,
      committed_at: timeMs,
      repository: a.repository ?? '',
      branch: a.branch ?? '',
      message: a.message ?? '',
      files: files.map((f) => f.path),
      lines_added: files.reduce((s, f) => s + f.lines_added, 0),
      lines_removed: files.reduce((s, f) => s + f.lines_removed, 0),
      source: 'activity',
      received_at: String(e.received_at_ms),
    })
    for (const f of files) edit(f.path, 'commit', commitId, f.lines_added, f.lines_removed)
  } else if (name === 'file_edit' && e.source === 'activity') {
    event.lines_added = num(a.lines_added)
    event.lines_removed = num(a.lines_removed)
    edit(a.file_path!, a.tool_name || 'file_edit', (a.commit_sha ?? '').toLowerCase(), event.lines_added, event.lines_removed)
  }
  return { event, commits, edits }
}
