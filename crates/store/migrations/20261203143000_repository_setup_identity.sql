-- Which repository a setup command was saved for: its root commits (sorted, comma-joined), so
-- that another repository cloned later at the same path does not run the old command (review
-- L5). NULL for a command saved before this column, or in a repository without commits: such
-- a command is not run until it is saved again.
ALTER TABLE repository_setup ADD COLUMN repo_id TEXT;
