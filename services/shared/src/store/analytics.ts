/**
 * The analytics database (clickhouse/0023_create_analytics_views.sql,
 * docs/analysts.md): views for analysts over the internal tables. Listed here for
 * what must cover every one of them (the per-tenant row policies of
 * `pnpm svc analyst grant`); a test compares the list with the database.
 */
export const ANALYTICS_DATABASE = 'analytics'

export const ANALYTICS_VIEWS = [
  'workspaces',
  'spans',
  'llm_calls',
  'tool_calls',
  'traces',
  'engine_results',
  'optimization_findings',
  'trace_sources',
  'usage_hourly',
  'coding_agent_usage',
] as const
