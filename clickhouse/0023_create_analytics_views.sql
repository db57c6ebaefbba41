-- The `analytics` database: views with stable, documented names over the internal
-- tables, for people who query ClickHouse directly (docs/analysts.md has every
-- view, column and example question). The internal tables stay free to change
-- (versioned names, aggregate states, first-delivery flags, correction rows); these
-- views are the contract, and a change to one is a new migration that keeps its
-- columns.
--
-- What each view reads correctly so that an analyst does not have to:
-- - spans_v1 is a ReplacingMergeTree: a span delivered twice has two rows until
--   they merge, so span views read FINAL (one row per span, always).
-- - traces_v1 has several rows per trace until merges, and signed correction rows
--   (the assembler's reconciliation): GROUP BY the trace and re-aggregate.
-- - trace_scores_v1, engine_results_v1, trace_sources_v1: the newest row wins
--   (argMax by its version column), exact before merges too.
-- - usage_hourly_v1: sums re-aggregated per key; the batch bitmaps are left out.
-- - coding_agent_*: ReplacingMergeTrees read FINAL, cost and tokens taken from the
--   metric when a session sent it, else from its events (never both).
-- - Retention: rows past their expires_at are gone after merges anyway (TTL), and
--   every view hides them at once (expires_at > now()); spans and traces also obey
--   the workspace's current window (a window shortened since the rows were written
--   applies at once, as the API's reads do).
-- - Deleted workspaces: ClickHouse does not know them, the control state does.
--   workspaces_v1 (below) is kept in step with the control topic by the assembler
--   (services/assembler/src/workspace-sync.ts); every view joins the workspaces
--   that are not deleted, which also gives analysts slugs and names instead of UUIDs.
--
-- SQL SECURITY DEFINER: a view reads the internal tables with the rights of the
-- user who created it (the service's), so an analyst on a ClickHouse server needs
-- SELECT on analytics.* only, never on the internal tables, and row policies on the
-- views (pnpm svc analyst grant) are the whole of what a tenant's analyst can see.
-- Every view has a workspace_id column for that reason.
--
-- CREATE OR REPLACE: idempotent like IF NOT EXISTS, and a later migration can
-- redefine a view in place.

-- workspaces_v1: the workspaces the control state knows, one row per workspace
-- once merged (newest synced_at wins; read FINAL or argMax). Written by the
-- assembler from the folded control topic whenever a workspace, its organization
-- or its retention changes, and in full at every start; rows are pure functions
-- of the control state, so several assemblers write the same rows.
-- ORDER BY workspace_id: every view joins on it. No TTL: a deleted workspace keeps
-- its row (deleted_at set) so its data stays hidden until retention removes it.
CREATE TABLE IF NOT EXISTS workspaces_v1
(
    workspace_id    UUID,
    org_id          UUID,
    org_slug        String,
    org_name        String,
    workspace_slug  String,
    workspace_name  String,
    retention_hours UInt32                             COMMENT 'Effective retention window: the workspace''s setting when enabled, else the deployment default (SVC_DEFAULT_RETENTION_HOURS)',
    created_at      DateTime64(3, 'UTC'),
    deleted_at      Nullable(DateTime64(3, 'UTC'))     COMMENT 'When the workspace was deleted; NULL while it exists',
    synced_at       DateTime64(3, 'UTC')               COMMENT 'When the assembler wrote this row; the newest row of a workspace wins'
)
ENGINE = ReplacingMergeTree(synced_at)
ORDER BY workspace_id
COMMENT 'Workspaces and their organizations as the control state has them (analytics views join it); newest synced_at wins.';

CREATE DATABASE IF NOT EXISTS analytics COMMENT 'Documented views for analysts (docs/analysts.md); the internal tables live in the service''s own database';

CREATE OR REPLACE VIEW analytics.workspaces
(
    workspace_id    UUID                           COMMENT 'Workspace UUID (ws_id in the API)',
    org_id          UUID                           COMMENT 'Organization UUID (org_id in the API)',
    org_slug        String                         COMMENT 'Organization slug ({org} in the API''s paths)',
    org_name        String                         COMMENT 'Organization display name',
    workspace_slug  String                         COMMENT 'Workspace slug ({ws} in the API''s paths)',
    workspace_name  String                         COMMENT 'Workspace display name',
    retention_hours UInt32                         COMMENT 'Retention window in force: traces that started longer ago than this are not shown by any view',
    created_at      DateTime64(3, 'UTC')           COMMENT 'When the workspace was created'
)
SQL SECURITY DEFINER
AS SELECT workspace_id, org_id, org_slug, org_name, workspace_slug, workspace_name, retention_hours, created_at
FROM workspaces_v1 FINAL
WHERE deleted_at IS NULL
COMMENT 'One row per workspace that exists (deleted workspaces are left out, here and in every other view).';

CREATE OR REPLACE VIEW analytics.spans
(
    workspace_id       UUID                            COMMENT 'Workspace UUID',
    org_slug           String                          COMMENT 'Organization slug',
    workspace_slug     String                          COMMENT 'Workspace slug',
    project_id         LowCardinality(String)          COMMENT 'Project (svc.project_id, else the API key''s project): the agent, for most fleets',
    trace_id           String                          COMMENT '32 hex characters',
    span_id            String                          COMMENT '16 hex characters',
    parent_span_id     String                          COMMENT 'Empty for a root span',
    name               LowCardinality(String)          COMMENT 'Span name',
    kind               LowCardinality(String)          COMMENT 'UNSPECIFIED, INTERNAL, SERVER, CLIENT, PRODUCER or CONSUMER',
    span_type          LowCardinality(String)          COMMENT 'llm, embedding, tool, retrieval, agent, chain or other (normalized from the GenAI, OpenLLMetry and OpenInference conventions)',
    service_name       LowCardinality(String)          COMMENT 'Resource attribute service.name',
    start_time         DateTime64(9, 'UTC')            COMMENT 'Span start (UTC, nanoseconds)',
    end_time           DateTime64(9, 'UTC')            COMMENT 'Span end (UTC, nanoseconds)',
    duration_ms        Float64                         COMMENT 'end_time - start_time in milliseconds (0 when negative)',
    status_code        LowCardinality(String)          COMMENT 'UNSET, OK or ERROR',
    status_message     String                          COMMENT 'Status description (the error message of a failed span)',
    model              LowCardinality(String)          COMMENT 'LLM model (response model, else request model); empty when not an LLM span',
    provider           LowCardinality(String)          COMMENT 'LLM provider (openai, anthropic, ...); empty when unknown',
    input_tokens       UInt64                          COMMENT 'Input tokens of this span alone, cache reads and writes included',
    output_tokens      UInt64                          COMMENT 'Output tokens of this span alone, reasoning included',
    cache_read_tokens  UInt64                          COMMENT 'Input tokens served from the provider''s prompt cache (part of input_tokens)',
    cache_write_tokens UInt64                          COMMENT 'Input tokens written to the provider''s prompt cache (part of input_tokens)',
    reasoning_tokens   UInt64                          COMMENT 'Reasoning tokens (part of output_tokens)',
    cost_usd           Float64                         COMMENT 'Cost of this span alone in USD, priced once when stored',
    cost_source        LowCardinality(String)          COMMENT 'reported (the span carried its cost), priced (price table), unpriced (a model the price table lacks: cost 0) or empty (not an LLM span)',
    is_llm             UInt8                           COMMENT '1 when the span is a call to a model (span_type llm or embedding; agent and tool spans are not)',
    end_user           String                          COMMENT 'Attribute svc.end_user (the end user the agent served); empty when not set',
    attributes         Map(String, String)             COMMENT 'Span attributes; values are strings (non-strings as JSON text). Prompt and completion text only where the workspace captures text',
    resource_attributes Map(String, String)            COMMENT 'Resource attributes (service.name, deployment.environment, ...)',
    received_at        DateTime64(3, 'UTC')            COMMENT 'When ingest accepted the span'
)
SQL SECURITY DEFINER
AS SELECT
    s.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, s.project_id AS project_id, s.trace_id AS trace_id, s.span_id AS span_id, s.parent_span_id AS parent_span_id, s.name AS name, s.kind AS kind, s.span_type AS span_type,
    s.service_name AS service_name, s.start_time AS start_time, s.end_time AS end_time, s.duration_ns / 1e6 AS duration_ms, s.status_code AS status_code, s.status_message AS status_message, s.model AS model, s.provider AS provider,
    s.input_tokens AS input_tokens, s.output_tokens AS output_tokens, s.cache_read_tokens AS cache_read_tokens, s.cache_write_tokens AS cache_write_tokens, s.reasoning_tokens AS reasoning_tokens, s.cost_usd AS cost_usd, s.cost_source AS cost_source, s.is_llm AS is_llm,
    s.attributes['svc.end_user'] AS end_user, s.attributes AS attributes, s.resource_attributes AS resource_attributes, s.received_at AS received_at
FROM spans_v1 AS s FINAL
INNER JOIN (SELECT workspace_id, org_slug, workspace_slug, retention_hours FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON s.workspace_id = w.workspace_id
WHERE s.expires_at > now() AND s.start_time >= now64(9) - toIntervalHour(w.retention_hours)
COMMENT 'One row per span (a span delivered twice is one row), inside its workspace''s retention window.';

CREATE OR REPLACE VIEW analytics.llm_calls
(
    workspace_id          UUID                     COMMENT 'Workspace UUID',
    org_slug              String                   COMMENT 'Organization slug',
    workspace_slug        String                   COMMENT 'Workspace slug',
    project_id            LowCardinality(String)   COMMENT 'Project (the agent)',
    service_name          LowCardinality(String)   COMMENT 'Resource attribute service.name',
    trace_id              String                   COMMENT 'Trace of the call',
    span_id               String                   COMMENT 'The call''s span',
    start_time            DateTime64(9, 'UTC')     COMMENT 'When the call started (UTC)',
    operation             LowCardinality(String)   COMMENT 'llm (chat, text completion) or embedding',
    model                 LowCardinality(String)   COMMENT 'Model that answered (response model, else request model)',
    provider              LowCardinality(String)   COMMENT 'Provider (openai, anthropic, aws.bedrock, ...); empty when unknown',
    input_tokens          UInt64                   COMMENT 'All input tokens, cache reads and writes included',
    uncached_input_tokens UInt64                   COMMENT 'input_tokens minus cache reads and writes: the part billed at the full input price',
    cache_read_tokens     UInt64                   COMMENT 'Input tokens served from the prompt cache',
    cache_write_tokens    UInt64                   COMMENT 'Input tokens written to the prompt cache',
    output_tokens         UInt64                   COMMENT 'All output tokens, reasoning included',
    reasoning_tokens      UInt64                   COMMENT 'Reasoning tokens (part of output_tokens)',
    cost_usd              Float64                  COMMENT 'Cost of the call in USD',
    cost_source           LowCardinality(String)   COMMENT 'reported, priced or unpriced (a model the price table lacks: cost 0)',
    latency_ms            Float64                  COMMENT 'Duration of the call in milliseconds',
    status_code           LowCardinality(String)   COMMENT 'UNSET, OK or ERROR',
    end_user              String                   COMMENT 'Attribute svc.end_user of the span; empty when not set'
)
SQL SECURITY DEFINER
AS SELECT
    workspace_id, org_slug, workspace_slug, project_id, service_name, trace_id, span_id, start_time, span_type AS operation, model, provider,
    input_tokens, input_tokens - least(input_tokens, cache_read_tokens + cache_write_tokens) AS uncached_input_tokens, cache_read_tokens,
    cache_write_tokens, output_tokens, reasoning_tokens, cost_usd, cost_source, duration_ms AS latency_ms, status_code, end_user
FROM analytics.spans
WHERE span_type IN ('llm', 'embedding')
COMMENT 'One row per LLM (or embedding) call: model, provider, tokens by kind, cost and latency.';

CREATE OR REPLACE VIEW analytics.tool_calls
(
    workspace_id   UUID                     COMMENT 'Workspace UUID',
    org_slug       String                   COMMENT 'Organization slug',
    workspace_slug String                   COMMENT 'Workspace slug',
    project_id     LowCardinality(String)   COMMENT 'Project (the agent)',
    service_name   LowCardinality(String)   COMMENT 'Resource attribute service.name',
    trace_id       String                   COMMENT 'Trace of the call',
    span_id        String                   COMMENT 'The call''s span',
    parent_span_id String                   COMMENT 'The span that made the call (often the agent step)',
    tool_name      String                   COMMENT 'gen_ai.tool.name, else tool.name, else traceloop.entity.name, else the span name without "execute_tool " / ".tool"',
    start_time     DateTime64(9, 'UTC')     COMMENT 'When the call started (UTC)',
    duration_ms    Float64                  COMMENT 'Duration of the call in milliseconds',
    status_code    LowCardinality(String)   COMMENT 'UNSET, OK or ERROR',
    is_error       UInt8                    COMMENT '1 when status_code is ERROR',
    error_message  String                   COMMENT 'Status message of a failed call; empty otherwise',
    end_user       String                   COMMENT 'Attribute svc.end_user of the span; empty when not set'
)
SQL SECURITY DEFINER
AS SELECT
    workspace_id, org_slug, workspace_slug, project_id, service_name, trace_id, span_id, parent_span_id,
    multiIf(attributes['gen_ai.tool.name'] != '', attributes['gen_ai.tool.name'],
            attributes['tool.name'] != '', attributes['tool.name'],
            attributes['traceloop.entity.name'] != '', attributes['traceloop.entity.name'],
            replaceRegexpOne(replaceRegexpOne(name, '\\.tool$', ''), '^execute_tool\\s+', '')) AS tool_name,
    start_time, duration_ms, status_code, status_code = 'ERROR' AS is_error, if(status_code = 'ERROR', status_message, '') AS error_message, end_user
FROM analytics.spans
WHERE span_type = 'tool'
COMMENT 'One row per tool call.';

CREATE OR REPLACE VIEW analytics.traces
(
    workspace_id   UUID                           COMMENT 'Workspace UUID',
    org_slug       String                         COMMENT 'Organization slug',
    workspace_slug String                         COMMENT 'Workspace slug',
    project_id     String                         COMMENT 'Project (the agent) of the trace',
    trace_id       String                         COMMENT '32 hex characters',
    trace_start    DateTime64(9, 'UTC')           COMMENT 'Earliest span start',
    trace_end      DateTime64(9, 'UTC')           COMMENT 'Latest span end',
    duration_ms    Float64                        COMMENT 'trace_end - trace_start in milliseconds',
    span_count     Int64                          COMMENT 'Distinct spans stored (each span once, however often it was delivered)',
    cost_usd       Float64                        COMMENT 'Sum of span costs in USD, each span once',
    input_tokens   Int64                          COMMENT 'Sum of LLM input tokens, each span once',
    output_tokens  Int64                          COMMENT 'Sum of LLM output tokens, each span once',
    has_llm        UInt8                          COMMENT '1 when any span of the trace is a call to a model',
    grade          String                         COMMENT 'Newest content-reliability grade (D, C, C+, B-, B, B+, A-, A, A+); empty when never scored or ungradeable',
    grade_rank     Nullable(Int8)                 COMMENT '0 (D) to 8 (A+); NULL without a grade',
    score          Nullable(Float64)              COMMENT 'Reliability score 0-100 of the newest scoring; NULL when never scored or ungradeable',
    scorer_version String                         COMMENT 'Scorer of the newest grade; empty means never scored (non-empty with an empty grade: scored, ungradeable)',
    scored_at      Nullable(DateTime64(3, 'UTC')) COMMENT 'When the newest grade was computed; NULL when never scored'
)
SQL SECURITY DEFINER
AS SELECT
    t.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, t.project_id AS project_id, t.trace_id AS trace_id, t.trace_start AS trace_start, t.trace_end AS trace_end,
    (toUnixTimestamp64Nano(t.trace_end) - toUnixTimestamp64Nano(t.trace_start)) / 1e6 AS duration_ms,
    t.span_count AS span_count, t.cost_usd AS cost_usd, t.input_tokens AS input_tokens, t.output_tokens AS output_tokens, t.has_llm AS has_llm,
    g.grade AS grade, if(g.grade != '', g.grade_rank, NULL) AS grade_rank,
    if(g.grade != '', g.score, NULL) AS score, g.scorer_version AS scorer_version, if(g.scorer_version != '', g.newest_scored_at, NULL) AS scored_at
FROM
(
    SELECT workspace_id, trace_id, any(project_id) AS project_id, min(trace_start) AS trace_start, max(trace_end) AS trace_end,
           sum(span_count) AS span_count, sum(cost_usd_total) AS cost_usd, sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens, max(has_llm) AS has_llm, max(expires_at) AS expires_at
    FROM traces_v1
    GROUP BY workspace_id, trace_id
) AS t
INNER JOIN (SELECT workspace_id, org_slug, workspace_slug, retention_hours FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON t.workspace_id = w.workspace_id
LEFT JOIN
(
    SELECT workspace_id, trace_id, argMax(grade, scored_at) AS grade, argMax(grade_rank, scored_at) AS grade_rank,
           argMax(score, scored_at) AS score, argMax(scorer_version, scored_at) AS scorer_version, max(scored_at) AS newest_scored_at
    FROM trace_scores_v1
    WHERE expires_at > now()
    GROUP BY workspace_id, trace_id
) AS g ON g.workspace_id = t.workspace_id AND g.trace_id = t.trace_id
WHERE t.expires_at > now() AND t.trace_start >= now64(9) - toIntervalHour(w.retention_hours)
COMMENT 'One row per trace inside its workspace''s retention window: totals (each span once) and the newest grade.';

CREATE OR REPLACE VIEW analytics.engine_results
(
    workspace_id      UUID                    COMMENT 'Workspace UUID',
    org_slug          String                  COMMENT 'Organization slug',
    workspace_slug    String                  COMMENT 'Workspace slug',
    trace_id          String                  COMMENT 'The analysed trace',
    engine            LowCardinality(String)  COMMENT 'content_reliability, decision_trace, decomposition, sources, correlation, savings, external_crosscheck or alignment',
    engine_version    String                  COMMENT 'Version of the algorithm that produced the payload',
    mode              String                  COMMENT 'deterministic, or llm when the organization''s model was asked',
    payload           String                  COMMENT 'The result as JSON, in the shape the API serves (docs/engines.md); read fields with JSONExtract*',
    llm_input_tokens  UInt64                  COMMENT 'Tokens the engine sent to an LLM for this result (0 in deterministic mode)',
    llm_output_tokens UInt64                  COMMENT 'Tokens the LLM answered the engine with',
    computed_at       DateTime64(3, 'UTC')    COMMENT 'When the result was computed'
)
SQL SECURITY DEFINER
AS SELECT r.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, r.trace_id AS trace_id, r.engine AS engine, r.engine_version AS engine_version, r.mode AS mode, r.payload AS payload,
          r.llm_input_tokens AS llm_input_tokens, r.llm_output_tokens AS llm_output_tokens, r.newest_computed_at AS computed_at
FROM
(
    SELECT workspace_id, trace_id, engine, argMax(engine_version, computed_at) AS engine_version, argMax(mode, computed_at) AS mode,
           argMax(payload, computed_at) AS payload, argMax(llm_input_tokens, computed_at) AS llm_input_tokens,
           argMax(llm_output_tokens, computed_at) AS llm_output_tokens, max(computed_at) AS newest_computed_at
    FROM engine_results_v1
    WHERE expires_at > now()
    GROUP BY workspace_id, trace_id, engine
) AS r
INNER JOIN (SELECT workspace_id, org_slug, workspace_slug FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON r.workspace_id = w.workspace_id
COMMENT 'The newest result of each engine for each trace (a re-analysed trace shows its newest analysis only).';

CREATE OR REPLACE VIEW analytics.optimization_findings
(
    workspace_id          UUID                    COMMENT 'Workspace UUID',
    org_slug              String                  COMMENT 'Organization slug',
    workspace_slug        String                  COMMENT 'Workspace slug',
    trace_id              String                  COMMENT 'Trace the finding is about',
    span_id               String                  COMMENT 'Span (LLM or tool call) the finding is about',
    kind                  String                  COMMENT 'model_downgrade, prompt_cache (the same prompt answered again), failing_retries, oversized_context or redundant_tool_call (docs/engines.md)',
    engine                LowCardinality(String)  COMMENT 'correlation or savings',
    current_model         String                  COMMENT 'Model of the call',
    suggested_model       String                  COMMENT 'Cheaper model (model_downgrade); empty otherwise',
    estimated_savings_usd Float64                 COMMENT 'What the change would have saved on this call, USD',
    rationale             String                  COMMENT 'Why, in words',
    computed_at           DateTime64(3, 'UTC')    COMMENT 'When the finding''s analysis ran'
)
SQL SECURITY DEFINER
AS SELECT workspace_id, org_slug, workspace_slug, trace_id, JSONExtractString(f, 'span_id') AS span_id, JSONExtractString(f, 'kind') AS kind,
          engine, JSONExtractString(f, 'current_model') AS current_model, JSONExtractString(f, 'suggested_model') AS suggested_model,
          JSONExtractFloat(f, 'estimated_savings_usd') AS estimated_savings_usd, JSONExtractString(f, 'rationale') AS rationale, computed_at
FROM analytics.engine_results
ARRAY JOIN JSONExtractArrayRaw(payload, 'findings') AS f
WHERE engine IN ('correlation', 'savings')
COMMENT 'One row per optimization finding of the newest correlation and savings results.';

CREATE OR REPLACE VIEW analytics.trace_sources
(
    workspace_id   UUID                    COMMENT 'Workspace UUID',
    org_slug       String                  COMMENT 'Organization slug',
    workspace_slug String                  COMMENT 'Workspace slug',
    trace_id       String                  COMMENT 'The trace that used the source',
    domain         String                  COMMENT 'Host of a URL (without www.), or the knowledge-base id of a non-URL document',
    kind           LowCardinality(String)  COMMENT 'internal_kb, web, tool or citation',
    cited          UInt32                  COMMENT '1 when the trace cited the source, 0 when only the verdicts name it',
    supported      UInt32                  COMMENT 'Claims the source backed that proved supported',
    unsupported    UInt32                  COMMENT 'Claims the source backed that proved unsupported or contradicted',
    last_seen      DateTime64(3, 'UTC')    COMMENT 'When the trace used the source',
    analysed_at    DateTime64(3, 'UTC')    COMMENT 'When the trace''s newest analysis ran'
)
SQL SECURITY DEFINER
AS SELECT s.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, s.trace_id AS trace_id, domain, kind, cited, supported, unsupported, last_seen, s.newest_analysed_at AS analysed_at
FROM
(
    SELECT workspace_id, trace_id, max(analysed_at) AS newest_analysed_at, argMax(domains, analysed_at) AS domains, argMax(kinds, analysed_at) AS kinds,
           argMax(citations, analysed_at) AS citations, argMax(supported, analysed_at) AS supported_a,
           argMax(unsupported, analysed_at) AS unsupported_a, argMax(last_seen, analysed_at) AS last_seen_a
    FROM trace_sources_v1
    WHERE expires_at > now()
    GROUP BY workspace_id, trace_id
) AS s
INNER JOIN (SELECT workspace_id, org_slug, workspace_slug FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON s.workspace_id = w.workspace_id
ARRAY JOIN s.domains AS domain, s.kinds AS kind, s.citations AS cited, s.supported_a AS supported, s.unsupported_a AS unsupported, s.last_seen_a AS last_seen
COMMENT 'One row per (trace, source) of each trace''s newest sources analysis.';

CREATE OR REPLACE VIEW analytics.usage_hourly
(
    workspace_id      UUID                    COMMENT 'Workspace UUID',
    org_slug          String                  COMMENT 'Organization slug',
    workspace_slug    String                  COMMENT 'Workspace slug',
    hour              DateTime('UTC')         COMMENT 'Start of the UTC hour the spans started in',
    project_id        LowCardinality(String)  COMMENT 'Project (the agent)',
    model             LowCardinality(String)  COMMENT 'Model; empty for spans without one',
    provider          LowCardinality(String)  COMMENT 'Provider; empty when unknown',
    spans             UInt64                  COMMENT 'Spans that started in the hour (each once)',
    traces            UInt64                  COMMENT 'Root spans: traces that started in the hour',
    llm_calls         UInt64                  COMMENT 'LLM spans',
    unpriced_calls    UInt64                  COMMENT 'LLM spans of models the price table lacks (counted at cost 0)',
    input_tokens      UInt64                  COMMENT 'Input tokens, cache reads and writes included',
    output_tokens     UInt64                  COMMENT 'Output tokens, reasoning included',
    cache_read_tokens UInt64                  COMMENT 'Input tokens served from the prompt cache',
    reasoning_tokens  UInt64                  COMMENT 'Reasoning tokens',
    cost_usd          Float64                 COMMENT 'Cost in USD'
)
SQL SECURITY DEFINER
AS SELECT u.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, u.hour AS hour, u.project_id AS project_id, u.model AS model, u.provider AS provider, u.spans AS spans, u.traces AS traces, u.llm_calls AS llm_calls,
          u.unpriced_calls AS unpriced_calls, u.input_tokens AS input_tokens, u.output_tokens AS output_tokens, u.cache_read_tokens AS cache_read_tokens, u.reasoning_tokens AS reasoning_tokens, u.cost_usd AS cost_usd
FROM
(
    SELECT workspace_id, hour, project_id, model, provider, sum(spans) AS spans, sum(traces) AS traces, sum(llm_calls) AS llm_calls,
           sum(unpriced_calls) AS unpriced_calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens, sum(reasoning_tokens) AS reasoning_tokens, sum(cost_usd) AS cost_usd
    FROM usage_hourly_v1
    GROUP BY workspace_id, hour, project_id, model, provider
) AS u
INNER JOIN (SELECT workspace_id, org_slug, workspace_slug FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON u.workspace_id = w.workspace_id
COMMENT 'Hourly usage and cost per project, model and provider; kept 400 days, beyond the retention of raw traces.';

CREATE OR REPLACE VIEW analytics.coding_agent_usage
(
    workspace_id          String                  COMMENT 'Workspace UUID',
    org_slug              String                  COMMENT 'Organization slug',
    workspace_slug        String                  COMMENT 'Workspace slug',
    day                   Date                    COMMENT 'UTC day of the activity',
    agent                 String                  COMMENT 'claude_code, codex, or the activity record''s / exporter''s agent name',
    employee              String                  COMMENT 'The developer: user.email, else the account id; empty when the agent sent none',
    session_id            String                  COMMENT 'session.id (Claude Code) or conversation.id (Codex)',
    model                 String                  COMMENT 'Model; empty where the source names none',
    cost_usd              Float64                 COMMENT 'Cost in USD: from the cost metric when the session sent it, else from its api_request events',
    input_tokens          Float64                 COMMENT 'Input tokens (cache reads and writes excluded, Claude Code''s meaning): metric when sent, else events',
    output_tokens         Float64                 COMMENT 'Output tokens: metric when sent, else events',
    cache_read_tokens     Float64                 COMMENT 'Cache-read tokens: metric when sent, else events',
    cache_creation_tokens Float64                 COMMENT 'Cache-creation tokens: metric when sent, else events',
    lines_added           Float64                 COMMENT 'Lines added: lines_of_code metric when sent, else activity file edits',
    lines_removed         Float64                 COMMENT 'Lines removed: as lines_added',
    api_requests          UInt64                  COMMENT 'Model requests (api_request / model_response events)',
    prompts               UInt64                  COMMENT 'User prompts',
    tool_calls            UInt64                  COMMENT 'Tool results'
)
SQL SECURITY DEFINER
AS WITH
    flags AS
    (
        SELECT workspace_id, session_id,
               max(metric_name = 'claude_code.cost.usage') AS has_cost, max(metric_name = 'claude_code.token.usage') AS has_tokens,
               max(metric_name = 'claude_code.lines_of_code.count') AS has_lines
        FROM coding_agent_metrics_v1
        WHERE metric_name IN ('claude_code.cost.usage', 'claude_code.token.usage', 'claude_code.lines_of_code.count')
        GROUP BY workspace_id, session_id
    ),
    parts AS
    (
        SELECT workspace_id, toDate(fromUnixTimestamp64Nano(toInt64(time_ns), 'UTC')) AS day, agent, employee, session_id, model,
               sumIf(delta, metric_name = 'claude_code.cost.usage') AS m_cost,
               sumIf(delta, metric_name = 'claude_code.token.usage' AND type = 'input') AS m_input,
               sumIf(delta, metric_name = 'claude_code.token.usage' AND type = 'output') AS m_output,
               sumIf(delta, metric_name = 'claude_code.token.usage' AND type = 'cacheRead') AS m_cache_read,
               sumIf(delta, metric_name = 'claude_code.token.usage' AND type = 'cacheCreation') AS m_cache_creation,
               sumIf(delta, metric_name = 'claude_code.lines_of_code.count' AND type = 'added') AS m_added,
               sumIf(delta, metric_name = 'claude_code.lines_of_code.count' AND type = 'removed') AS m_removed,
               toFloat64(0) AS e_cost, toFloat64(0) AS e_input, toFloat64(0) AS e_output, toFloat64(0) AS e_cache_read,
               toFloat64(0) AS e_cache_creation, toFloat64(0) AS e_added, toFloat64(0) AS e_removed,
               toUInt64(0) AS requests, toUInt64(0) AS prompt_count, toUInt64(0) AS tool_count
        FROM coding_agent_metrics_v1 FINAL
        GROUP BY workspace_id, day, agent, employee, session_id, model
        UNION ALL
        SELECT workspace_id, toDate(event_time) AS day, agent, employee, session_id, model,
               toFloat64(0), toFloat64(0), toFloat64(0), toFloat64(0), toFloat64(0), toFloat64(0), toFloat64(0),
               toFloat64(sum(cost_usd)), toFloat64(sum(input_tokens)), toFloat64(sum(output_tokens)), toFloat64(sum(cache_read_tokens)),
               toFloat64(sum(cache_creation_tokens)), toFloat64(sum(lines_added)), toFloat64(sum(lines_removed)),
               countIf(event_name IN ('api_request', 'model_response') AND NOT (agent = 'codex' AND event_name = 'api_request')),
               countIf(event_name = 'user_prompt'), countIf(event_name = 'tool_result')
        FROM coding_agent_events_v1 FINAL
        GROUP BY workspace_id, day, agent, employee, session_id, model
    )
SELECT p.workspace_id AS workspace_id, w.org_slug AS org_slug, w.workspace_slug AS workspace_slug, p.day AS day, p.agent AS agent, p.employee AS employee, p.session_id AS session_id, p.model AS model,
       sum(if(f.has_cost, p.m_cost, p.e_cost)) AS cost_usd, sum(if(f.has_tokens, p.m_input, p.e_input)) AS input_tokens,
       sum(if(f.has_tokens, p.m_output, p.e_output)) AS output_tokens, sum(if(f.has_tokens, p.m_cache_read, p.e_cache_read)) AS cache_read_tokens,
       sum(if(f.has_tokens, p.m_cache_creation, p.e_cache_creation)) AS cache_creation_tokens,
       sum(if(f.has_lines, p.m_added, p.e_added)) AS lines_added, sum(if(f.has_lines, p.m_removed, p.e_removed)) AS lines_removed,
       sum(p.requests) AS api_requests, sum(p.prompt_count) AS prompts, sum(p.tool_count) AS tool_calls
FROM parts AS p
INNER JOIN (SELECT toString(workspace_id) AS workspace_id, org_slug, workspace_slug FROM workspaces_v1 FINAL WHERE deleted_at IS NULL) AS w
    ON p.workspace_id = w.workspace_id
LEFT JOIN flags AS f ON f.workspace_id = p.workspace_id AND f.session_id = p.session_id
GROUP BY p.workspace_id, w.org_slug, w.workspace_slug, p.day, p.agent, p.employee, p.session_id, p.model
COMMENT 'Coding-agent usage per UTC day, agent, developer, session and model; each figure counted once (metric or events, never both).';
