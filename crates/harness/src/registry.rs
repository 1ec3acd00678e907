//! The one place that names every harness implementation: from a [`HarnessKind`] (the id the
//! store keeps) to its [`Harness`]. Everything else asks the trait.

use std::path::Path;

use crate::contract::{Capabilities, Harness, HarnessBinary};
use crate::history::{History, HistoryError, SessionReader};
use crate::kind::HarnessKind;
use crate::{acp, claude, codex, pi};

impl HarnessKind {
    /// The harness this kind names.
    pub fn harness(self) -> &'static dyn Harness {
        match self {
            HarnessKind::Claude => &claude::Claude,
            HarnessKind::Codex => &codex::Codex,
            HarnessKind::Pi => &pi::Pi,
            HarnessKind::Opencode => &acp::Opencode,
        }
    }

    /// The environment variable that names this harness's binary, overriding `PATH`.
    pub fn bin_env(self) -> &'static str {
        self.harness().bin_env()
    }
}

impl HarnessBinary {
    /// What this binary can do; see each harness's `capabilities`.
    pub fn capabilities(&self) -> Capabilities {
        self.kind.harness().capabilities(&self.version)
    }
}

/// Open the reader that fits `kind` on a native session file.
pub fn open_reader(
    kind: HarnessKind,
    path: impl AsRef<Path>,
) -> Result<Box<dyn SessionReader>, HistoryError> {
    kind.harness().open_reader(path.as_ref())
}

/// Whether the native session at `path` is there to read (a file, for most harnesses).
pub fn session_present(kind: HarnessKind, path: impl AsRef<Path>) -> bool {
    kind.harness().session_present(path.as_ref())
}

/// Read a whole native session in one go.
pub fn read_history(kind: HarnessKind, path: impl AsRef<Path>) -> Result<History, HistoryError> {
    open_reader(kind, path)?.history()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_finds_its_own_harness() {
        for kind in HarnessKind::ALL {
            let harness = kind.harness();
            assert_eq!(harness.kind(), kind);
            assert_eq!(
                kind.bin_env(),
                format!("FORKHOST_{}_BIN", kind.as_str().to_uppercase())
            );
            assert!(
                harness.names_itself(&format!("1.2.3 ({})", harness.product_name()).to_lowercase())
            );
        }
    }
}
