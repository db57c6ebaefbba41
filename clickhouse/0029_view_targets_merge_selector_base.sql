-- The tables spans_v1's materialized views write (traces_v1 and its copies
-- trace_list_v1 and trace_starts_v1, usage_hourly_v1, latency_hourly_v1,
-- phase_traces_v1): merges pick wider ranges of parts (merge_selector_base 20,
-- default 5), as spans_v1's do since 0028.
--
-- Why: every spans_v1 insert makes a small part in each of these six tables, so
-- they take six times as many parts as spans_v1, each of a few hundred rows, and a
-- merge costs milliseconds of fixed work whatever its size. With the default base
-- they merged about 20 times as often as spans_v1 for a fifth of its rows. Measured
-- alone (chdb, bench:ingest's 1.3M spans re-inserted into spans_v1 with every view
-- attached, 12,500-row inserts as under load, optimize_on_insert 0 as the store
-- sets it, until merges went quiet): 10.55 / 10.70 us of ClickHouse CPU per span
-- with the default, 9.76 / 9.51 with 20; merges 128 -> 43.
--
-- What it costs: more active parts in each (5-9 rather than 1-6 after those 1.3M
-- spans). Their reads are roll-up sums, the drill-down's top values and look-ups
-- by key, one index search per part; bench:query's figures are taken on settled
-- tables either way.
--
-- An expert MergeTree setting (see 0028).
ALTER TABLE traces_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE trace_list_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE trace_starts_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE usage_hourly_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE latency_hourly_v1 MODIFY SETTING merge_selector_base = 20;
ALTER TABLE phase_traces_v1 MODIFY SETTING merge_selector_base = 20;
