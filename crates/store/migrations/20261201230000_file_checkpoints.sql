-- The working tree at the start and the end of a thread's turns, as commits on hidden refs
-- in the user's own repository (`refs/forkhost/<thread>/t<n>-start|end`): coordinates only.
CREATE TABLE checkpoints (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    -- The turn's 1-based position in the thread (as `turns.ordinal`).
    turn_ordinal INTEGER NOT NULL,
    edge TEXT NOT NULL CHECK (edge IN ('start', 'end')),
    commit_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (thread_id, turn_ordinal, edge)
);

-- A thread that runs in a git worktree Forkhost made for it (a fork "with its files").
CREATE TABLE worktrees (
    thread_id TEXT PRIMARY KEY NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    branch TEXT NOT NULL,
    -- The repository's root folder (of its main checkout).
    repo_root TEXT NOT NULL,
    -- The checkpoint the worktree started from: "changes in this fork" are since this.
    base_commit TEXT NOT NULL
);
