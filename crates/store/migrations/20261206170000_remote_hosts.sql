-- Remote hosts (docs/architecture.md "Remote hosts"): a name the user gave a machine they
-- reach over SSH, and how to reach it. No password, key or host key is kept: those stay with
-- the user's OpenSSH (~/.ssh/config, ssh-agent, known_hosts).
CREATE TABLE remote_hosts (
    name TEXT PRIMARY KEY NOT NULL,
    -- What `ssh` is given: a ~/.ssh/config host, user@host, or ssh://user@host:port.
    destination TEXT NOT NULL,
    -- Extra ssh options for this host, as a JSON array of arguments.
    ssh_options TEXT NOT NULL DEFAULT '[]',
    -- The forkhost program on the remote, when not `forkhost` on its PATH.
    remote_program TEXT,
    added_at INTEGER NOT NULL
);
