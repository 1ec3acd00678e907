-- Tabs of a remote host's threads (docs/architecture.md "Remote hosts"), so a restart reopens
-- them too. `tabs.thread_id` must name a thread of this machine's store; a remote thread lives
-- in its host's store, so its tab is kept here: the host it is on and the id it has there. A
-- window's tabs of both tables share one order (`ordinal`). Removing the host removes its tabs.
CREATE TABLE remote_tabs (
    id          TEXT PRIMARY KEY NOT NULL,
    window_id   TEXT NOT NULL REFERENCES windows (id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    host        TEXT NOT NULL REFERENCES remote_hosts (name) ON DELETE CASCADE,
    thread_id   TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('conversation', 'terminal')),
    UNIQUE (window_id, ordinal)
);
