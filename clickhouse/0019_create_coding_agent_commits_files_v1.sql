-- coding_agent_commits_v1 and coding_agent_file_edits_v1: what GET
-- .../coding-agent/commits and .../coding-agent/top-files read, derived by the
-- coding-agent consumer from events (docs/coding-agent.md): commits from Claude
-- Code tool_result events whose tool_parameters carry git_commit_id and from
-- activity commit records; file edits from Edit/Write/MultiEdit/NotebookEdit
-- tool_result events (file_path), Codex apply_patch tool results (the patch's
-- file headers), and activity file_edit and commit records.
--
-- Commits: ReplacingMergeTree(received_at) keyed by (workspace_id, commit_id), so
-- the same commit reported twice (a replay, a tool_result and an activity record)
-- is one commit; the newest report wins. The list sorts a workspace's commits by
-- committed_at, which a per-workspace scan serves at these volumes.
-- File edits: ReplacingMergeTree keyed by (workspace_id, edited_at, edit_id,
-- file_path): edit_id is the event's id, so a replay collapses; reads are "this
-- workspace, this window" grouped by file.
-- TTL 400 days.
CREATE TABLE IF NOT EXISTS coding_agent_commits_v1
(
    workspace_id  String,
    commit_id     String                 COMMENT 'The commit hash as reported (lower case)',
    committed_at  DateTime64(3, 'UTC'),
    agent         LowCardinality(String),
    employee      String,
    session_id    String,
    repository    String,
    branch        String,
    message       String,
    files         Array(String)          COMMENT 'Paths the commit changed, when reported (activity records)',
    lines_added   UInt64,
    lines_removed UInt64,
    source        LowCardinality(String) COMMENT 'tool_result or activity',
    received_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(received_at)
ORDER BY (workspace_id, commit_id)
TTL toDateTime(committed_at) + INTERVAL 400 DAY DELETE
COMMENT 'Commits authored by coding agents, one row per commit.';

CREATE TABLE IF NOT EXISTS coding_agent_file_edits_v1
(
    workspace_id  String,
    edited_at     DateTime64(3, 'UTC'),
    edit_id       String                 COMMENT 'event_id of the event that reported the edit',
    file_path     String,
    agent         LowCardinality(String),
    employee      String,
    session_id    String,
    tool_name     LowCardinality(String) COMMENT 'Edit, Write, MultiEdit, NotebookEdit, apply_patch, or commit / file_edit (activity)',
    commit_id     String                 COMMENT 'The commit that carried the change, when known',
    lines_added   UInt64,
    lines_removed UInt64
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(edited_at)
ORDER BY (workspace_id, edited_at, edit_id, file_path)
TTL toDateTime(edited_at) + INTERVAL 400 DAY DELETE
COMMENT 'Files edited by coding agents, one row per (event, file).'
