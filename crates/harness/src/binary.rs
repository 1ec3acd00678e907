//! Finding a harness binary and learning what it can do.
//!
//! `FORKHOST_{CLAUDE,CODEX,PI}_BIN` wins, else the first match on `PATH`. The version decides
//! the capabilities: a version that lacks what a fork needs answers `Unsupported`, never a
//! wrong fork.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::{HarnessError, HarnessKind, HarnessResult};

/// How long `--version` may take before the binary counts as broken.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// A located, version-checked harness binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessBinary {
    pub kind: HarnessKind,
    pub path: PathBuf,
    /// `major.minor.patch` as the binary printed it.
    pub version: String,
}

/// What a harness binary can do, for the UI's Fork buttons and `forkhost doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// Fork boundaries it supports: a subset of `after`, `before`, `latest`.
    pub boundaries: Vec<&'static str>,
    /// Where it can cut: at `turn` boundaries (all three harnesses today) or any `message`.
    pub granularity: &'static str,
    /// Whether the native session exists as soon as the fork is made (false: on first prompt).
    pub eager_fork: bool,
    /// Why a capability is missing, when one is.
    pub note: Option<String>,
}

/// The binary's path: the override variable if set, else a `PATH` search.
pub fn locate(kind: HarnessKind) -> HarnessResult<PathBuf> {
    locate_in(
        kind,
        std::env::var_os(kind.bin_env()),
        std::env::var_os("PATH"),
    )
}

fn locate_in(
    kind: HarnessKind,
    override_path: Option<std::ffi::OsString>,
    search_path: Option<std::ffi::OsString>,
) -> HarnessResult<PathBuf> {
    if let Some(path) = override_path.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(path);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(HarnessError::HarnessNotFound {
                harness: kind,
                detail: format!(
                    "{} points at {}, which is not an executable file",
                    kind.bin_env(),
                    path.display()
                ),
            })
        };
    }
    let name = kind.as_str();
    search_path
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| HarnessError::HarnessNotFound {
            harness: kind,
            detail: format!("`{name}` is not on PATH and {} is not set", kind.bin_env()),
        })
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Locates the binary and reads its version.
pub async fn probe(kind: HarnessKind) -> HarnessResult<HarnessBinary> {
    let path = locate(kind)?;
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    let output = tokio::time::timeout(
        VERSION_TIMEOUT,
        tokio::process::Command::new(&path)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .map_err(|_| not_found(format!("{} --version did not answer", path.display())))?
    .map_err(|err| not_found(format!("{} could not run: {err}", path.display())))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = parse_version(&text)
        .ok_or_else(|| not_found(format!("{} --version printed no version", path.display())))?;
    Ok(HarnessBinary {
        kind,
        path,
        version,
    })
}

/// The first `N.N.N` in a `--version` line ("2.1.197 (Claude Code)", "codex-cli 0.171.0").
pub fn parse_version(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.split('.').count() >= 3 && w.split('.').take(3).all(|p| !p.is_empty()))
        .map(|w| w.split('.').take(3).collect::<Vec<_>>().join("."))
}

/// `(major, minor, patch)` of a version string, for comparisons.
pub fn version_triple(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

impl HarnessBinary {
    /// What this binary can do; see each harness module's `capabilities`.
    pub fn capabilities(&self) -> Capabilities {
        match self.kind {
            HarnessKind::Claude => crate::claude::capabilities(&self.version),
            HarnessKind::Codex => crate::codex::capabilities(&self.version),
            HarnessKind::Pi => crate::pi::capabilities(&self.version),
        }
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

    #[test]
    fn a_missing_binary_is_harness_not_found() {
        let err = locate_in(
            HarnessKind::Pi,
            Some("/nonexistent/forkhost/pi".into()),
            None,
        )
        .unwrap_err();
        assert!(matches!(
            err,
            HarnessError::HarnessNotFound {
                harness: HarnessKind::Pi,
                ..
            }
        ));
        let dir = tempfile::tempdir().unwrap();
        let err = locate_in(HarnessKind::Codex, None, Some(dir.path().into())).unwrap_err();
        assert!(err.to_string().contains("not on PATH"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn finds_an_executable_on_path_and_skips_plain_files() {
        use std::os::unix::fs::PermissionsExt;
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("claude"), "not executable").unwrap();
        let real = tempfile::tempdir().unwrap();
        let bin = real.path().join("claude");
        std::fs::write(&bin, "#!/bin/sh\necho 9.9.9\n").unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([plain.path(), real.path()]).unwrap();
        assert_eq!(
            locate_in(HarnessKind::Claude, None, Some(path)).unwrap(),
            bin
        );
    }
}
