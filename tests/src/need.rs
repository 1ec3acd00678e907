//! Whether a test that needs something from outside the workspace (a harness CLI, the built
//! app, the packaged .deb) runs or skips, and a record of which did.
//!
//! A plain `cargo test` skips such a test when its variable is unset, and says so. Under
//! `FORKHOST_REQUIRE_HARNESSES=1` (set by `scripts/test.sh`, so by CI) an unset variable is a
//! failure naming it: a broken install step must not turn the most important tests into passes
//! that tested nothing. A variable that is set but names no file fails in both modes.
//!
//! With `FORKHOST_TEST_TALLY` naming a file, every decision is appended to it as one line
//! (`group<TAB>ran|skipped<TAB>test`); `scripts/test-tally.sh` turns those lines into the
//! suite's closing summary, so the counts come from what the tests did, not from a list.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

/// Set to `1` to make a missing binary a test failure instead of a skip.
pub const REQUIRE_VAR: &str = "FORKHOST_REQUIRE_HARNESSES";
/// A file that collects one line per decision (see the module docs).
pub const TALLY_VAR: &str = "FORKHOST_TEST_TALLY";

/// What kind of outside thing a test needs; the summary prints one line per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// A real harness CLI (`FORKHOST_{CLAUDE,CODEX,PI}_BIN`).
    Harness,
    /// The built desktop app, driven over WebDriver (`FORKHOST_APP_BINARY`).
    App,
    /// The packaged .deb, installed and driven (`FORKHOST_DEB`).
    Package,
    /// A real OpenSSH server on loopback for remote hosts (`FORKHOST_SSHD`).
    Remote,
}

impl Group {
    /// The word used in the tally file.
    pub fn key(self) -> &'static str {
        match self {
            Group::Harness => "harness",
            Group::App => "app",
            Group::Package => "package",
            Group::Remote => "remote",
        }
    }
}

/// What a test does about one needed binary.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    Run(PathBuf),
    Skip,
}

/// Decides from a variable's value alone; `Err` is the failure message.
pub fn decide(var: &str, value: Option<OsString>, required: bool) -> Result<Decision, String> {
    match value.filter(|v| !v.is_empty()).map(PathBuf::from) {
        Some(path) if path.is_file() => Ok(Decision::Run(path)),
        Some(path) => Err(format!(
            "{var}={} names no file: fix the variable or the install step that sets it",
            path.display()
        )),
        None if required => Err(format!(
            "{var} is not set, and {REQUIRE_VAR}=1 makes that a failure: the install step that \
             sets it (scripts/install-harnesses.sh, scripts/app-e2e.sh, scripts/deb-e2e.sh) did \
             not run or did not find it"
        )),
        None => Ok(Decision::Skip),
    }
}

/// Whether `FORKHOST_REQUIRE_HARNESSES=1` is set.
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1")
}

/// The file named by `var` if the test should run; `None` (after printing why) if it should
/// skip. Panics, naming `var`, when the binary is required but missing.
pub fn need(group: Group, var: &str) -> Option<PathBuf> {
    match decide(var, std::env::var_os(var), required()) {
        Ok(Decision::Run(path)) => {
            record(group, "ran");
            Some(path)
        }
        Ok(Decision::Skip) => {
            println!("skipped: {var} not set");
            record(group, "skipped");
            None
        }
        Err(message) => panic!("{message}"),
    }
}

/// `binary::test`, from the test binary's name and libtest's thread name.
fn test_name() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_default();
    let thread = std::thread::current();
    format!("{binary}::{}", thread.name().unwrap_or("?"))
}

fn record(group: Group, outcome: &str) {
    let Some(path) = std::env::var_os(TALLY_VAR).filter(|v| !v.is_empty()) else {
        return;
    };
    let line = format!("{}\t{outcome}\t{}\n", group.key(), test_name());
    // One short write with O_APPEND: lines from parallel tests and processes don't interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("{TALLY_VAR}={}: {e}", PathBuf::from(path).display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unset_variable_skips_unless_required() {
        assert_eq!(decide("FORKHOST_PI_BIN", None, false), Ok(Decision::Skip));
        assert_eq!(
            decide("FORKHOST_PI_BIN", Some(OsString::new()), false),
            Ok(Decision::Skip)
        );
        let err = decide("FORKHOST_PI_BIN", None, true).unwrap_err();
        assert!(err.contains("FORKHOST_PI_BIN is not set"), "{err}");
    }

    #[test]
    fn a_variable_naming_no_file_fails_in_both_modes() {
        for required in [false, true] {
            let err = decide(
                "FORKHOST_PI_BIN",
                Some("/nonexistent/forkhost/pi".into()),
                required,
            )
            .unwrap_err();
            assert!(err.contains("FORKHOST_PI_BIN=/nonexistent"), "{err}");
        }
    }

    #[test]
    fn an_existing_file_runs() {
        let file = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(
            decide("X", Some(file.path().into()), true),
            Ok(Decision::Run(file.path().to_owned()))
        );
        // A folder is not a binary.
        let dir = tempfile::tempdir().unwrap();
        assert!(decide("X", Some(dir.path().into()), false).is_err());
    }
}
