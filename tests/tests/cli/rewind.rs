//! `forkhost rewind` with the real Pi and Claude CLIs against the fake model, in a temporary git
//! repository: three turns run shell commands writing `notes.txt` and `tN.txt`, then the user
//! edits `notes.txt`. A turn out of range and nothing to undo are refused in words; without a
//! terminal, a rewind that would overwrite that edit refuses unless `--yes` and touches nothing;
//! with it the thread ends at turn 2 and `t3.txt` is gone; `--undo` brings back turn 3 and the
//! files; `--conversation` leaves the files alone.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout, with_cli, Cli};
use forkhost_tests::harness_env::Harness;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

/// `forkhost ARGS` as a person runs it (no --json, no terminal): (success, stdout, stderr).
fn plain(cli: &Cli, args: &[&str]) -> (bool, String, String) {
    let mut cmd = Command::new(forkhost_bin());
    cli.env.apply_std(&mut cmd);
    cmd.arg("--data-dir").arg(cli.data).args(args);
    let out = run_with_timeout(cmd, std::time::Duration::from_secs(240));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn writes(n: &str) -> String {
    format!("RUN_COMMAND `printf '{n}' > notes.txt && touch {n}.txt`")
}

fn turns(cli: &Cli, thread: &str) -> usize {
    cli.ok(&["show", thread])["thread"]["turns"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn pi_rewind_asks_before_a_loss_and_undoes() {
    rewind_asks_before_a_loss_and_undoes(Harness::Pi);
}

#[test]
fn claude_rewind_asks_before_a_loss_and_undoes() {
    rewind_asks_before_a_loss_and_undoes(Harness::Claude);
}

fn rewind_asks_before_a_loss_and_undoes(harness: Harness) {
    let name = harness.name();
    with_cli(harness, |cli| {
        let repo = cli.env.work_dir().to_path_buf();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "start"]);
        let cwd = repo.to_str().unwrap();
        // Claude asks before a command: --approve all answers (Pi runs it without asking).
        let created = cli.ok(&[
            "new",
            "--harness",
            name,
            "--cwd",
            cwd,
            "--approve",
            "all",
            &writes("t1"),
        ]);
        let thread = created["thread"]["id"].as_str().unwrap().to_owned();
        cli.ok(&["send", &thread, "--approve", "all", &writes("t2")]);
        cli.ok(&["send", &thread, "--approve", "all", &writes("t3")]);
        std::fs::write(repo.join("notes.txt"), "mine").unwrap();

        let err = cli.err(&["rewind", &thread, "--to", "9"]);
        assert_eq!(err["code"], "turn_not_found", "{err}");
        let err = cli.err(&["rewind", &thread, "--undo"]);
        assert_eq!(err["code"], "invalid_input", "{err}");

        // No terminal, no --yes: refused in words, nothing touched.
        let (ok, _, stderr) = plain(cli, &["rewind", &thread, "--to", "2"]);
        assert!(!ok);
        assert!(
            stderr.contains("notes.txt") && stderr.contains("--yes"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
            "mine"
        );
        assert!(repo.join("t3.txt").exists());
        assert_eq!(turns(cli, &thread), 3);

        let done = cli.ok(&["rewind", &thread, "--to", "2", "--yes"]);
        let rewound = &done["rewound"];
        assert_eq!(rewound["thread"]["turns"].as_array().unwrap().len(), 2);
        let branch = rewound["rewind"]["branch_id"].as_str().unwrap().to_owned();
        assert!(!repo.join("t3.txt").exists());
        assert_eq!(
            std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
            "t2"
        );
        assert_eq!(turns(cli, &branch), 3);
        cli.ok(&["send", &thread, "after the rewind"]);
        assert_eq!(turns(cli, &thread), 3);

        let (ok, stdout, stderr) = plain(cli, &["rewind", &thread, "--undo"]);
        assert!(ok, "{stderr}");
        assert!(stdout.contains("undid the rewind"), "{stdout}");
        assert!(repo.join("t3.txt").exists());
        assert_eq!(
            std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
            "mine"
        );
        let shown = cli.ok(&["show", &thread]);
        let prompts: Vec<String> = shown["thread"]["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["messages"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        assert!(prompts[2].contains("t3.txt"), "{prompts:?}");

        // The conversation only: the files stay.
        let done = cli.ok(&["rewind", &thread, "--to", "1", "--conversation"]);
        assert_eq!(
            done["rewound"]["thread"]["turns"].as_array().unwrap().len(),
            1
        );
        assert!(repo.join("t3.txt").exists());
    });
}
