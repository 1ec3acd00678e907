//! The sandbox a Codex thread runs in when none was chosen for it: what a header and `show`
//! name instead of nothing (issue 39: "never null"). The runtime sends `config.toml`'s
//! `sandbox_mode` when a word goes back to the default, and the strictest word, `read-only`,
//! when config names none (`CodexRuntime::set_mode`); this reads the same file the same way,
//! without a process: the user's `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`).

use std::path::PathBuf;

use crate::contract::{env_value, read_config};

/// The default sandbox's word, with `env` the harnesses' extra environment (its `HOME` or
/// `CODEX_HOME`): `config.toml`'s `sandbox_mode` when it names one Codex takes, else
/// `read-only`.
pub fn default_sandbox(env: &[(String, String)]) -> String {
    config_file(env)
        .and_then(|file| {
            let table: toml::Table = read_config(&file).ok()?.parse().ok()?;
            let word = table.get("sandbox_mode")?.as_str()?.to_owned();
            super::approvals::CHOICES
                .sandboxes
                .contains(&word.as_str())
                .then_some(word)
        })
        .unwrap_or_else(|| "read-only".to_owned())
}

fn config_file(env: &[(String, String)]) -> Option<PathBuf> {
    let home = match env_value(env, "CODEX_HOME") {
        Some(home) => PathBuf::from(home),
        None => crate::home::home_for(env)?.join(".codex"),
    };
    Some(home.join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_config_tomls_sandbox_else_read_only() {
        let home = tempfile::tempdir().unwrap();
        let env = vec![("CODEX_HOME".to_owned(), home.path().display().to_string())];
        assert_eq!(default_sandbox(&env), "read-only");
        std::fs::write(
            home.path().join("config.toml"),
            "sandbox_mode = \"workspace-write\"\n",
        )
        .unwrap();
        assert_eq!(default_sandbox(&env), "workspace-write");
        std::fs::write(
            home.path().join("config.toml"),
            "sandbox_mode = \"nonsense\"\n",
        )
        .unwrap();
        assert_eq!(default_sandbox(&env), "read-only");
    }
}
