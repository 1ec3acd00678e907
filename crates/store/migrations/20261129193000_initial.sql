-- The mapping store holds coordinates only: ids, anchors into native sessions, lineage and layout.
-- No column ever holds message text; the harness's native session is the only home of that.

CREATE TABLE threads (
    id                  TEXT PRIMARY KEY NOT NULL,
    harness             TEXT NOT NULL,
    cwd                 TEXT NOT NULL,
    title               TEXT NOT NULL,
    state               TEXT NOT NULL
        CHECK (state IN ('creating', 'pending', 'ready', 'missing', 'archived')),
    native_session_id   TEXT,
    native_path         TEXT,
    -- Lineage: set for forks, all three or none.
    fork_source_thread  TEXT REFERENCES threads (id) ON DELETE SET NULL,
    fork_source_turn    TEXT REFERENCES turns (id) ON DELETE SET NULL,
    fork_boundary       TEXT CHECK (fork_boundary IN ('after', 'before', 'latest')),
    -- Instructions for a fork that materializes on its first prompt (Claude): JSON coordinates.
    pending_fork        TEXT,
    -- The process that is creating this row; lets a restart tell a dead fork from a live one.
    creating_pid        INTEGER,
    revision            INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (harness, native_session_id)
);

CREATE INDEX threads_by_source ON threads (fork_source_thread);
CREATE INDEX threads_by_source_turn ON threads (fork_source_turn);

CREATE TABLE turns (
    id                      TEXT PRIMARY KEY NOT NULL,
    thread_id               TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    ordinal                 INTEGER NOT NULL CHECK (ordinal >= 1),
    native_turn_ref         TEXT NOT NULL,
    native_checkpoint_ref   TEXT,
    UNIQUE (thread_id, ordinal),
    UNIQUE (thread_id, native_turn_ref)
);

-- Window and tab layout, so a restart reopens what was open. Geometry is the window-state
-- plugin's business; this is only which windows hold which tabs, in which order.
CREATE TABLE windows (
    id          TEXT PRIMARY KEY NOT NULL,
    ordinal     INTEGER NOT NULL,
    active_tab  TEXT
);

CREATE TABLE tabs (
    id          TEXT PRIMARY KEY NOT NULL,
    window_id   TEXT NOT NULL REFERENCES windows (id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    thread_id   TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('conversation', 'terminal')),
    UNIQUE (window_id, ordinal)
);
