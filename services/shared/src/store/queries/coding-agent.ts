/**
 * Coding-agent analytics (clickhouse/0017-0019, docs/coding-agent.md): the
 * consumer's writes and its previous-point lookup, and the three reads behind
 * GET .../coding-agent/{usage,commits,top-files}. Every statement is bound to one
 * workspace; the tables are ReplacingMergeTrees read with FINAL, so a replayed
 * record never counts twice.
 */
import type { Store } from '../types.js'

/** [fromMs, toMs) */
export interface MsWindow {
  fromMs: number
  toMs: number
}

/** The metric names the usage rollup reads, and what each is. */
export const CC = {
  cost: 'claude_code.cost.usage',
  tokens: 'claude_code.token.usage',
  lines: 'claude_code.lines_of_code.count',
  commits: 'claude_code.commit.count',
  pullRequests: 'claude_code.pull_request.count',
  activeTime: 'claude_code.active_time.total',
  sessions: 'claude_code.session.count',
} as const

export async function insertCodingAgentRows(
  store: Store,
  rows: { metrics: Record<string, unknown>[]; events: Record<string, unknown>[]; commits: Record<string, unknown>[]; edits: Record<string, unknown>[] },
): Promise<void> {
  await Promise.all([
    rows.metrics.length ? store.insert('coding_agent_metrics_v1', rows.metrics) : null,
    rows.events.length ? store.insert('coding_agent_events_v1', rows.events) : null,
    rows.commits.length ? store.insert('coding_agent_commits_v1', rows.commits) : null,
    rows.edits.length ? store.insert('coding_agent_file_edits_v1', rows.edits) : null,
  ])
}

/**
 * The latest stored point of each series older than the given time (the
 * batch's first point of that series): what a cumulative point is converted
 * against. Copies of a point are identical, so argMax over them is exact.
 */
export async function previousPoints(
  store: Store,
  workspaceId: string,
  firstTimes: Map<string, { metricName: string; timeNs: string }>,
): Promise<Map<string, { value: number; count: number }>> {
  if (firstTimes.size === 0) return new Map()
  const ids = [...firstTimes.keys()]
  // metric_name and series_id follow workspace_id in the sort key: with both bounded the
  // lookup reads the granules of these series only, not every point of the workspace.
  // Each row's bound is found by transform(), a hash lookup: indexOf() scanned the id
  // array for every row read, so a 1,000-series batch cost ~100x more (90-330 ms vs
  // 16 ms measured), and the consumer's small batches spent most of their time here.
  const rows = await store.query<{ series_id: string; value: number; count: number }>(
    `SELECT series_id, argMax(value, time_ns) AS value, argMax(count, time_ns) AS count
FROM coding_agent_metrics_v1
WHERE workspace_id = {ws:String} AND metric_name IN {names:Array(String)} AND series_id IN {ids:Array(String)}
  AND time_ns < transform(series_id, {ids:Array(String)}, arrayMap(t -> toUInt64OrZero(t), {times:Array(String)}), toUInt64(0))
GROUP BY series_id`,
    { ws: workspaceId, names: [...new Set(ids.map((id) => firstTimes.get(id)!.metricName))], ids, times: ids.map((id) => firstTimes.get(id)!.timeNs) },
    { tag: 'coding-agent.previous-points' },
  )
  return new Map(rows.map((r) => [r.series_id, { value: Number(r.value), count: Number(r.count) }]))
}

export interface EmployeeUsage {
  employee: string | null
  sessions: number
  api_requests: number
  prompts: number
  tool_calls: number
  cost_usd: number
  input_tokens: number
  output_tokens: number
  cache_read_tokens: number
  cache_creation_tokens: number
  lines_added: number
  lines_removed: number
  commits: number
  pull_requests: number
  active_time_seconds: number
  last_activity_at: string | null
}

/** Per-session columns: [name, metric expression, event expression, commit expression] (0 where a source has none). */
const COLS: Array<[string, string, string, string]> = [
  ['m_cost', `sumIf(delta, metric_name = '${CC.cost}')`, '0', '0'],
  ['m_input', `sumIf(delta, metric_name = '${CC.tokens}' AND type = 'input')`, '0', '0'],
  ['m_output', `sumIf(delta, metric_name = '${CC.tokens}' AND type = 'output')`, '0', '0'],
  ['m_cache_read', `sumIf(delta, metric_name = '${CC.tokens}' AND type = 'cacheRead')`, '0', '0'],
  ['m_cache_creation', `sumIf(delta, metric_name = '${CC.tokens}' AND type = 'cacheCreation')`, '0', '0'],
  ['m_added', `sumIf(delta, metric_name = '${CC.lines}' AND type = 'added')`, '0', '0'],
  ['m_removed', `sumIf(delta, metric_name = '${CC.lines}' AND type = 'removed')`, '0', '0'],
  ['m_commits', `sumIf(delta, metric_name = '${CC.commits}')`, '0', '0'],
  ['m_prs', `sumIf(delta, metric_name = '${CC.pullRequests}')`, '0', '0'],
  ['active', `sumIf(delta, metric_name = '${CC.activeTime}')`, '0', '0'],
  ['e_cost', '0', 'sum(cost_usd)', '0'],
  ['e_input', '0', 'sum(input_tokens)', '0'],
  ['e_output', '0', 'sum(output_tokens)', '0'],
  ['e_cache_read', '0', 'sum(cache_read_tokens)', '0'],
  ['e_cache_creation', '0', 'sum(cache_creation_tokens)', '0'],
  ['e_added', '0', 'sum(lines_added)', '0'],
  ['e_removed', '0', 'sum(lines_removed)', '0'],
  ['e_prs', '0', "countIf(event_name = 'pull_request')", '0'],
  ['requests', '0', "countIf(event_name IN ('api_request', 'model_response') AND NOT (agent = 'codex' AND event_name = 'api_request'))", '0'],
  ['prompts', '0', "countIf(event_name = 'user_prompt')", '0'],
  ['tools', '0', "countIf(event_name = 'tool_result')", '0'],
  ['c_commits', '0', '0', 'count()'],
  ['last_ms', 'intDiv(max(time_ns), 1000000)', 'toUnixTimestamp64Milli(max(event_time))', 'toUnixTimestamp64Milli(max(committed_at))'],
]
const select = (i: 1 | 2 | 3) => COLS.map((c) => `toFloat64(${c[i]}) AS ${c[0]}`).join(', ')

/**
 * Usage per employee over a window. Each quantity comes, per session, from the
 * metric when the session has ever sent that metric, else from the events:
 * cost (cost.usage vs api_request cost_usd), tokens (token.usage vs api_request
 * tokens), lines (lines_of_code.count vs activity file_edit), commits
 * (commit.count vs distinct reported commits), pull requests (pull_request.count
 * vs activity pull_request). So nothing is counted twice when both arrive.
 */
export async function codingAgentUsage(store: Store, workspaceId: string, w: MsWindow): Promise<EmployeeUsage[]> {
  const rows = await store.query<Record<string, unknown>>(
    `WITH flags AS (
  SELECT employee, session_id,
    max(metric_name = '${CC.cost}') AS has_cost, max(metric_name = '${CC.tokens}') AS has_tokens,
    max(metric_name = '${CC.lines}') AS has_lines, max(metric_name = '${CC.commits}') AS has_commits,
    max(metric_name = '${CC.pullRequests}') AS has_prs
  FROM coding_agent_metrics_v1
  WHERE workspace_id = {ws:String} AND metric_name IN {flagged:Array(String)}
  GROUP BY employee, session_id
),
sessions AS (
  SELECT employee, session_id, ${COLS.map((c) => `sum(${c[0]}) AS ${c[0]}`).join(', ').replace('sum(last_ms) AS last_ms', 'max(last_ms) AS last_ms')}
  FROM (
    SELECT employee, session_id, ${select(1)} FROM coding_agent_metrics_v1 FINAL
    WHERE workspace_id = {ws:String} AND time_ns >= {from_ns:UInt64} AND time_ns < {to_ns:UInt64} GROUP BY employee, session_id
    UNION ALL
    SELECT employee, session_id, ${select(2)} FROM coding_agent_events_v1 FINAL
    WHERE workspace_id = {ws:String} AND event_time >= fromUnixTimestamp64Milli({from:Int64}) AND event_time < fromUnixTimestamp64Milli({to:Int64}) GROUP BY employee, session_id
    UNION ALL
    SELECT employee, session_id, ${select(3)} FROM coding_agent_commits_v1 FINAL
    WHERE workspace_id = {ws:String} AND committed_at >= fromUnixTimestamp64Milli({from:Int64}) AND committed_at < fromUnixTimestamp64Milli({to:Int64}) GROUP BY employee, session_id
  )
  GROUP BY employee, session_id
)
SELECT s.employee AS employee,
  uniqExactIf(s.session_id, s.session_id != '') AS sessions,
  sum(requests) AS api_requests, sum(prompts) AS prompts, sum(tools) AS tool_calls,
  sum(if(f.has_cost, m_cost, e_cost)) AS cost_usd,
  sum(if(f.has_tokens, m_input, e_input)) AS input_tokens,
  sum(if(f.has_tokens, m_output, e_output)) AS output_tokens,
  sum(if(f.has_tokens, m_cache_read, e_cache_read)) AS cache_read_tokens,
  sum(if(f.has_tokens, m_cache_creation, e_cache_creation)) AS cache_creation_tokens,
  sum(if(f.has_lines, m_added, e_added)) AS lines_added,
  sum(if(f.has_lines, m_removed, e_removed)) AS lines_removed,
  sum(if(f.has_commits, m_commits, c_commits)) AS commits,
  sum(if(f.has_prs, m_prs, e_prs)) AS pull_requests,
  sum(active) AS active_time_seconds,
  max(last_ms) AS last_ms
FROM sessions AS s LEFT JOIN flags AS f ON s.employee = f.employee AND s.session_id = f.session_id
GROUP BY s.employee
ORDER BY cost_usd DESC, s.employee = '', s.employee`,
    {
      ws: workspaceId,
      flagged: [CC.cost, CC.tokens, CC.lines, CC.commits, CC.pullRequests],
      from: w.fromMs,
      to: w.toMs,
      from_ns: (BigInt(w.fromMs) * 1_000_000n).toString(),
      to_ns: (BigInt(w.toMs) * 1_000_000n).toString(),
    },
    { tag: 'coding-agent.usage', settings: { join_use_nulls: 0 } },
  )
  const n = (v: unknown) => Math.round(Number(v ?? 0) * 1e6) / 1e6
  return rows.map((r) => ({
    employee: r.employee ? String(r.employee) : null,
    sessions: Number(r.sessions),
    api_requests: n(r.api_requests),
    prompts: n(r.prompts),
    tool_calls: n(r.tool_calls),
    cost_usd: Math.round(Number(r.cost_usd ?? 0) * 1e9) / 1e9,
    input_tokens: n(r.input_tokens),
    output_tokens: n(r.output_tokens),
    cache_read_tokens: n(r.cache_read_tokens),
    cache_creation_tokens: n(r.cache_creation_tokens),
    lines_added: n(r.lines_added),
    lines_removed: n(r.lines_removed),
    commits: n(r.commits),
    pull_requests: n(r.pull_requests),
    active_time_seconds: n(r.active_time_seconds),
    last_activity_at: Number(r.last_ms) > 0 ? new Date(Number(r.last_ms)).toISOString() : null,
  }))
}

export interface CodingAgentCommit {
  commit_id: string
  committed_at: string
  agent: string
  employee: string | null
  session_id: string | null
  repository: string | null
  branch: string | null
  message: string | null
  files: string[]
  lines_added: number
  lines_removed: number
  source: string
}

/** The newest commits of a workspace, newest first. */
export async function recentCommits(store: Store, workspaceId: string, limit: number): Promise<CodingAgentCommit[]> {
  const rows = await store.query<Record<string, unknown>>(
    `SELECT commit_id, toUnixTimestamp64Milli(committed_at) AS committed_ms, agent, employee, session_id, repository, branch, message, files, lines_added, lines_removed, source
FROM coding_agent_commits_v1 FINAL
WHERE workspace_id = {ws:String}
ORDER BY committed_at DESC, commit_id
LIMIT {limit:UInt32}`,
    { ws: workspaceId, limit },
    { tag: 'coding-agent.commits' },
  )
  const orNull = (v: unknown) => (v ? String(v) : null)
  return rows.map((r) => ({
    commit_id: String(r.commit_id),
    committed_at: new Date(Number(r.committed_ms)).toISOString(),
    agent: String(r.agent),
    employee: orNull(r.employee),
    session_id: orNull(r.session_id),
    repository: orNull(r.repository),
    branch: orNull(r.branch),
    message: orNull(r.message),
    files: (r.files as string[]) ?? [],
    lines_added: Number(r.lines_added),
    lines_removed: Number(r.lines_removed),
    source: String(r.source),
  }))
}

export interface TopFile {
  file_path: string
  edits: number
  commits: number
  employees: number
  sessions: number
  lines_added: number
  lines_removed: number
  last_edited_at: string
}

/** Files by number of edits in the window (ties: most recently edited first, then path). */
export async function topFiles(store: Store, workspaceId: string, w: MsWindow, limit: number): Promise<TopFile[]> {
  const rows = await store.query<Record<string, unknown>>(
    `SELECT file_path, count() AS edits, uniqExactIf(commit_id, commit_id != '') AS commits,
  uniqExactIf(employee, employee != '') AS employees, uniqExactIf(session_id, session_id != '') AS sessions,
  sum(lines_added) AS lines_added, sum(lines_removed) AS lines_removed, toUnixTimestamp64Milli(max(edited_at)) AS last_ms
FROM coding_agent_file_edits_v1 FINAL
WHERE workspace_id = {ws:String} AND edited_at >= fromUnixTimestamp64Milli({from:Int64}) AND edited_at < fromUnixTimestamp64Milli({to:Int64})
GROUP BY file_path
ORDER BY edits DESC, last_ms DESC, file_path
LIMIT {limit:UInt32}`,
    { ws: workspaceId, from: w.fromMs, to: w.toMs, limit },
    { tag: 'coding-agent.top-files' },
  )
  return rows.map((r) => ({
    file_path: String(r.file_path),
    edits: Number(r.edits),
    commits: Number(r.commits),
    employees: Number(r.employees),
    sessions: Number(r.sessions),
    lines_added: Number(r.lines_added),
    lines_removed: Number(r.lines_removed),
    last_edited_at: new Date(Number(r.last_ms)).toISOString(),
  }))
}
