-- Per repository (or, outside git, per folder): a command run in each race lane's folder when
-- its turn ends (`npm test`, say), in the user's words.
CREATE TABLE repository_check (
    repo_root TEXT PRIMARY KEY NOT NULL,
    command TEXT NOT NULL
);
-- Which check commands the user approved, by their exact text: a changed text is a new command
-- and is shown again before it runs. repo_id is the repository's identity (its root commits)
-- when it was approved, so another repository cloned later at the same path is asked again.
CREATE TABLE check_approvals (
    repo_root TEXT NOT NULL,
    command TEXT NOT NULL,
    repo_id TEXT,
    approved_at INTEGER NOT NULL,
    PRIMARY KEY (repo_root, command)
);
