//! A folder's trust, as the app and the CLI see it.

use serde::{Deserialize, Serialize};

/// A folder's trust, as the app and the CLI see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TrustView {
    /// Where the decision is kept: the repository root holding the folder (a linked
    /// worktree's main checkout), or the folder.
    pub root: String,
    /// The project agent config found (`.claude`, `.mcp.json`, `../.mcp.json`,
    /// `pkg/.mcp.json`, shown from the repository root); empty: nothing to trust, nothing
    /// asked.
    pub config: Vec<String>,
    /// The user's decision; `null` while undecided.
    pub trusted: Option<bool>,
    /// Config found now that a "trust" did not cover (new, or a command file edited since);
    /// while not empty the folder is undecided again.
    pub changed: Vec<String>,
    /// A digest of the config as found for this view: a dialog that shows it passes it back
    /// with the answer ([`crate::Host::set_folder_trust_shown`]), so that config added or
    /// edited while the dialog was open is never covered unseen (review L-4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub digest: Option<String>,
}

impl TrustView {
    /// Whether the user must decide before a thread can start there.
    pub fn undecided(&self) -> bool {
        !self.config.is_empty() && (self.trusted.is_none() || !self.changed.is_empty())
    }

    /// What the harness is told: `Some(true)` load the project's config, `Some(false)` leave
    /// it out, `None` nothing to decide (no project config). Config changed since a "trust"
    /// is left out until the user decides again.
    pub fn for_harness(&self) -> Option<bool> {
        match self.config.is_empty() {
            true => None,
            false => Some(self.trusted == Some(true) && self.changed.is_empty()),
        }
    }
}

/// One recorded decision, as Settings and `forkhost trust` list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TrustDecision {
    /// The trust root the decision is kept for.
    pub folder: String,
    pub trusted: bool,
    /// When the user decided (ms since the epoch).
    #[ts(type = "number")]
    pub decided_at: i64,
}
