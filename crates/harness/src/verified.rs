//! Which harness versions the test suite ran for real: the oldest supported and the newest
//! verified set of `scripts/harness-versions.env` (a test keeps the two in step). A CLI newer
//! than the newest verified one is expected to work — users update their agents before we do —
//! so it is "newer than tested", a note, never a refusal.

use serde::{Deserialize, Serialize};

use crate::contract::{version_triple, Version};
use crate::HarnessKind;

/// How a harness version relates to the versions the suite ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum VersionSupport {
    /// Between the oldest supported and the newest verified version, both included.
    Verified,
    /// Newer than the newest verified version: expected to work, not yet run by the suite.
    NewerThanTested,
    /// Older than the oldest supported version, or not a version we can read.
    OlderThanSupported,
}

impl VersionSupport {
    /// A short phrase for people (doctor, Settings).
    pub fn describe(self) -> &'static str {
        match self {
            VersionSupport::Verified => "verified",
            VersionSupport::NewerThanTested => "newer than tested",
            VersionSupport::OlderThanSupported => "older than supported",
        }
    }
}

/// The oldest supported (`newest == false`) or newest verified version of `kind`: each
/// harness's [`VersionPins`](crate::contract::VersionPins).
fn pinned(kind: HarnessKind, newest: bool) -> Version {
    let pins = kind.harness().pins();
    if newest {
        pins.newest_verified
    } else {
        pins.oldest_supported
    }
}

/// The oldest supported version of `kind`, as `a.b.c`.
pub fn oldest_supported(kind: HarnessKind) -> String {
    let (a, b, c) = pinned(kind, false);
    format!("{a}.{b}.{c}")
}

/// The newest verified version of `kind`, as `a.b.c`.
pub fn newest_verified(kind: HarnessKind) -> String {
    let (a, b, c) = pinned(kind, true);
    format!("{a}.{b}.{c}")
}

/// Classifies `version` (as `--version` printed it, or its `a.b.c`) for `kind`.
pub fn support(kind: HarnessKind, version: &str) -> VersionSupport {
    let parsed = crate::contract::parse_version(version).and_then(|v| version_triple(&v));
    match parsed {
        None => VersionSupport::OlderThanSupported,
        Some(v) if v < pinned(kind, false) => VersionSupport::OlderThanSupported,
        Some(v) if v > pinned(kind, true) => VersionSupport::NewerThanTested,
        Some(_) => VersionSupport::Verified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The pins as `scripts/harness-versions.env` writes them.
    fn env_file() -> HashMap<String, String> {
        include_str!("../../../scripts/harness-versions.env")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect()
    }

    fn env_var(kind: HarnessKind, newest: bool) -> String {
        let base = kind.harness().pins().env_name;
        if newest {
            format!("{base}_NEWEST_VERSION")
        } else {
            format!("{base}_VERSION")
        }
    }

    #[test]
    fn pins_match_the_versions_the_suite_installs() {
        let env = env_file();
        for kind in HarnessKind::ALL {
            for (newest, ours) in [
                (false, oldest_supported(kind)),
                (true, newest_verified(kind)),
            ] {
                let var = env_var(kind, newest);
                assert_eq!(
                    env.get(&var),
                    Some(&ours),
                    "scripts/harness-versions.env {var} and verified.rs disagree: change both"
                );
            }
        }
    }

    #[test]
    fn newest_is_never_older_than_oldest() {
        for kind in HarnessKind::ALL {
            assert!(pinned(kind, true) >= pinned(kind, false));
        }
    }

    #[test]
    fn the_oldest_supported_version_is_the_one_the_runtimes_fork_from() {
        for kind in HarnessKind::ALL {
            let caps = |v: &str| kind.harness().capabilities(v);
            let (a, b, c) = pinned(kind, false);
            assert!(
                !caps(&oldest_supported(kind)).boundaries.is_empty(),
                "{kind}"
            );
            assert!(
                !caps(&newest_verified(kind)).boundaries.is_empty(),
                "{kind}"
            );
            let older = if c > 0 {
                format!("{a}.{b}.{}", c - 1)
            } else {
                format!("{a}.{}.99", b - 1)
            };
            assert!(caps(&older).boundaries.is_empty(), "{kind} {older}");
        }
    }

    #[test]
    fn classifies_versions_around_the_pins() {
        use HarnessKind::*;
        use VersionSupport::*;
        assert_eq!(support(Claude, "2.1.197"), Verified);
        assert_eq!(support(Claude, "2.1.250 (Claude Code)"), Verified);
        assert_eq!(support(Claude, "2.1.332 (Claude Code)\n"), Verified);
        assert_eq!(support(Claude, "2.1.333"), NewerThanTested);
        assert_eq!(support(Claude, "3.0.0"), NewerThanTested);
        assert_eq!(support(Claude, "2.1.196"), OlderThanSupported);
        assert_eq!(support(Claude, "1.99.999"), OlderThanSupported);
        assert_eq!(support(Codex, "codex-cli 0.171.0"), Verified);
        assert_eq!(support(Codex, "codex-cli 0.172.0"), NewerThanTested);
        assert_eq!(support(Codex, "0.170.9"), OlderThanSupported);
        assert_eq!(support(Pi, "1.6.0"), Verified);
        assert_eq!(support(Pi, "1.10.0"), NewerThanTested);
        assert_eq!(support(Pi, "0.74.0"), OlderThanSupported);
        assert_eq!(support(Pi, "not a version"), OlderThanSupported);
    }

    #[test]
    fn serializes_in_snake_case() {
        assert_eq!(
            serde_json::to_value(VersionSupport::NewerThanTested).unwrap(),
            "newer_than_tested"
        );
        assert_eq!(
            VersionSupport::NewerThanTested.describe(),
            "newer than tested"
        );
    }
}
