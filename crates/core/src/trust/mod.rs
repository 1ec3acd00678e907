//! Folder trust: a folder with project agent config (Claude's `.claude/` and `.mcp.json`,
//! `.codex/`, `.pi/`, `.agents/`, OpenCode's `opencode.json` and `.opencode/`, in the folder or any folder above it) can make a harness run
//! commands of the project's choosing (hooks, MCP servers, extensions) as soon as it starts.
//! Headless runs skip the CLIs' own trust prompts, so Forkhost asks once per trust root (the
//! repository's main checkout) and remembers the answer with the config it covered: trusted,
//! the harness loads the project's config; not trusted, it is started without it; config that
//! is new since a "trust" is asked about again (docs/architecture.md "Folder trust").
//!
//! Calls: the base.

mod scan;
#[cfg(test)]
mod trust_tests;

use std::path::Path;

use crate::base::error::{HostError, HostResult};
use crate::base::view::{TrustDecision, TrustView};
use crate::host::Host;

/// What an unreadable decision is taken as, wherever a harness is about to start: not trusted
/// (L1 of the 2026-12-03 review: an error must never load config the user may have declined).
pub(crate) fn fail_closed(found: HostResult<TrustView>) -> Option<bool> {
    match found {
        Ok(view) => view.for_harness(),
        Err(err) => {
            tracing::warn!(error = %err, "folder trust unreadable; starting without project config");
            Some(false)
        }
    }
}

impl Host {
    /// The trust of `folder`: where it is kept, what config is there, what the user decided.
    pub async fn folder_trust(&self, folder: &Path) -> HostResult<TrustView> {
        Ok(self.folder_scan(folder).await?.0)
    }

    /// The view and the fingerprint a decision made now would cover.
    async fn folder_scan(&self, folder: &Path) -> HostResult<(TrustView, String)> {
        let folder = dunce::canonicalize(folder)
            .map_err(|e| HostError::InvalidInput(format!("folder {}: {e}", folder.display())))?;
        // The home the harnesses run with, canonical: its own `.claude` and the like are the
        // user's settings there, not a project's (a `HOME` given to the harnesses is theirs).
        let home = self
            .home_folder()
            .and_then(|home| dunce::canonicalize(home).ok());
        let found = tokio::task::spawn_blocking(move || scan::scan(&folder, home.as_deref()))
            .await
            .map_err(|e| HostError::Internal(format!("trust scan: {e}")))?;
        let root = found.root.display().to_string();
        let row = self.store().folder_trust(&root).await?;
        let changed = match &row {
            Some(row) if row.trusted => {
                scan::changed(row.fingerprint.as_deref().unwrap_or(""), &found.fingerprint)
            }
            // A "don't trust" holds whatever appears later: nothing to ask.
            _ => Vec::new(),
        };
        let view = TrustView {
            root,
            config: found.config,
            trusted: row.map(|row| row.trusted),
            changed,
            digest: Some(digest(&found.fingerprint)),
        };
        Ok((view, found.fingerprint))
    }

    /// Records the user's decision for `folder` (kept for its trust root), covering the
    /// config found there now; replaces an earlier decision. An answer to a dialog that
    /// showed the config goes through [`Host::set_folder_trust_shown`].
    pub async fn set_folder_trust(&self, folder: &Path, trusted: bool) -> HostResult<TrustView> {
        self.record_trust(folder, trusted, None).await
    }

    /// [`Host::set_folder_trust`] for the config a dialog showed (`shown`: that view's
    /// `digest`). Config found now that differs (added or edited while the dialog was open,
    /// by another thread's agent or a `git pull`) is `conflict`, and nothing is recorded: the
    /// user is shown the config again (review L-4).
    pub async fn set_folder_trust_shown(
        &self,
        folder: &Path,
        trusted: bool,
        shown: &str,
    ) -> HostResult<TrustView> {
        self.record_trust(folder, trusted, Some(shown)).await
    }

    async fn record_trust(
        &self,
        folder: &Path,
        trusted: bool,
        shown: Option<&str>,
    ) -> HostResult<TrustView> {
        let (view, fingerprint) = self.folder_scan(folder).await?;
        if shown.is_some_and(|shown| shown != digest(&fingerprint)) {
            return Err(HostError::Conflict(format!(
                "the agent config in {} changed since it was shown; look at it again before \
                 deciding",
                view.root
            )));
        }
        self.store()
            .set_folder_trust(&view.root, trusted, &fingerprint)
            .await?;
        tracing::info!(trusted, "folder trust decided");
        Ok(TrustView {
            trusted: Some(trusted),
            changed: Vec::new(),
            ..view
        })
    }

    /// Every recorded decision, by folder.
    pub async fn trusted_folders(&self) -> HostResult<Vec<TrustDecision>> {
        let rows = self.store().folder_trusts().await?;
        Ok(rows
            .into_iter()
            .map(|row| TrustDecision {
                folder: row.folder,
                trusted: row.trusted,
                decided_at: row.decided_at,
            })
            .collect())
    }

    /// Forgets the decision kept for `folder`: a trust root as listed, or any folder below
    /// one; the next thread there asks again. Refused in words when none is recorded.
    pub async fn revoke_folder_trust(&self, folder: &str) -> HostResult<()> {
        if self.store().revoke_folder_trust(folder).await? {
            tracing::info!("folder trust revoked");
            return Ok(());
        }
        let root = match Path::new(folder).is_dir() {
            true => Some(self.folder_trust(Path::new(folder)).await?.root),
            false => None,
        };
        match root {
            Some(root) if self.store().revoke_folder_trust(&root).await? => {
                tracing::info!("folder trust revoked");
                Ok(())
            }
            _ => Err(HostError::InvalidInput(format!(
                "no trust decision is recorded for {folder}"
            ))),
        }
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

/// A short digest of a fingerprint, for a view to carry and an answer to pass back.
fn digest(fingerprint: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(fingerprint.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(config: &[&str], trusted: Option<bool>, changed: &[&str]) -> TrustView {
        TrustView {
            root: "/r".into(),
            config: config.iter().map(|s| s.to_string()).collect(),
            trusted,
            changed: changed.iter().map(|s| s.to_string()).collect(),
            digest: None,
        }
    }

    #[test]
    fn only_config_needs_a_decision() {
        assert!(!view(&[], None, &[]).undecided());
        assert_eq!(view(&[], None, &[]).for_harness(), None);
        assert!(view(&[".claude"], None, &[]).undecided());
        assert_eq!(
            view(&[".claude"], Some(false), &[]).for_harness(),
            Some(false)
        );
        assert_eq!(
            view(&[".claude"], Some(true), &[]).for_harness(),
            Some(true)
        );
    }

    #[test]
    fn config_new_since_a_trust_is_undecided_and_left_out() {
        let grown = view(&[".claude", ".mcp.json"], Some(true), &[".mcp.json"]);
        assert!(grown.undecided());
        assert_eq!(grown.for_harness(), Some(false));
    }

    #[test]
    fn an_unreadable_decision_starts_the_harness_untrusted() {
        let err = Err(HostError::Internal("database is locked".into()));
        assert_eq!(fail_closed(err), Some(false));
        assert_eq!(fail_closed(Ok(view(&[], None, &[]))), None);
        assert_eq!(fail_closed(Ok(view(&[".pi"], Some(true), &[]))), Some(true));
    }
}
