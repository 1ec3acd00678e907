-- Whether the user trusts a folder's project agent config (hooks, MCP servers, extensions:
-- things that run commands), asked once per folder (its repository root, or the folder
-- itself outside a repository).
CREATE TABLE folder_trust (
    folder TEXT PRIMARY KEY NOT NULL,
    trusted INTEGER NOT NULL CHECK (trusted IN (0, 1)),
    decided_at INTEGER NOT NULL
);
