/**
 * The clustered layout (CLICKHOUSE_CLUSTER set; docs/architecture.md "Clustered
 * layout"): the same numbered migrations, rendered statement by statement.
 *
 * - A sharded table `t` becomes `t_local`, Replicated* with the path
 *   /clickhouse/tables/{shard}/{database}/t_local and replica {replica}, created
 *   ON CLUSTER; `t` becomes a Distributed table over the locals with the table's
 *   sharding key. The service keeps reading and writing `t`, so no query changes.
 * - A global table (small, needed whole on every node: schema_migrations,
 *   workspaces_v1, which the analytics views join on every shard) is Replicated
 *   with a path without {shard}: one copy per node, no Distributed table.
 * - Materialized views are created ON CLUSTER, read the local table and write the
 *   local target, so a roll-up row is made on the shard that holds its spans.
 * - ALTER of a sharded table alters the locals ON CLUSTER, then recreates the
 *   Distributed table from them (CREATE OR REPLACE ... AS t_local), which takes
 *   the new columns without the clauses Distributed refuses (column TTL).
 * - CREATE DATABASE and CREATE VIEW get ON CLUSTER; views read the Distributed
 *   tables. INSERT ... SELECT runs once, on the node that migrates, through them.
 *
 * A table the map below does not know stops the rendering: a new table must say
 * how it is sharded.
 */

export interface ClusterTarget {
  cluster: string
  /** The service's database (CLICKHOUSE_DATABASE), named in Distributed engines. */
  database: string
}

/**
 * Sharding key of each sharded table, or 'global'. Rows that must meet on one
 * shard share a key: every version of a ReplacingMergeTree row (FINAL and merges
 * collapse them only within a shard), and a trace's spans with its traces_v1 rows
 * (the view aggregates on the spans' shard, the reconciliation inserts its
 * corrections through the same key).
 */
export const SHARDING: Record<string, string | 'global'> = {
  schema_migrations: 'global',
  workspaces_v1: 'global',
  spans_v1: 'cityHash64(workspace_id, trace_id)',
  traces_v1: 'cityHash64(workspace_id, trace_id)',
  trace_starts_v1: 'cityHash64(workspace_id, trace_id)',
  trace_list_v1: 'cityHash64(workspace_id, trace_id)',
  trace_grades_v1: 'cityHash64(workspace_id, trace_id)',
  phase_traces_v1: 'cityHash64(workspace_id, trace_id)',
  trace_scores_v1: 'cityHash64(workspace_id, trace_id)',
  trace_completions_v1: 'cityHash64(workspace_id, trace_id)',
  engine_results_v1: 'cityHash64(workspace_id, trace_id)',
  trace_sources_v1: 'cityHash64(workspace_id, trace_id)',
  alignment_flags_v1: 'cityHash64(workspace_id, trace_id)',
  engine_skips_v1: 'cityHash64(workspace_id, trace_id)',
  dead_letters_v1: 'cityHash64(workspace_id, dlq_topic, dlq_partition, dlq_offset)',
  usage_hourly_v1: 'cityHash64(workspace_id)',
  latency_hourly_v1: 'cityHash64(workspace_id)',
  sources_v1: 'cityHash64(workspace_id)',
  engine_runs_v1: 'cityHash64(workspace_id)',
  engine_jobs_hourly_v1: 'cityHash64(workspace_id)',
  drift_daily_v1: 'cityHash64(workspace_id)',
  alignment_documents_v1: 'cityHash64(workspace_id)',
  alignment_chunks_v1: 'cityHash64(workspace_id)',
  coding_agent_metrics_v1: 'cityHash64(workspace_id, series_id)',
  coding_agent_events_v1: 'cityHash64(workspace_id, event_id)',
  coding_agent_commits_v1: 'cityHash64(workspace_id, commit_id)',
  coding_agent_file_edits_v1: 'cityHash64(workspace_id, edit_id)',
}

const sharded = (t: string) => SHARDING[t] !== undefined && SHARDING[t] !== 'global'
const isView = (t: string) => t.endsWith('_mv')

function known(table: string): string {
  if (SHARDING[table] === undefined && !isView(table)) throw new Error(`clustered layout: no sharding key for table ${table} (add it to SHARDING in store/cluster.ts)`)
  return table
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
/** A cluster name as the string literal ON CLUSTER takes (no query parameter fits there). */
export const clusterLiteral = quote
const onCluster = (c: ClusterTarget) => `ON CLUSTER ${quote(c.cluster)}`

/**
 * What a DELETE (lightweight or ALTER ... DELETE) names: the table itself, or on a
 * cluster its local tables on every node (a Distributed table takes no mutation).
 * Subqueries in the WHERE keep reading the Distributed tables, so each shard
 * decides with the whole picture.
 */
export function mutationTarget(table: string, c: ClusterTarget | undefined): string {
  known(table)
  return c && sharded(table) ? `${table}_local ${onCluster(c)}` : c ? `${table} ${onCluster(c)}` : table
}

/** `Engine(args)` -> `ReplicatedEngine('<path>', '{replica}', args)`. */
function replicatedEngine(sql: string, path: string): string {
  return sql.replace(/ENGINE\s*=\s*(\w*)MergeTree(?:\(([^()]*)\))?/, (_m, family: string, args: string | undefined) => {
    const rest = args?.trim() ? `, ${args.trim()}` : ''
    return `ENGINE = Replicated${family}MergeTree(${quote(path)}, '{replica}'${rest})`
  })
}

/** FROM / JOIN / TO references to sharded tables pointed at their locals (in a view's query). */
function toLocals(sql: string): string {
  return sql.replace(/\b(FROM|JOIN|TO)(\s+)([A-Za-z_][A-Za-z0-9_]*)\b/g, (m, kw: string, sp: string, t: string) => (sharded(known(t)) ? `${kw}${sp}${t}_local` : m))
}

function distributed(table: string, c: ClusterTarget, replace: boolean): string {
  const key = SHARDING[table]!
  return `CREATE ${replace ? 'OR REPLACE' : ''} TABLE ${replace ? '' : 'IF NOT EXISTS '}${table} ${onCluster(c)} AS ${c.database}.${table}_local ENGINE = Distributed(${quote(c.cluster)}, ${quote(c.database)}, ${quote(`${table}_local`)}, ${key})`.replace(/ {2,}/g, ' ')
}

/** One migration statement as the statements a cluster runs for it. */
export function renderForCluster(sql: string, c: ClusterTarget): string[] {
  let m = /^CREATE TABLE IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\b/.exec(sql)
  if (m) {
    const t = known(m[1]!)
    if (!sharded(t)) return [replicatedEngine(sql.replace(m[0], `${m[0]} ${onCluster(c)}`), `/clickhouse/tables/{database}/${t}`)]
    const local = replicatedEngine(sql.replace(m[0], `CREATE TABLE IF NOT EXISTS ${t}_local ${onCluster(c)}`), `/clickhouse/tables/{shard}/{database}/${t}_local`)
    return [local, distributed(t, c, false)]
  }
  m = /^CREATE MATERIALIZED VIEW IF NOT EXISTS ([A-Za-z_][A-Za-z0-9_]*)\b/.exec(sql)
  if (m) return [toLocals(sql.replace(m[0], `${m[0]} ${onCluster(c)}`))]
  m = /^ALTER TABLE ([A-Za-z_][A-Za-z0-9_]*)\b/.exec(sql)
  if (m) {
    const t = known(m[1]!)
    if (isView(t)) return [toLocals(sql.replace(m[0], `${m[0]} ${onCluster(c)}`))]
    if (!sharded(t)) return [sql.replace(m[0], `${m[0]} ${onCluster(c)}`)]
    return [sql.replace(m[0], `ALTER TABLE ${t}_local ${onCluster(c)}`), distributed(t, c, true)]
  }
  m = /^CREATE (?:DATABASE IF NOT EXISTS|OR REPLACE VIEW) ([A-Za-z_][A-Za-z0-9_.]*)/.exec(sql)
  if (m) return [sql.replace(m[0], `${m[0]} ${onCluster(c)}`)]
  if (/^INSERT INTO /.test(sql)) return [sql]
  throw new Error(`clustered layout: no rendering for statement ${JSON.stringify(sql.slice(0, 80))}`)
}
