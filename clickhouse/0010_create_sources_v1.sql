-- sources_v1: the sources a workspace's agents cite (retrieved documents' domains or
-- knowledge-base ids, web results), with the learned authority prior of each.
--
-- Two kinds of rows land here, both additive: citation rows (citations = n,
-- last_seen) written when traces use a source, and prior updates written by the
-- sources engine as a source's claims prove supported or not (supported /
-- unsupported counts). The prior is read, not stored: a Beta(1, 1) posterior mean,
-- (1 + supported) / (2 + supported + unsupported), so it starts neutral at 0.5 and
-- moves with evidence, and concurrent writers never overwrite each other.
--
-- ORDER BY (workspace_id, domain, kind): the list reads one workspace; a source is
-- its domain (or KB id) and kind. Merges fold the rows of a source (sums and max).
CREATE TABLE IF NOT EXISTS sources_v1
(
    workspace_id UUID,
    domain       String                    COMMENT 'Host of a URL (kb.example.com), or the knowledge-base id of a non-URL document',
    kind         LowCardinality(String)    COMMENT 'internal_kb, web, tool or citation',
    citations    SimpleAggregateFunction(sum, UInt64)                    COMMENT 'Times a trace used the source',
    supported    SimpleAggregateFunction(sum, UInt64)                    COMMENT 'Claims backed by the source that proved supported (sources engine)',
    unsupported  SimpleAggregateFunction(sum, UInt64)                    COMMENT 'Claims backed by the source that proved unsupported (sources engine)',
    last_seen    SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (workspace_id, domain, kind)
COMMENT 'Sum citations, supported, unsupported and take max(last_seen) per (workspace_id, domain, kind) when reading.'
