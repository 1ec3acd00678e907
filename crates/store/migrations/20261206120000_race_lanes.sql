-- The lanes of a race (several forks of one turn, one prompt sent to all): which race a fork
-- belongs to, its source and its lane number. Coordinates only, never the prompt's text.
CREATE TABLE race_lanes (
    thread_id TEXT PRIMARY KEY NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    race_id TEXT NOT NULL,
    source_thread_id TEXT NOT NULL,
    lane INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX race_lanes_by_race ON race_lanes (race_id, lane);
