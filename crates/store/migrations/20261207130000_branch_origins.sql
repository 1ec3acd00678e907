-- Where a thread that came from another machine was continued from (docs/architecture.md
-- "Remote hosts"): the machine's name as the one that carried it named it, the thread there and
-- how many of its turns came along. Coordinates and a title, never message text.
CREATE TABLE branch_origins (
    thread_id TEXT PRIMARY KEY NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    from_host TEXT NOT NULL,
    from_thread TEXT NOT NULL,
    from_title TEXT NOT NULL,
    turns INTEGER NOT NULL,
    moved_at INTEGER NOT NULL
);
