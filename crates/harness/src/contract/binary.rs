//! A located harness binary, its version, and what that version can do.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::kind::HarnessKind;

/// `(major, minor, patch)`.
pub type Version = (u64, u64, u64);

/// A located, version-checked harness binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessBinary {
    pub kind: HarnessKind,
    pub path: PathBuf,
    /// `major.minor.patch` as the binary printed it.
    pub version: String,
}

/// What a harness binary can do, for the UI's Fork buttons and `forkhost doctor`.
// Owned words and `Deserialize`: a remote host's harnesses come over the wire as its doctor
// reported them (`Call::Doctor`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Capabilities {
    /// Fork boundaries it supports: a subset of `after`, `before`, `latest`.
    pub boundaries: Vec<String>,
    /// Where it can cut: at `turn` boundaries (all three harnesses today) or any `message`.
    pub granularity: String,
    /// Whether the native session exists as soon as the fork is made (false: on first prompt).
    pub eager_fork: bool,
    /// Why a capability is missing, when one is.
    pub note: Option<String>,
    /// Its checkpoints are copies of the session Forkhost makes after each turn (an ACP agent
    /// forks only a session's head): a turn without one (a session made outside Forkhost)
    /// cannot be forked after, though its conversation can continue in another agent.
    #[serde(default)]
    pub snapshots: bool,
}

impl Capabilities {
    /// Whether it forks at `boundary` (`after`, `before`, `latest`).
    pub fn forks_at(&self, boundary: &str) -> bool {
        self.boundaries.iter().any(|b| b == boundary)
    }
}

/// The versions of a harness the test suite ran for real (see [`crate::verified`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionPins {
    /// The oldest version the adapter supports (below it, no fork).
    pub oldest_supported: Version,
    /// The newest version the real-CLI suites passed against.
    pub newest_verified: Version,
    /// The name `scripts/harness-versions.env` gives the pins: `<name>_VERSION` (oldest) and
    /// `<name>_NEWEST_VERSION`.
    pub env_name: &'static str,
}

/// The first `N.N.N` in a `--version` line ("2.1.197 (Claude Code)", "codex-cli 0.171.0").
pub fn parse_version(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.split('.').count() >= 3 && w.split('.').take(3).all(|p| !p.is_empty()))
        .map(|w| w.split('.').take(3).collect::<Vec<_>>().join("."))
}

/// `(major, minor, patch)` of a version string, for comparisons.
pub fn version_triple(version: &str) -> Option<Version> {
    let mut parts = version.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// Whether `version` is at least `min`; an unreadable version is not.
pub fn at_least(version: &str, min: Version) -> bool {
    version_triple(version).is_some_and(|v| v >= min)
}

/// The capabilities of a version that forks at every turn boundary.
pub fn forks_at_turns(eager_fork: bool) -> Capabilities {
    Capabilities {
        boundaries: vec!["after".into(), "before".into(), "latest".into()],
        granularity: "turn".into(),
        eager_fork,
        note: None,
        snapshots: false,
    }
}

/// The capabilities of a version that cannot fork, and why.
pub fn no_fork(eager_fork: bool, why: String) -> Capabilities {
    Capabilities {
        boundaries: vec![],
        granularity: "turn".into(),
        eager_fork,
        note: Some(why),
        snapshots: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_versions_as_the_clis_print_them() {
        assert_eq!(
            parse_version("2.1.197 (Claude Code)\n").as_deref(),
            Some("2.1.197")
        );
        assert_eq!(
            parse_version("codex-cli 0.171.0").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(parse_version("1.6.0").as_deref(), Some("1.6.0"));
        assert_eq!(parse_version("v 1.2 beta"), None);
        assert_eq!(version_triple("0.171.0"), Some((0, 171, 0)));
    }
}
