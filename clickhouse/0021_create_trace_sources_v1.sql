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
-- unit replaced. TTL: the trace's own expiry, as its other derived rows.
CREATE TABLE IF NOT EXISTS trace_sources_v1
(
    workspace_id UUID,
    trace_id     String                                COMMENT 'Empty for the legacy row carrying sources_v1 totals',
    analysed_at  DateTime64(3, 'UTC')                  COMMENT 'computed_at of the result; the newest analysis of a trace wins',
    domains      Array(String)                         COMMENT 'Host of a URL, or the knowledge-base id of a non-URL document',
    kinds        Array(LowCardinality(String))         COMMENT 'internal_kb, web, tool or citation',
    citations    Array(UInt32)                         COMMENT 'Uses of the source: 1 per trace (the legacy row: sources_v1 totals)',
    supported    Array(UInt32)                         COMMENT 'Claims backed by the source that proved supported',
    unsupported  Array(UInt32)                         COMMENT 'Claims backed by the source that proved unsupported or contradicted',
    last_seen    Array(DateTime64(3, 'UTC'))           COMMENT 'When the trace used the source',
    expires_at   DateTime('UTC')
)
ENGINE = ReplacingMergeTree(analysed_at)
ORDER BY (workspace_id, trace_id)
TTL expires_at DELETE
COMMENT 'Per trace: the sources it used; read the newest row per trace and sum by (domain, kind).';

-- What sources_v1 counted before this migration, carried over as one row per
-- workspace (no trace: those totals cannot be split by trace). Repeating this (two
-- processes migrating at once) writes the same rows, which collapse. sources_v1 is
-- left in place, no longer written.
INSERT INTO trace_sources_v1 (workspace_id, trace_id, analysed_at, domains, kinds, citations, supported, unsupported, last_seen, expires_at)
SELECT workspace_id, '', toDateTime64(0, 3, 'UTC'), groupArray(domain), groupArray(kind), groupArray(toUInt32(c)), groupArray(toUInt32(s)), groupArray(toUInt32(u)), groupArray(ls),
       toDateTime('2106-02-07 00:00:00', 'UTC')
FROM
(
    SELECT workspace_id, domain, kind, sum(citations) AS c, sum(supported) AS s, sum(unsupported) AS u, max(last_seen) AS ls
    FROM sources_v1
    GROUP BY workspace_id, domain, kind
    ORDER BY workspace_id, domain, kind
)
GROUP BY workspace_id;
