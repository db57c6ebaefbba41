-- usage_hourly_v1 / latency_hourly_v1: hourly roll-ups of spans_v1 for the usage,
-- cost and latency panels, maintained by materialized views inside every spans_v1
-- insert, so the panels read a few rows per hour instead of scanning spans.
--
-- Why views (not the assembler): the roll-up is a pure function of each inserted
-- block, and the view runs in the same insert, so a panel is as fresh as the trace
-- list. Only first deliveries count (first_delivery = 1, marked by the assembler),
-- so a client retry or a replay adds nothing. (A crash between a spans_v1 part and
-- its view parts can leave an hour short by that batch; traces_v1 is reconciled for
-- that, roll-ups are not.)
--
-- ORDER BY (workspace_id, hour, ...): every panel reads one workspace over a window
-- of hours. Hours keep rolling windows (last 24 h, 7 d, 30 d) exact to the hour and
-- sum into calendar days for the time series. TTL: 400 days, beyond any retention.

CREATE TABLE IF NOT EXISTS usage_hourly_v1
(
    workspace_id       UUID,
    hour               DateTime('UTC')                        COMMENT 'Start of the UTC hour the spans started in',
    project_id         LowCardinality(String),
    model              LowCardinality(String)                 COMMENT 'Empty for spans without a model',
    provider           LowCardinality(String),
    spans              SimpleAggregateFunction(sum, UInt64),
    traces             SimpleAggregateFunction(sum, UInt64)   COMMENT 'Root spans (parent_span_id empty): traces that started in the hour',
    llm_calls          SimpleAggregateFunction(sum, UInt64),
    unpriced_calls     SimpleAggregateFunction(sum, UInt64)   COMMENT 'LLM spans of models the price table lacks (cost 0)',
    input_tokens       SimpleAggregateFunction(sum, UInt64),
    output_tokens      SimpleAggregateFunction(sum, UInt64),
    cache_read_tokens  SimpleAggregateFunction(sum, UInt64),
    reasoning_tokens   SimpleAggregateFunction(sum, UInt64),
    cost_usd           SimpleAggregateFunction(sum, Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, hour, project_id, model, provider)
TTL hour + INTERVAL 400 DAY DELETE
COMMENT 'Hourly usage and cost per project and model; sum the columns when reading.';

CREATE MATERIALIZED VIEW IF NOT EXISTS usage_hourly_v1_mv TO usage_hourly_v1 AS
SELECT
    workspace_id,
    toStartOfHour(start_time)                 AS hour,
    project_id,
    model,
    provider,
    toUInt64(count())                         AS spans,
    toUInt64(countIf(parent_span_id = ''))    AS traces,
    toUInt64(countIf(is_llm = 1))             AS llm_calls,
    toUInt64(countIf(cost_source = 'unpriced')) AS unpriced_calls,
    sum(input_tokens)                         AS input_tokens,
    sum(output_tokens)                        AS output_tokens,
    sum(cache_read_tokens)                    AS cache_read_tokens,
    sum(reasoning_tokens)                     AS reasoning_tokens,
    sum(cost_usd)                             AS cost_usd
FROM spans_v1
WHERE first_delivery = 1
GROUP BY workspace_id, hour, project_id, model, provider;

-- Latency by phase (shared/src/domain/genai.ts: llm, tool, retrieval, embedding,
-- agent, other; chains count as agent). quantilesTDigest states merge across hours,
-- so p50/p95/p99 of any window come from its hours' states.
CREATE TABLE IF NOT EXISTS latency_hourly_v1
(
    workspace_id UUID,
    hour         DateTime('UTC'),
    phase        LowCardinality(String),
    calls        SimpleAggregateFunction(sum, UInt64),
    errors       SimpleAggregateFunction(sum, UInt64)         COMMENT 'Spans with status ERROR',
    duration_ms  AggregateFunction(quantilesTDigest(0.5, 0.95, 0.99), Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, hour, phase)
TTL hour + INTERVAL 400 DAY DELETE
COMMENT 'Hourly span latency per phase; merge duration_ms with quantilesTDigestMerge(0.5, 0.95, 0.99).';

CREATE MATERIALIZED VIEW IF NOT EXISTS latency_hourly_v1_mv TO latency_hourly_v1 AS
SELECT
    workspace_id,
    toStartOfHour(start_time)                                    AS hour,
    multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type) AS phase,
    toUInt64(count())                                            AS calls,
    toUInt64(countIf(status_code = 'ERROR'))                     AS errors,
    quantilesTDigestState(0.5, 0.95, 0.99)(duration_ns / 1e6)    AS duration_ms
FROM spans_v1
WHERE first_delivery = 1
GROUP BY workspace_id, hour, phase;

-- Spans stored before this migration: rolled up once, here (migrations run before
-- any service consumes, so no insert races the backfill).
INSERT INTO usage_hourly_v1
SELECT workspace_id, toStartOfHour(start_time), project_id, model, provider, toUInt64(count()), toUInt64(countIf(parent_span_id = '')),
       toUInt64(countIf(is_llm = 1)), toUInt64(countIf(cost_source = 'unpriced')), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(reasoning_tokens), sum(cost_usd)
FROM spans_v1 WHERE first_delivery = 1
GROUP BY workspace_id, toStartOfHour(start_time), project_id, model, provider;

INSERT INTO latency_hourly_v1
SELECT workspace_id, toStartOfHour(start_time), multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type),
       toUInt64(count()), toUInt64(countIf(status_code = 'ERROR')), quantilesTDigestState(0.5, 0.95, 0.99)(duration_ns / 1e6)
FROM spans_v1 WHERE first_delivery = 1
GROUP BY workspace_id, toStartOfHour(start_time), multiIf(span_type = 'chain', 'agent', span_type = '', 'other', span_type);
