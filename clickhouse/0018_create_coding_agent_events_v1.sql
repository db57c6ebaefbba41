-- coding_agent_events_v1: coding-agent events (Claude Code's api_request,
-- user_prompt, tool_result, tool_decision, api_error; Codex CLI's codex.* events;
-- activity records), one row per event, landed by the coding-agent consumer from
-- coding-agent.events.v1. The usage rollup sums cost and tokens of api_request
-- events for sessions without the corresponding metric (docs/coding-agent.md:
-- cost is never counted twice) and counts prompts, tool calls and requests.
--
-- event_id is a hash of the whole record, so a record delivered twice collapses
-- (ReplacingMergeTree; reads use FINAL).
-- ORDER BY (workspace_id, event_time, event_id): reads are "this workspace, this
-- window".
-- TTL 400 days.
CREATE TABLE IF NOT EXISTS coding_agent_events_v1
(
    workspace_id          String,
    event_time            DateTime64(3, 'UTC'),
    event_id              String                 COMMENT 'sha256 (hex, 32 chars) of the record',
    agent                 LowCardinality(String) COMMENT 'claude_code, codex, or the activity record''s agent',
    event_name            LowCardinality(String) COMMENT 'Normalized: api_request, model_response, user_prompt, tool_result, tool_decision, api_error, commit, file_edit, pull_request, ...',
    employee              String,
    session_id            String,
    model                 LowCardinality(String),
    cost_usd              Float64,
    input_tokens          UInt64                 COMMENT 'Excluding cache reads and writes (Claude Code''s meaning)',
    output_tokens         UInt64,
    cache_read_tokens     UInt64,
    cache_creation_tokens UInt64,
    lines_added           UInt64,
    lines_removed         UInt64,
    duration_ms           Float64,
    tool_name             LowCardinality(String),
    success               Int8                   COMMENT '1 success, 0 failure, -1 not stated',
    decision              LowCardinality(String) COMMENT 'tool_decision: accept or reject',
    attributes            Map(String, String)    CODEC(ZSTD(3)),
    received_at           DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(event_time)
ORDER BY (workspace_id, event_time, event_id)
TTL toDateTime(event_time) + INTERVAL 400 DAY DELETE
COMMENT 'Coding-agent events, one row each.'
