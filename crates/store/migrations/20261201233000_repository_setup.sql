-- Per repository: a command run once in each new fork worktree (installing dependencies,
-- say), in the user's words.
CREATE TABLE repository_setup (
    repo_root TEXT PRIMARY KEY NOT NULL,
    command TEXT NOT NULL
);
