-- dead_letters_v1: where a consumer read the record it dead-lettered (runConsumer,
-- services/shared/src/bus/run-consumer.ts), so the same record dead-lettered twice
-- (a crash between the dead letter and its batch's commit) is counted once by
-- ingestion health, and an operator can find it on its topic. Items rejected at
-- ingest have none (empty topic, -1).
ALTER TABLE dead_letters_v1
    ADD COLUMN IF NOT EXISTS original_topic LowCardinality(String) DEFAULT '' COMMENT 'Topic the record was read from; empty for an item rejected at ingest',
    ADD COLUMN IF NOT EXISTS original_partition Int32 DEFAULT -1,
    ADD COLUMN IF NOT EXISTS original_offset Int64 DEFAULT -1
