-- spans_v1: every span, one row each, as the assembler wrote it.
--
-- ORDER BY (workspace_id, trace_id, span_id): every read is per workspace, and the
-- hot reads (trace detail, the trace list's second phase) fetch whole traces, so a
-- trace's spans sit together in one or two granules. Only fields that never change
-- after insert are in the key; a trace's start time (the min over its spans) can
-- move when a late span arrives, so it lives in traces_v1, not here.
--
-- ReplacingMergeTree(received_at): a span delivered twice (a client retry, or the
-- assembler replaying after a crash) collapses to one row on merge; queries that
-- sum over spans also de-duplicate by (trace_id, span_id) so they are exact before
-- the merge happens. first_delivery marks the copy that counts in traces_v1's sums:
-- the assembler sets it to 0 for a span it finds already stored.
--
-- TTL expires_at: each row carries its own expiry (start time + the workspace's
-- retention when it was written), so workspaces can keep data for different
-- lengths of time in one table. Partitions by expiry month keep part counts low
-- and let ClickHouse drop whole expired parts.
--
-- SETTINGS: reads fetch a few whole traces out of millions of rows, so the unit
-- of reading is kept small. index_granularity 1024 (default 8192) and compressed
-- blocks of 4-16 KiB (default 64 KiB-1 MiB) mean a 50-trace lookup decompresses
-- about a megabyte instead of tens; it costs ~10% in compression ratio. Measured
-- with tests/bench/list-traces.ts: the trace list's per-page sums went from
-- ~30 ms to ~15 ms at 1M spans.
--
-- Attribute maps follow the OpenTelemetry Collector's ClickHouse exporter: values
-- are strings; a value that was not a string is stored as JSON text and its key is
-- listed in json_attribute_keys (resource keys prefixed 'resource.').
CREATE TABLE IF NOT EXISTS spans_v1
(
    org_id              UUID                                  COMMENT 'Organization that owns the span',
    workspace_id        UUID                                  COMMENT 'Workspace, from the API key of the ingest request',
    project_id          LowCardinality(String)                COMMENT 'svc.project_id attribute, else the API key project',
    trace_id            String             COMMENT '32 hex characters'     CODEC(ZSTD(1)),
    span_id             String             COMMENT '16 hex characters'     CODEC(ZSTD(1)),
    parent_span_id      String             COMMENT 'Empty string for a root span'     CODEC(ZSTD(1)),
    name                LowCardinality(String),
    kind                LowCardinality(String)                COMMENT 'UNSPECIFIED, INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER',
    start_time          DateTime64(9, 'UTC') CODEC(Delta, ZSTD(1)),
    end_time            DateTime64(9, 'UTC') CODEC(Delta, ZSTD(1)),
    duration_ns         UInt64                                COMMENT 'end_time - start_time, 0 if negative',
    status_code         LowCardinality(String)                COMMENT 'UNSET, OK or ERROR',
    status_message      String,
    service_name        LowCardinality(String)                COMMENT 'Resource attribute service.name',
    scope_name          LowCardinality(String)                COMMENT 'Instrumentation scope',
    model               LowCardinality(String)                COMMENT 'LLM model (gen_ai.response.model, else gen_ai.request.model); empty if not an LLM span',
    input_tokens        UInt64                                COMMENT 'Prompt tokens of this span alone',
    output_tokens       UInt64                                COMMENT 'Completion tokens of this span alone',
    cost_usd            Float64                               COMMENT 'Cost of this span alone, USD',
    is_llm              UInt8                                 COMMENT '1 when the span carries LLM content (gen_ai.*, llm.*)',
    resource_attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    attributes          Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    json_attribute_keys Array(LowCardinality(String))         COMMENT 'Keys whose value is JSON text, not a plain string',
    events              String             COMMENT 'Span events, JSON array'     CODEC(ZSTD(3)),
    links               String             COMMENT 'Span links, JSON array'     CODEC(ZSTD(3)),
    received_at         DateTime64(3, 'UTC')                  COMMENT 'When ingest accepted the span',
    first_delivery      UInt8 DEFAULT 1                       COMMENT '1 on the first stored copy of a span, 0 on a redelivery (set by the assembler)',
    expires_at          DateTime('UTC')                       COMMENT 'Row is deleted by TTL after this time'
)
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(expires_at)
ORDER BY (workspace_id, trace_id, span_id)
TTL expires_at DELETE
SETTINGS index_granularity = 1024, min_compress_block_size = 4096, max_compress_block_size = 16384
COMMENT 'One row per span. Query with the workspace_id first; de-duplicate by (trace_id, span_id) when summing.'
