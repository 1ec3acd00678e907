//! `forkhost doctor` for a newcomer: run with no harness on PATH (a temporary HOME, no
//! `FORKHOST_*_BIN`), it ends with the next step for each missing harness, in the words the
//! app's first-run view shows; a Codex stand-in that says "Not logged in" gets the sign-in step.
//! Needs no harness CLI: it runs everywhere.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout};

/// `forkhost doctor` with `path_dir` as the whole PATH and `home` as HOME.
fn doctor(home: &Path, path_dir: &Path, json: bool) -> (bool, String) {
    let mut cmd = Command::new(forkhost_bin());
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", path_dir)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .arg("--data-dir")
        .arg(home.join("data"));
    if json {
        cmd.arg("--json");
    }
    cmd.arg("doctor");
    let out = run_with_timeout(cmd, Duration::from_secs(60));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[cfg(unix)]
fn executable(path: &Path, text: &str) {
    forkhost_test_script::write_executable(path, text).unwrap();
}

#[test]
fn doctor_ends_with_how_to_install_each_missing_harness() {
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("bin");
    std::fs::create_dir_all(&empty).unwrap();
    let (_, json) = doctor(home.path(), &empty, true);
    let reports: serde_json::Value = serde_json::from_str(&json).unwrap();
    let (_, text) = doctor(home.path(), &empty, false);
    let steps: Vec<&str> = text.lines().skip_while(|l| *l != "Next steps:").collect();
    assert!(!steps.is_empty(), "no next steps in:\n{text}");
    let mut missing = 0;
    for r in reports["harnesses"].as_array().unwrap() {
        // A harness in a usual install folder of this machine (/usr/local/bin) is found even
        // with an empty PATH: only the missing ones are judged.
        if !r["path"].is_null() {
            continue;
        }
        missing += 1;
        let step = r["next_step"].as_str().unwrap();
        assert!(
            step.contains("is not installed: install it with `"),
            "{step}"
        );
        assert!(
            steps.contains(&format!("  - {step}").as_str()),
            "{step} not in:\n{text}"
        );
        let npm = r["install"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["label"] == "npm")
            .unwrap();
        assert!(step.contains(npm["command"].as_str().unwrap()), "{step}");
    }
    assert!(
        missing > 0,
        "every harness was found; nothing was checked:\n{text}"
    );
}

#[cfg(unix)]
#[test]
fn doctor_says_how_to_sign_in_a_codex_that_is_not_logged_in() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // Answers like codex-cli 0.171.0 with an empty CODEX_HOME.
    executable(
        &bin.join("codex"),
        "#!/bin/sh\ncase \"$1 $2\" in\n  --version*) echo 'codex-cli 0.171.0' ;;\n  'login status') echo 'Not logged in' >&2; exit 1 ;;\n  *) exit 2 ;;\nesac\n",
    );
    let (_, text) = doctor(home.path(), &bin, false);
    assert!(
        text.contains("  - Codex is installed but not signed in: run `codex login` in a terminal."),
        "{text}"
    );
    assert!(text.contains("[not signed in]"), "{text}");
}

/// The real Pi with no provider set up (an empty agent folder): `doctor` calls it not signed in,
/// and a prompt it refuses for want of a key says how to sign in, in the same words.
#[test]
fn pi_without_a_key_is_not_signed_in_and_its_refused_prompt_says_so() {
    let Some(pi) =
        forkhost_tests::need::need(forkhost_tests::need::Group::Harness, "FORKHOST_PI_BIN")
    else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("bin");
    let work = home.path().join("work");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let run = |args: &[&str]| {
        let mut cmd = Command::new(forkhost_bin());
        cmd.env_clear()
            .env("HOME", home.path())
            .env("PATH", &empty)
            .env("PI_OFFLINE", "1")
            .env("FORKHOST_PI_BIN", &pi)
            .arg("--json")
            .arg("--data-dir")
            .arg(home.path().join("data"))
            .args(args);
        let out = run_with_timeout(cmd, Duration::from_secs(120));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let doctor = run(&["doctor"]);
    let pi_report = doctor["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "pi")
        .unwrap();
    assert_eq!(pi_report["sign_in"], "signed_out", "{pi_report}");
    let refused = run(&[
        "new",
        "--harness",
        "pi",
        "--cwd",
        work.to_str().unwrap(),
        "hello",
    ]);
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(
            "Pi is not signed in or has no API key: run `pi` in a terminal and type `/login`"
        ),
        "{refused}"
    );
}
