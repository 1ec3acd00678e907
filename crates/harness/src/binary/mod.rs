//! Finding a harness binary and learning what it can do.
//!
//! The binary is located ([`locate`]) and asked for its version, which must name the harness
//! (or, for a harness that prints a bare number, its `--help` must). The version decides the
//! capabilities: a version that lacks what a fork needs answers `Unsupported`, never a wrong
//! fork.

mod locate;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use locate::{locate, locate_chosen, locate_detailed, locate_in, FoundBy, Located};

use crate::search_path;
use crate::{HarnessError, HarnessKind, HarnessResult};

pub use crate::contract::{parse_version, version_triple, Capabilities, HarnessBinary};

/// How long `--version` may take before the binary counts as broken.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// Locates the binary and reads its version.
pub async fn probe(kind: HarnessKind) -> HarnessResult<HarnessBinary> {
    let path = locate(kind)?;
    probe_at(kind, path).await
}

/// Reads the version of the binary at `path`.
pub async fn probe_at(kind: HarnessKind, path: PathBuf) -> HarnessResult<HarnessBinary> {
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    let output = run_for_text(&path, "--version").await.map_err(not_found)?;
    let version = parse_version(&output)
        .ok_or_else(|| not_found(format!("{} --version printed no version", path.display())))?;
    // Another harness's binary (a path set for the wrong one) would run with the wrong
    // protocol; a bare version (Pi, test stand-ins) is let through.
    if let Product::Other(other) = product_in(kind, &output) {
        return Err(not_found(format!(
            "{} is {other} (its --version printed \"{}\"), not {}",
            path.display(),
            output.trim(),
            product_name(kind)
        )));
    }
    Ok(HarnessBinary {
        kind,
        path,
        version,
    })
}

/// Runs `path arg` (`--version`, `--help`) and returns its stdout; the error is a sentence.
async fn run_for_text(path: &Path, arg: &str) -> Result<String, String> {
    // The harness's own process setup (tree, no console window, the search folders as PATH
    // so an npm shim's `#!/usr/bin/env node` finds node on a GUI launch).
    let mut cmd = crate::process::HarnessCommand::new(path);
    cmd.arg(arg);
    let output = cmd.output(VERSION_TIMEOUT).await.map_err(|err| match err {
        crate::process::OutputError::Timeout(_) => {
            format!("{} {arg} did not answer", path.display())
        }
        err => format!("{} {err}", path.display()),
    })?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Whether a `--version` line names the harness: Claude Code prints "2.1.197 (Claude Code)",
/// Codex "codex-cli 0.171.0", Pi only "1.6.0".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Product {
    Matches,
    /// It names another product (the name given).
    Other(&'static str),
    /// Only a version.
    Unnamed,
}

/// Which harness a `--version` line names: `kind` when it names that one and no other.
pub fn product_in(kind: HarnessKind, version_text: &str) -> Product {
    let lower = version_text.to_lowercase();
    let mut named = HarnessKind::ALL
        .into_iter()
        .filter(|k| k.harness().names_itself(&lower));
    match (named.next(), named.next()) {
        (Some(only), None) if only == kind => Product::Matches,
        (Some(first), second) => {
            let other = if first == kind {
                second.unwrap_or(first)
            } else {
                first
            };
            Product::Other(product_name(other))
        }
        (None, _) => Product::Unnamed,
    }
}

/// The product name users know a harness by.
pub fn product_name(kind: HarnessKind) -> &'static str {
    kind.harness().product_name()
}

/// A path the user typed for a harness (Settings), checked before it is saved: it must exist,
/// be startable by the rules of a `PATH` search, and its `--version` must name the harness.
/// `HarnessNotFound` when it cannot be started, `InvalidInput` when it is another program.
pub async fn check_path(kind: HarnessKind, text: &str) -> HarnessResult<HarnessBinary> {
    let text = text.trim();
    if text.is_empty() {
        return Err(HarnessError::InvalidInput("no path given".into()));
    }
    let search = search_path::global();
    let path = locate::check_given(
        text,
        search,
        search_path::pathext().as_deref(),
        cfg!(windows),
        &search_path::fs_entry,
    )
    .map_err(|why| HarnessError::HarnessNotFound {
        harness: kind,
        detail: why,
    })?;
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    // One run gives both the version and the product's name.
    let text = run_for_text(&path, "--version").await.map_err(not_found)?;
    let version = parse_version(&text)
        .ok_or_else(|| not_found(format!("{} --version printed no version", path.display())))?;
    let binary = HarnessBinary {
        kind,
        path,
        version,
    };
    let line = text.trim();
    let wanted = product_name(kind);
    match (product_in(kind, line), kind.harness().help_names_itself()) {
        (Product::Matches, _) => Ok(binary),
        (Product::Other(other), _) => Err(HarnessError::InvalidInput(format!(
            "{} is {other} (its --version printed \"{line}\"), not {wanted}",
            binary.path.display()
        ))),
        (Product::Unnamed, Some(help_names_it)) => {
            // A bare version number: the harness's --help names it.
            let help = run_for_text(&binary.path, "--help")
                .await
                .unwrap_or_default();
            if help_names_it(&help) {
                Ok(binary)
            } else {
                Err(HarnessError::InvalidInput(format!(
                    "{} printed version {} but its --help does not name {wanted}",
                    binary.path.display(),
                    binary.version
                )))
            }
        }
        (Product::Unnamed, None) => Err(HarnessError::InvalidInput(format!(
            "{} printed \"{line}\" for --version, which does not name {wanted}",
            binary.path.display()
        ))),
    }
}

/// Remarks for `doctor` about what a harness needs besides its binary on this OS.
pub fn doctor_notes(kind: HarnessKind) -> Vec<String> {
    kind.harness().doctor_notes()
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::locate::tests::executable;
    use super::*;

    #[test]
    fn version_lines_name_their_product() {
        assert_eq!(
            product_in(HarnessKind::Claude, "2.1.332 (Claude Code)"),
            Product::Matches
        );
        assert_eq!(
            product_in(HarnessKind::Codex, "codex-cli 0.171.0"),
            Product::Matches
        );
        assert_eq!(product_in(HarnessKind::Pi, "1.6.0"), Product::Unnamed);
        assert_eq!(
            product_in(HarnessKind::Claude, "codex-cli 0.171.0"),
            Product::Other("Codex")
        );
        assert_eq!(
            product_in(HarnessKind::Pi, "2.1.197 (Claude Code)"),
            Product::Other("Claude Code")
        );
        assert_eq!(product_in(HarnessKind::Claude, "1.6.0"), Product::Unnamed);
        assert_eq!(product_in(HarnessKind::Pi, "pi 1.7.0"), Product::Matches);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_settings_path_must_name_the_right_product() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        executable(&claude, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n");
        let bin = check_path(HarnessKind::Claude, claude.to_str().unwrap())
            .await
            .unwrap();
        assert_eq!(bin.version, "2.1.332");
        let err = check_path(HarnessKind::Codex, claude.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, HarnessError::InvalidInput(_)), "{err}");
        assert!(err.to_string().contains("is Claude Code"), "{err}");
        // At start-up too (an override the user set for the wrong harness), not only in Settings.
        let err = probe_at(HarnessKind::Pi, claude.clone()).await.unwrap_err();
        assert!(matches!(err, HarnessError::HarnessNotFound { .. }), "{err}");
        assert!(err.to_string().contains("is Claude Code"), "{err}");
        let pi = dir.path().join("pi");
        executable(&pi, "#!/bin/sh\nif [ \"$1\" = --help ]; then echo 'pi - AI coding assistant'; else echo 1.6.0; fi\n");
        assert_eq!(
            check_path(HarnessKind::Pi, pi.to_str().unwrap())
                .await
                .unwrap()
                .version,
            "1.6.0"
        );
        let err = check_path(HarnessKind::Claude, pi.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("does not name Claude Code"),
            "{err}"
        );
        let err = check_path(HarnessKind::Pi, "/nonexistent/forkhost/pi")
            .await
            .unwrap_err();
        assert!(matches!(err, HarnessError::HarnessNotFound { .. }), "{err}");
        let err = check_path(HarnessKind::Pi, "  ").await.unwrap_err();
        assert!(matches!(err, HarnessError::InvalidInput(_)), "{err}");
    }
}
