//! A thread's files through the `forkhost` CLI (Pi, the quickest harness, against the fake
//! model in a temporary git repository): `show --json` gives the folder kind and each turn's
//! checkpoints, `checkpoints` lists them, `fork --worktree` carries the files as of the fork
//! point, `diff --json` lists a fork's changes with their status and line counts (and two
//! threads against each other), `apply --to` brings them back or refuses in words.

use crate::host_kit;

use std::path::PathBuf;

use forkhost_tests::cli::Cli;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use host_kit::git;
use serde_json::Value;

fn id(json: &Value) -> String {
    json["thread"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn pi_files_through_the_cli() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let repo = env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("notes.txt"), "start\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = repo.to_str().unwrap().to_owned();
    let source = id(&cli.ok(&["new", "--harness", "pi", "--cwd", &cwd]));
    for n in ["one", "two"] {
        let prompt = format!("RUN_COMMAND `printf '{n}\\n' > notes.txt`");
        cli.ok(&["send", &source, &prompt, "--approve", "none"]);
    }
    let shown = cli.ok(&["show", &source]);
    assert_eq!(shown["files"]["folder_kind"], "folder");
    assert_eq!(shown["files"]["checkpoints"].as_array().unwrap().len(), 4);
    let listed = cli.ok(&["checkpoints", &source]);
    assert_eq!(listed["files"]["checkpoints"][1]["edge"], "end");

    // The repository's setup command runs once in the new worktree, its output shown.
    let set = cli.ok(&[
        "setup-command",
        &cwd,
        "printf 'ok' > setup.txt && echo ready",
    ]);
    assert_eq!(
        set["setup_command"],
        "printf 'ok' > setup.txt && echo ready"
    );
    let forked = cli.ok(&["fork", &source, "--after", "1", "--worktree"]);
    let fork = id(&forked);
    let fork_dir = PathBuf::from(forked["thread"]["cwd"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(fork_dir.join("notes.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(forked["setup"]["success"], true, "{forked}");
    assert_eq!(forked["setup"]["output"], "ready\n");
    assert_eq!(
        std::fs::read_to_string(fork_dir.join("setup.txt")).unwrap(),
        "ok"
    );
    assert!(
        !repo.join("setup.txt").exists(),
        "it ran in the worktree only"
    );
    cli.ok(&["setup-command", &cwd, "--clear"]);
    assert!(cli.ok(&["setup-command", &cwd])["setup_command"].is_null());
    // A folder that is not there is named as such (not "not in a git repository").
    let missing = format!("{cwd}/no-such-folder");
    let err = cli.err(&["setup-command", &missing, "true"]);
    assert_eq!(err["code"], "invalid_input", "{err}");
    assert!(
        err["message"].as_str().unwrap().contains("is not a folder"),
        "{err}"
    );
    assert_eq!(cli.ok(&["show", &fork])["files"]["folder_kind"], "worktree");
    cli.ok(&[
        "send",
        &fork,
        "RUN_COMMAND `printf 'fork\\n' > notes.txt && printf 'a\\nb\\n' > new.txt`",
        "--approve",
        "none",
    ]);

    let diff = cli.ok(&["diff", &fork]);
    let files = diff["changes"]["files"].as_array().unwrap();
    let new = files
        .iter()
        .find(|f| f["path"] == "new.txt")
        .expect("new.txt listed");
    assert_eq!(
        (new["status"].as_str(), new["added_lines"].as_u64()),
        (Some("added"), Some(2))
    );
    let notes = files
        .iter()
        .find(|f| f["path"] == "notes.txt")
        .expect("notes.txt listed");
    assert_eq!(notes["status"], "modified");
    assert_eq!(
        (
            notes["added_lines"].as_u64(),
            notes["removed_lines"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let against = cli.ok(&["diff", &fork, &source]);
    let against_notes = against["changes"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "notes.txt")
        .expect("notes.txt listed");
    assert!(
        against_notes["diff"].as_str().unwrap().contains("-two"),
        "{against}"
    );

    // The source's notes.txt is "two", not the fork point's "one": refused, unchanged.
    let refused = cli.err(&["apply", &fork, "--to", &source]);
    assert_eq!(refused["code"], "conflict", "{refused}");
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "two\n"
    );
    // Once the source is back at the fork point's file, it applies.
    std::fs::write(repo.join("notes.txt"), "one\n").unwrap();
    let applied = cli.ok(&["apply", &fork, "--to", &source]);
    assert!(!applied["applied"]["files"].as_array().unwrap().is_empty());
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "fork\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("new.txt")).unwrap(),
        "a\nb\n"
    );

    assert_eq!(
        cli.err(&["diff", &source])["code"],
        "unsupported",
        "not a fork with files"
    );
    assert_eq!(
        cli.err(&["checkpoints", "no-such-thread"])["code"],
        "thread_not_found"
    );
}
