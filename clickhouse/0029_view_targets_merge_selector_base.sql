-- traces_v1, usage_hourly_v1 and latency_hourly_v1, which spans_v1's views write:
-- merges pick wider ranges of parts (merge_selector_base 20, default 5), as
-- spans_v1's do since 0028.
--
-- Why: every spans_v1 insert makes a small part in each table its views write, a
-- few hundred rows each, and a merge costs milliseconds of fixed work whatever its
-- size; at the default base these tables merge far more often than spans_v1 for a
-- fraction of its rows. Measured alone (chdb, bench:ingest's 1.3M spans re-inserted
-- into spans_v1 in 12,500-row inserts with every view attached, optimize_on_insert 0
-- as the store sets it, until merges went quiet): 9.96 / 9.79 us of ClickHouse CPU
-- per span with the default, 9.84 / 9.65 with 20 on these three.
--
-- Not on the other three view targets: trace_list_v1 and trace_starts_v1 (the trace
-- list) and phase_traces_v1 (the latency drill-down) are read by key and in order,
-- part by part, and with 20 they settled at 18 parts instead of 3-4 after
-- bench:query's 100M-span seed: first page p95 50.6 instead of 35.1 ms, the time
-- window 58.7 instead of 37.8. The three here are read as sums (usage and latency
-- panels, the assembler's per-batch look-up of known traces), where a few more
-- parts cost little.
--
-- An expert MergeTree setting (see 0028).
ALTER TABLE traces_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE usage_hourly_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE latency_hourly_v1 MODIFY SETTING merge_selector_base = 20;
