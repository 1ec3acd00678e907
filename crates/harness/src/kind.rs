//! The harnesses Forkhost hosts, by the id the store keeps (`claude`, `codex`, `pi`, `opencode`). What
//! each one is and does is its [`Harness`](crate::contract::Harness) (`HarnessKind::harness`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum HarnessKind {
    Claude,
    Codex,
    Pi,
    /// OpenCode, an ACP agent (`opencode acp`).
    Opencode,
}

impl HarnessKind {
    pub const ALL: [HarnessKind; 4] = [
        HarnessKind::Claude,
        HarnessKind::Codex,
        HarnessKind::Pi,
        HarnessKind::Opencode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HarnessKind::Claude => "claude",
            HarnessKind::Codex => "codex",
            HarnessKind::Pi => "pi",
            HarnessKind::Opencode => "opencode",
        }
    }
}

impl fmt::Display for HarnessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown harness {0:?} (expected claude, codex, pi or opencode)")]
pub struct UnknownHarness(pub String);

impl FromStr for HarnessKind {
    type Err = UnknownHarness;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude" => Ok(HarnessKind::Claude),
            "codex" => Ok(HarnessKind::Codex),
            "pi" => Ok(HarnessKind::Pi),
            "opencode" => Ok(HarnessKind::Opencode),
            other => Err(UnknownHarness(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_its_name() {
        for kind in HarnessKind::ALL {
            assert_eq!(kind.as_str().parse::<HarnessKind>().unwrap(), kind);
        }
        assert!("claude-code".parse::<HarnessKind>().is_err());
    }
}
