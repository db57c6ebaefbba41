-- drift_daily_v1.anomalies: fleet_monitor's findings stored with the day's drift
-- (shared/src/domain/fleet.ts). The workspace-level drift says that the workspace
-- moved; the anomalies say which agent (project_id) moved, on which dimension, and
-- against what (its own baseline days, or its peers when it has no history). Kept
-- on the same row because both come from the same roll-up run and are read together
-- by GET .../drift/current.
--
-- Rows written before this migration read as '[]' (no anomalies detected), which is
-- what they were: the detection did not exist yet.
ALTER TABLE drift_daily_v1
    ADD COLUMN IF NOT EXISTS anomalies String DEFAULT '[]' COMMENT 'JSON array of { agent, dimension, recent, baseline, delta, z_score, direction, basis }, most severe first'
    AFTER dimensions;
