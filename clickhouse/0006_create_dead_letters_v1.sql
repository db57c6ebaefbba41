-- dead_letters_v1: spans rejected inside an accepted ingest batch (and, later,
-- engine jobs that kept failing), landed from the .dlq topics. Ingestion health
-- counts them per workspace per hour.
--
-- ORDER BY (workspace_id, received_at, dlq_topic, dlq_partition, dlq_offset): reads
-- are "this workspace, the last hour"; the topic position makes a replayed record
-- collapse (ReplacingMergeTree) instead of being counted twice.
CREATE TABLE IF NOT EXISTS dead_letters_v1
(
    org_id        String,
    workspace_id  String,
    source        LowCardinality(String) COMMENT 'Where it was rejected: ingest.otlp, assembler, ...',
    reason        String,
    payload       String COMMENT 'The rejected item as JSON text (truncated)' CODEC(ZSTD(3)),
    received_at   DateTime64(3, 'UTC'),
    dlq_topic     LowCardinality(String),
    dlq_partition UInt32,
    dlq_offset    UInt64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (workspace_id, received_at, dlq_topic, dlq_partition, dlq_offset)
TTL toDateTime(received_at) + INTERVAL 30 DAY DELETE
COMMENT 'Rejected records, one row each.'
