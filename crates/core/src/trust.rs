//! Folder trust: a folder whose repository carries project agent config (Claude's `.claude/`
//! and `.mcp.json`, `.codex/`, `.pi/`) can make a harness run commands of the project's
//! choosing (hooks, MCP servers, extensions) as soon as it starts. Headless runs skip the
//! CLIs' own trust prompts, so Forkhost asks once per folder (its repository root) and
//! remembers the answer: trusted, the harness loads the project's config; not trusted, it is
//! started without it (docs/architecture.md "Folder trust").

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{HostError, HostResult};
use crate::host::Host;

/// The project config files and folders that can run commands, relative to the root.
const AGENT_CONFIG: &[&str] = &[".claude", ".mcp.json", ".codex", ".pi"];

/// A folder's trust, as the app and the CLI see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TrustView {
    /// Where the decision is kept: the repository root holding the folder, or the folder.
    pub root: String,
    /// The project agent config found there (`.claude`, `.mcp.json`, …); empty: nothing to
    /// trust, nothing asked.
    pub config: Vec<String>,
    /// The user's decision; `null` while undecided.
    pub trusted: Option<bool>,
}

impl TrustView {
    /// Whether the user must decide before a thread can start there.
    pub fn undecided(&self) -> bool {
        !self.config.is_empty() && self.trusted.is_none()
    }

    /// What the harness is told: `Some(true)` load the project's config, `Some(false)` leave
    /// it out, `None` nothing to decide (no project config).
    pub fn for_harness(&self) -> Option<bool> {
        match self.config.is_empty() {
            true => None,
            false => Some(self.trusted == Some(true)),
        }
    }
}

/// The repository root above `folder` (the nearest folder holding `.git`), else `folder`.
fn root_of(folder: &Path) -> PathBuf {
    folder
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(folder)
        .to_path_buf()
}

/// The agent config in `folder` and, inside a repository, in its root. The home folder's
/// `.claude`, `.codex` and `.pi` are the user's own settings, not a project's.
fn config_in(folder: &Path, root: &Path) -> Vec<String> {
    let home = dirs::home_dir();
    let mut found: Vec<String> = Vec::new();
    for dir in [folder, root] {
        if home.as_deref() == Some(dir) {
            continue;
        }
        for name in AGENT_CONFIG {
            let shown = match dir == root {
                true => (*name).to_owned(),
                false => dir
                    .strip_prefix(root)
                    .map(|rel| rel.join(name).display().to_string())
                    .unwrap_or_else(|_| (*name).to_owned()),
            };
            if dir.join(name).exists() && !found.contains(&shown) {
                found.push(shown);
            }
        }
    }
    found
}

impl Host {
    /// The trust of `folder`: where it is kept, what config is there, what the user decided.
    pub async fn folder_trust(&self, folder: &Path) -> HostResult<TrustView> {
        let folder = dunce::canonicalize(folder)
            .map_err(|e| HostError::InvalidInput(format!("folder {}: {e}", folder.display())))?;
        let root = root_of(&folder);
        let config = config_in(&folder, &root);
        let root = root.display().to_string();
        let trusted = self.store().folder_trust(&root).await?;
        Ok(TrustView {
            root,
            config,
            trusted,
        })
    }

    /// Records the user's decision for `folder` (kept for its repository root).
    pub async fn set_folder_trust(&self, folder: &Path, trusted: bool) -> HostResult<TrustView> {
        let view = self.folder_trust(folder).await?;
        self.store().set_folder_trust(&view.root, trusted).await?;
        tracing::info!(trusted, "folder trust decided");
        Ok(TrustView {
            trusted: Some(trusted),
            ..view
        })
    }

    /// Refuses to start a thread in a folder whose project config the user has not decided
    /// on; the error says what was found and how to decide.
    pub(crate) async fn require_trust_decision(&self, folder: &Path) -> HostResult<TrustView> {
        let view = self.folder_trust(folder).await?;
        if view.undecided() {
            return Err(HostError::TrustUndecided(view));
        }
        Ok(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_is_found_in_the_folder_and_its_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("app/.pi")).unwrap();
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        let app = root.join("app");
        assert_eq!(root_of(&app), root);
        assert_eq!(config_in(&app, root), ["app/.pi", ".mcp.json"]);
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(root_of(plain.path()), plain.path());
        assert!(config_in(plain.path(), plain.path()).is_empty());
    }

    #[test]
    fn only_config_needs_a_decision() {
        let view = |config: &[&str], trusted| TrustView {
            root: "/r".into(),
            config: config.iter().map(|s| s.to_string()).collect(),
            trusted,
        };
        assert!(!view(&[], None).undecided());
        assert_eq!(view(&[], None).for_harness(), None);
        assert!(view(&[".claude"], None).undecided());
        assert_eq!(view(&[".claude"], Some(false)).for_harness(), Some(false));
        assert_eq!(view(&[".claude"], Some(true)).for_harness(), Some(true));
    }
}
