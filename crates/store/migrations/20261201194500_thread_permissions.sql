-- A thread's permission mode, in its harness's own words (Claude's permission mode, Codex's
-- approval policy and sandbox). NULL: the harness's own default.
ALTER TABLE threads ADD COLUMN permission_mode TEXT;
ALTER TABLE threads ADD COLUMN permission_sandbox TEXT;
