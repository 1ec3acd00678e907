-- The Agent Client Protocol agents a user added (docs/architecture.md "ACP agents"): a name and
-- the command that starts the agent, as `forkhost agents add NAME -- COMMAND ARGS…` took them.
-- The shipped agents (Gemini CLI, OpenCode) are not stored: they are the program's own.
CREATE TABLE acp_agents (
    name TEXT PRIMARY KEY NOT NULL,
    -- The program and its arguments, a JSON array of strings.
    command TEXT NOT NULL,
    added_at INTEGER NOT NULL
);
