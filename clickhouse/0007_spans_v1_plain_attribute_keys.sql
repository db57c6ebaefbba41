-- spans_v1: attribute map keys (and json_attribute_keys) as plain String instead of
-- LowCardinality(String).
--
-- Why: LowCardinality builds a dictionary per column per inserted part; for map
-- keys that is one dictionary lookup per attribute of every span, on the hottest
-- write path. Measured on the benchmark's agent spans (tests/bench, chdb, 20k-row
-- inserts): +20-30% insert throughput without it. Keys stay cheap to store (ZSTD
-- compresses the few distinct key names of a part to almost nothing) and reads of
-- one attribute (attributes['gen_ai.request.model']) are unchanged.
--
-- On a table that already holds data this is a mutation that rewrites the three
-- columns in the background; reads and inserts continue meanwhile.
ALTER TABLE spans_v1
    MODIFY COLUMN resource_attributes Map(String, String) CODEC(ZSTD(1)),
    MODIFY COLUMN attributes          Map(String, String) CODEC(ZSTD(1)),
    MODIFY COLUMN json_attribute_keys Array(String) COMMENT 'Keys whose value is JSON text, not a plain string';
