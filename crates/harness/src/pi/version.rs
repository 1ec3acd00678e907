//! Which Pi versions the runtime and the fork rely on, and what a version can do.

use crate::contract::{forks_at_turns, no_fork, version_triple, Version};
use crate::{Capabilities, HarnessBinary, HarnessError, HarnessResult};

/// The oldest Pi this runtime and fork rely on. `get_entries` (turn coordinates) appeared in
/// 0.80.3 and `agent_settled` (end of a run) in 0.80.4; 1.6.0 is the version tested
/// (`scripts/harness-versions.env`), and the first where a fork at the first prompt keeps
/// `parentSession` (0.73.1 drops it, see "Pi: a fork at the first prompt" in docs/harness-behaviour.md).
pub(super) const MIN_VERSION: Version = (1, 6, 0);
/// What this Pi version supports.
pub fn capabilities(version: &str) -> Capabilities {
    match unsupported_reason(version) {
        // Every fork exists on return, except one before turn 1: Pi writes a session file only
        // once it holds a prompt, so that one is pending until its first prompt.
        None => forks_at_turns(true),
        Some(why) => no_fork(false, why),
    }
}

fn unsupported_reason(version: &str) -> Option<String> {
    let (a, b, c) = MIN_VERSION;
    match version_triple(version) {
        Some(v) if v >= MIN_VERSION => None,
        Some(_) => Some(format!(
            "pi {version} is older than {a}.{b}.{c}, the first version whose RPC mode reports \
             turn coordinates (get_entries, agent_settled) and forks as tested"
        )),
        None => Some(format!("pi version {version:?} is not recognized")),
    }
}

pub(super) fn require_supported(binary: &HarnessBinary) -> HarnessResult<()> {
    match unsupported_reason(&binary.version) {
        None => Ok(()),
        Some(why) => Err(HarnessError::Unsupported(why)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_follow_the_version() {
        let caps = capabilities("1.6.0");
        assert_eq!(caps.boundaries, ["after", "before", "latest"]);
        assert_eq!(caps.granularity, "turn");
        assert!(caps.eager_fork && caps.note.is_none());
        assert!(capabilities("2.0.1").note.is_none());
        for old in ["0.73.1", "1.5.2", "garbage"] {
            let caps = capabilities(old);
            assert!(caps.boundaries.is_empty(), "{old}");
            assert!(caps.note.is_some(), "{old}");
        }
    }
}
