//! Which Claude Code versions the runtime and the fork rely on, and what a version can do.

use crate::contract::{at_least, forks_at_turns, no_fork, Version};
use crate::{Capabilities, HarnessBinary, HarnessError, HarnessResult};

/// The version whose fork path (`--fork-session --session-id --resume-session-at` in
/// stream-json mode, the `interrupt` control request, client-chosen prompt uuids) was verified;
/// `--resume-session-at` is a hidden flag, so older versions get no fork rather than a guess.
pub(super) const MIN_VERSION: Version = (2, 1, 197);

fn supports_fork(version: &str) -> bool {
    at_least(version, MIN_VERSION)
}

pub(super) fn require_fork_support(binary: &HarnessBinary) -> HarnessResult<()> {
    if supports_fork(&binary.version) {
        Ok(())
    } else {
        Err(HarnessError::Unsupported(unsupported_note(&binary.version)))
    }
}

fn unsupported_note(version: &str) -> String {
    let (a, b, c) = MIN_VERSION;
    format!("Claude Code {version} is older than {a}.{b}.{c}, the first version whose fork-at-turn was verified")
}

/// What this Claude Code version can fork: every boundary at turn granularity from the
/// verified version on, lazily (the fork's session appears with its first prompt); nothing
/// below it.
pub fn capabilities(version: &str) -> Capabilities {
    if supports_fork(version) {
        forks_at_turns(false)
    } else {
        no_fork(false, unsupported_note(version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_follow_the_verified_version() {
        let caps = capabilities("2.1.197");
        assert_eq!(caps.boundaries, ["after", "before", "latest"]);
        assert!(!caps.eager_fork && caps.note.is_none());
        assert!(capabilities("2.2.0").note.is_none());
        for old in ["2.1.196", "1.0.0", "garbage"] {
            let caps = capabilities(old);
            assert!(caps.boundaries.is_empty(), "{old}");
            assert!(caps.note.is_some(), "{old}");
        }
    }
}
