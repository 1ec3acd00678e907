-- What the user approved "for this session" in a thread, as a rule Forkhost can match later
-- requests against (`command:<the command>`, `file_change`, `tool:<name>`): re-applied when
-- the thread's harness process starts again and copied to its forks, since a harness forgets
-- its session grants with its process.
CREATE TABLE session_grants (
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    rule TEXT NOT NULL,
    PRIMARY KEY (thread_id, rule)
);
