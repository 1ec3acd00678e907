-- A thread's rewinds (docs/architecture.md "Rewind"): the thread continued from a turn on a
-- fork's native session and its old line became a branch (`branch_id`, a fork of the thread
-- after that turn); with files, the folder was restored to that turn's end checkpoint after a
-- checkpoint of it was taken (`files_before`). Undo swaps the lines back. Coordinates only.
CREATE TABLE rewinds (
    id TEXT PRIMARY KEY NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    -- The old line; NULL for a files-only rewind (the conversation stayed).
    branch_id TEXT REFERENCES threads(id) ON DELETE SET NULL,
    turn_ordinal INTEGER NOT NULL CHECK (turn_ordinal >= 1),
    kind TEXT NOT NULL CHECK (kind IN ('conversation_and_files', 'conversation', 'files')),
    -- The folder's checkpoint taken before the restore, and the one restored to.
    files_before TEXT,
    files_restored TEXT,
    created_at INTEGER NOT NULL,
    undone_at INTEGER,
    -- The folder's checkpoint taken before an undo wrote `files_before` back.
    files_before_undo TEXT
);
CREATE INDEX rewinds_by_thread ON rewinds (thread_id, created_at);
CREATE INDEX rewinds_by_branch ON rewinds (branch_id);
