//! A git object id, kept as the lowercase hex git prints (SHA-1 or SHA-256 repositories).

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid(String);

impl Oid {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses the first whitespace-separated word of git's output.
    pub(crate) fn from_output(bytes: &[u8]) -> Option<Oid> {
        let text = std::str::from_utf8(bytes).ok()?;
        text.split_whitespace().next()?.parse().ok()
    }
}

impl FromStr for Oid {
    type Err = crate::WorktreeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let ok = (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit());
        if ok {
            Ok(Oid(s.to_ascii_lowercase()))
        } else {
            Err(crate::WorktreeError::CheckpointNotFound(s.to_owned()))
        }
    }
}

impl fmt::Display for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
