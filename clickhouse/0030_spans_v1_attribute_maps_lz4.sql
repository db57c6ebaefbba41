-- spans_v1's attribute maps compressed with LZ4 instead of ZSTD(1).
--
-- Why: the two maps are most of a row's bytes (on bench:ingest's agent spans ~200
-- of ~460 uncompressed bytes a row), and every part holding them is compressed once
-- when inserted and again by each merge that rewrites it, decompressed on the way.
-- LZ4 does both several times faster than ZSTD. Measured alone (chdb, bench:ingest's
-- 1.3M spans re-inserted into spans_v1 in 12,500-row inserts, until merges went
-- quiet): 5.73 instead of 6.65-6.91 us of ClickHouse CPU per span; compressing the
-- ids or the events and links with LZ4 as well saved little more and cost more disk
-- (random hex ids compress about half as well without ZSTD's entropy coding).
--
-- What it costs: disk. spans_v1 on those spans took 61.7 MiB instead of 52.6 MiB
-- (+17%); the maps themselves compress ~8x instead of ~15x. Parts written before
-- this keep ZSTD until a merge rewrites them; either codec reads the same.
ALTER TABLE spans_v1
    MODIFY COLUMN resource_attributes Map(String, String) CODEC(LZ4),
    MODIFY COLUMN attributes          Map(String, String) CODEC(LZ4);
