-- trace_sources_v1: the sources each analysed trace used, one row per trace, so the
-- source list and the learned authority priors count every trace once however
-- often its result is delivered or its analysis repeated.
--
-- Replaces sources_v1, whose rows added up: a results batch replayed after a crash,
-- or a trace analysed again (a late span re-arms its completion), counted its
-- citations and verdicts twice. Here a trace's row holds its sources (parallel
-- arrays: one entry per (domain, kind) it used, with its citation and the claims
-- the source backed that proved supported or unsupported) and the analysis it
-- came from (analysed_at = the result's computed_at): a replayed result is the
-- same row, a newer analysis replaces the older one whole (a source it no longer
-- uses disappears with it). Reads take each trace's newest row
-- (argMax(..., analysed_at) per trace, exact before merges too) and sum by source.
--
-- ORDER BY (workspace_id, trace_id): the list reads one workspace; a trace is the
-- unit replaced. TTL: the trace's own expiry, as its other derived rows (the
-- retention sweep deletes them with their trace).
--
-- sources_v1 is left as it was, no longer written: what it counted before this
-- migration is added on read (a trace analysed before and again after it counts
-- in both).
CREATE TABLE IF NOT EXISTS trace_sources_v1
(
    workspace_id UUID,
    trace_id     String,
    analysed_at  DateTime64(3, 'UTC')                  COMMENT 'computed_at of the result; the newest analysis of a trace wins',
    domains      Array(String)                         COMMENT 'Host of a URL, or the knowledge-base id of a non-URL document',
    kinds        Array(LowCardinality(String))         COMMENT 'internal_kb, web, tool or citation',
    citations    Array(UInt32)                         COMMENT '1 when the trace cited the source, 0 when only verdicts name it',
    supported    Array(UInt32)                         COMMENT 'Claims backed by the source that proved supported',
    unsupported  Array(UInt32)                         COMMENT 'Claims backed by the source that proved unsupported or contradicted',
    last_seen    Array(DateTime64(3, 'UTC'))           COMMENT 'When the trace used the source',
    expires_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree(analysed_at)
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
COMMENT 'Per trace: the sources it used; read the newest row per trace and sum by (domain, kind).'
