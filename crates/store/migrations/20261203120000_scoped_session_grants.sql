-- Session grants with a scope: what "Always this session" covers is exactly what the card
-- showed (a command in its folder, these files, a tool with this input), kept as the core's
-- JSON `GrantScope`, with an id the user can revoke it by. The old table's rules had no scope
-- (`file_change` matched every path, `tool:<name>` every input, a command every folder), so
-- they cannot be carried over without granting more than the user saw: they are dropped, and
-- the user is asked again.
DROP TABLE session_grants;
CREATE TABLE session_grants (
    id TEXT PRIMARY KEY NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    scope TEXT NOT NULL,
    granted_at INTEGER NOT NULL,
    UNIQUE (thread_id, scope)
);
