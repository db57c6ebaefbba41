-- trace_starts_v1 carries each row's project and has_llm, so the trace list's
-- candidate scan can leave out, before looking them up by id, the traces that
-- cannot pass a project or LLM filter (queries/trace-list.ts plausibleIds). A
-- project filter kept a fifth of the looked-up traces: a page of 50 looked up
-- about 500 traces, most of the page's time at 100M spans.
--
-- A trace's project in the list is any() over its trace_list_v1 rows and has_llm
-- the max, so a trace can pass only if one of its rows has the project (an LLM
-- span); a trace whose rows all lie in the scanned range can be left out when none
-- of them does. Both columns are in the key, so rows of one trace and start that
-- differ in them (a repeat of part of an insert) stay apart instead of replacing
-- each other: no value a trace_list_v1 row holds is lost here.
--
-- Rows written before this migration get '' and 0, the type defaults (the key can
-- only take columns added without a default); they are deleted (the mutation
-- rewrites only the parts that exist when it is made) and written again from
-- trace_list_v1's rows with their values. trace_list_v1's rows hold every trace's
-- start, so the scan still finds every trace at or before its start. Migrations
-- run before any service consumes, so the view writes nothing meanwhile; a re-run
-- deletes and writes the same rows again.
ALTER TABLE trace_starts_v1
    ADD COLUMN IF NOT EXISTS project_id String COMMENT 'Project of the traces_v1 row (any over the insert''s spans)' AFTER trace_id,
    ADD COLUMN IF NOT EXISTS has_llm UInt8 COMMENT '1 when one of the insert''s spans carries LLM content' AFTER project_id,
    MODIFY ORDER BY (workspace_id, trace_start, trace_id, project_id, has_llm);

ALTER TABLE trace_starts_v1 DELETE WHERE project_id = '' AND has_llm = 0;

ALTER TABLE trace_starts_v1_mv MODIFY QUERY
SELECT workspace_id, trace_start, trace_id, project_id, has_llm, expires_at
FROM traces_v1;

INSERT INTO trace_starts_v1 (workspace_id, trace_start, trace_id, project_id, has_llm, expires_at)
SELECT workspace_id, trace_start, trace_id, project_id, has_llm, expires_at
FROM trace_list_v1;
