//! The guard of `forkhost_tests::need` seen from outside: the Pi tests of the real `harness`
//! test binary (built beside this one by `cargo test`) run with a missing Pi, with and without
//! `FORKHOST_REQUIRE_HARNESSES=1`.

use std::path::PathBuf;
use std::process::{Command, Output};

use forkhost_tests::need::{REQUIRE_VAR, TALLY_VAR};

/// The newest `harness-<hash>` test binary in this binary's folder (`target/debug/deps`).
fn harness_binary() -> PathBuf {
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_owned();
    std::fs::read_dir(&deps)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".exe").unwrap_or(&name);
            stem.strip_prefix("harness-")
                .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, path)| path)
        .unwrap_or_else(|| {
            panic!(
                "no harness test binary in {}: run `cargo test -p forkhost-tests` (it builds \
                 every test target)",
                deps.display()
            )
        })
}

/// The filter that picks the Pi file's tests: a libtest filter matches anywhere in a name, and
/// no other file's test names contain `pi::` (checked below).
const PI_TESTS: &str = "pi::";

fn run_pi_tests(vars: &[(&str, &str)], tally: &std::path::Path) -> Output {
    let mut cmd = Command::new(harness_binary());
    // The Pi file's tests alone (`pi::…`, the scenarios and Pi's own).
    cmd.args(["--test-threads=1", "--nocapture", PI_TESTS])
        .env_remove("FORKHOST_PI_BIN")
        .env_remove(REQUIRE_VAR)
        .env(TALLY_VAR, tally);
    cmd.envs(vars.iter().copied());
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_required_pi_pointing_nowhere_fails_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("tally");
    let out = run_pi_tests(
        &[
            (REQUIRE_VAR, "1"),
            ("FORKHOST_PI_BIN", "/nonexistent/forkhost/pi"),
        ],
        &tally,
    );
    let text = text(&out);
    assert!(!out.status.success(), "the Pi tests passed:\n{text}");
    assert!(
        text.contains("FORKHOST_PI_BIN=/nonexistent/forkhost/pi names no file"),
        "{text}"
    );
    // Nothing ran, so nothing was counted as run.
    let lines = std::fs::read_to_string(&tally).unwrap_or_default();
    assert!(!lines.contains("\tran\t"), "{lines}");
}

#[test]
fn a_required_pi_that_is_unset_fails_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_pi_tests(&[(REQUIRE_VAR, "1")], &dir.path().join("tally"));
    let text = text(&out);
    assert!(!out.status.success(), "the Pi tests passed:\n{text}");
    assert!(text.contains("FORKHOST_PI_BIN is not set"), "{text}");
}

#[test]
fn without_the_requirement_a_missing_pi_skips_and_is_counted_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("tally");
    let out = run_pi_tests(&[], &tally);
    let text = text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("skipped: FORKHOST_PI_BIN not set"), "{text}");
    let lines = std::fs::read_to_string(&tally).unwrap();
    let skipped: Vec<&str> = lines
        .lines()
        .filter(|l| l.starts_with("harness\tskipped\tharness::pi::"))
        .collect();
    assert!(!skipped.is_empty(), "{lines}");
    assert_eq!(
        skipped.len(),
        lines.lines().count(),
        "only skips recorded: {lines}"
    );
}

#[test]
fn the_pi_filter_picks_only_the_pi_file() {
    let out = Command::new(harness_binary())
        .args(["--list", "--format", "terse", PI_TESTS])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    let names: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    assert!(!names.is_empty(), "{listed}");
    assert!(names.iter().all(|n| n.starts_with("pi::")), "{listed}");
}
