//! A branch that moves between machines takes its files with it (docs/architecture.md "Remote
//! hosts"), over a real OpenSSH server on loopback whose sessions run as a second local user:
//! a Pi thread here whose agent changed `notes.txt` in each turn continues on the remote at
//! turn 1 with the files as of turn 1 — in a new worktree of the remote's clone, which gets only
//! the commits it lacks — and at turn 2 in a new repository made in an empty folder; from there
//! it comes back here with its files. The clone's own files and branches, and the source's
//! session and branches, stay as they were; a folder of other files is refused.

use std::path::{Path, PathBuf};

use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};
use serde_json::Value;

use crate::remote::{id, Local};

/// git as the test's user (the kit's), its output trimmed.
fn git(dir: &Path, args: &[&str]) -> String {
    crate::host_kit::git(dir, args).trim().to_owned()
}

/// `fork THREAD --after N --to-host HOST --cwd DIR --trust yes`, then `extra`.
fn move_words<'a>(
    thread: &'a str,
    after: &'a str,
    host: &'a str,
    cwd: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut words = vec![
        "fork",
        thread,
        "--after",
        after,
        "--to-host",
        host,
        "--cwd",
        cwd,
        "--trust",
        "yes",
    ];
    words.extend_from_slice(extra);
    words
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn folder_of(moved: &Value) -> PathBuf {
    PathBuf::from(
        moved["files"]["folder"]
            .as_str()
            .unwrap_or_else(|| panic!("{moved}")),
    )
}

/// The two sides of a branch's move, before the server starts: the fake model, the remote's
/// harness environment holding a clone of this side's repository (made now, so it lacks what
/// the thread's turns write), this side's environment whose work folder is that repository
/// (`notes.txt` and the `extra` files committed), and the clone. `None` when Pi is not
/// installed and the suite allows skipping.
fn repo_and_clone(
    extra: &[(String, String)],
) -> Option<(FakeModel, HarnessEnv, HarnessEnv, PathBuf)> {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let remote = HarnessEnv::for_fake(Harness::Pi, &model).unwrap()?;
    let here = HarnessEnv::for_fake(Harness::Pi, &model).unwrap().unwrap();
    let repo = here.work_dir();
    git(repo, &["init", "-q", "-b", "main"]);
    for (name, text) in extra {
        std::fs::write(repo.join(name), text).unwrap();
    }
    std::fs::write(repo.join("notes.txt"), "start\n").unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "start"]);
    let clone = remote.work_dir().join("clone");
    git(
        remote.work_dir(),
        &["clone", "-q", repo.to_str().unwrap(), "clone"],
    );
    Some((model, remote, here, clone))
}

#[test]
fn pi_a_branch_moves_between_machines_with_its_files_as_of_that_message() {
    // This side's repository, with some history.
    let history: Vec<_> = (0..40)
        .map(|n| (format!("lib{n}.txt"), format!("{n}\n").repeat(400)))
        .collect();
    let Some((model, remote, here, clone)) = repo_and_clone(&history) else {
        return;
    };
    let repo = here.work_dir().to_path_buf();
    let Some(sshd) = Sshd::start(&remote, &forkhost_bin()) else {
        return;
    };
    sshd.trust_host_key();
    let local = Local::with_env(&sshd, &here);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);

    let cwd = repo.display().to_string();
    let source = id(&local.ok(&["new", "--harness", "pi", "--cwd", &cwd]));
    for n in ["one", "two"] {
        let prompt = format!("RUN_COMMAND `printf '{n}\\n' > notes.txt`");
        local.ok(&["send", &source, &prompt, "--approve", "none"]);
    }
    assert_eq!(read(&repo.join("notes.txt")), "two\n");
    let native = PathBuf::from(
        local.ok(&["show", &source])["thread"]["native"]["path"]
            .as_str()
            .unwrap(),
    );
    let (native_before, branches_before) = (
        std::fs::read(&native).unwrap(),
        git(&repo, &["for-each-ref", "refs/heads", "refs/tags"]),
    );
    let clone_branches = git(&clone, &["for-each-ref", "refs/heads", "refs/tags"]);

    // After turn 1, into the remote's clone: a new worktree there with notes.txt as of turn 1.
    let clone_arg = clone.display().to_string();
    let moved = local.ok(&move_words(&source, "1", "box", &clone_arg, &[]));
    let files = &moved["files"];
    assert_eq!(files["new_repository"], false, "{moved}");
    assert_eq!(
        files["prerequisites"], 1,
        "the clone's main is not sent: {moved}"
    );
    let thin = files["bundle_bytes"].as_u64().unwrap();
    let worktree = folder_of(&moved);
    assert!(
        worktree.starts_with(remote.root()),
        "{}",
        worktree.display()
    );
    assert_eq!(read(&worktree.join("notes.txt")), "one\n");
    assert_eq!(
        read(&clone.join("notes.txt")),
        "start\n",
        "the clone's files untouched"
    );
    let branches = git(&clone, &["for-each-ref", "refs/heads", "refs/tags"]);
    let (ours, theirs): (Vec<&str>, Vec<&str>) = branches
        .lines()
        .partition(|l| l.contains("refs/heads/forkhost/moved-"));
    assert_eq!(
        theirs.join("\n"),
        clone_branches,
        "the clone's branches untouched"
    );
    assert_eq!(ours.len(), 1, "the worktree's own branch: {branches}");
    assert_eq!(git(&clone, &["for-each-ref", "refs/forkhost/incoming"]), "");
    let there = moved["thread"]["id"].as_str().unwrap().to_owned();
    // Its lineage across machines: box keeps where it came from — this machine, by its host
    // name, the source thread and the turns that came along.
    let origin = &local.ok(&["--host", "box", "show", &there])["thread"]["moved_from"];
    assert_eq!(origin["thread"], source.as_str(), "{origin}");
    assert_eq!(origin["turns"], 1, "{origin}");
    let this_machine = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(origin["host"], this_machine.trim(), "{origin}");
    assert_eq!(moved["thread"]["moved_from"], *origin, "{moved}");
    local.ok(&["--host", "box", "send", &there, "on the remote"]);
    assert_eq!(
        model.last_model_request().unwrap().conversation().last(),
        Some(&Msg::user("on the remote"))
    );

    // After turn 2, into a folder that is not there yet: a new repository from a complete
    // bundle, larger than the thin one (it carries the history the clone had).
    let fresh = remote.root().join("elsewhere").display().to_string();
    let moved = local.ok(&move_words(&source, "2", "box", &fresh, &[]));
    assert_eq!(moved["files"]["new_repository"], true, "{moved}");
    assert_eq!(moved["files"]["prerequisites"], 0);
    assert!(
        moved["files"]["bundle_bytes"].as_u64().unwrap() > thin * 2,
        "{moved}"
    );
    let new_repo = folder_of(&moved);
    assert_eq!(read(&new_repo.join("notes.txt")), "two\n");
    assert_eq!(read(&new_repo.join("lib7.txt")), "7\n".repeat(400));
    let moved_id = moved["thread"]["id"].as_str().unwrap().to_owned();

    // And from there back here, into an empty folder: the files as of its turn 2 come along.
    let home = tempfile::tempdir().unwrap();
    let back_dir = home.path().join("back");
    let back_arg = back_dir.display().to_string();
    let mut from_box = vec!["--host", "box"];
    from_box.extend(move_words(&moved_id, "2", "local", &back_arg, &[]));
    let back = local.ok(&from_box);
    assert_eq!(back["host"], "local");
    assert_eq!(read(&folder_of(&back).join("notes.txt")), "two\n", "{back}");
    // Here it came from box, as this machine names that one.
    let back_id = back["thread"]["id"].as_str().unwrap().to_owned();
    let origin = &local.ok(&["show", &back_id])["thread"]["moved_from"];
    assert_eq!(
        (&origin["host"], &origin["thread"], &origin["turns"]),
        (&"box".into(), &moved_id.as_str().into(), &2.into()),
        "{origin}"
    );
    // A thread made here has no such origin.
    assert!(local.ok(&["show", &source])["thread"]["moved_from"].is_null());

    // A folder of other files is refused before anything moves; `--no-files` moves only the
    // conversation into it.
    let other = remote.root().join("home").display().to_string();
    let threads = |local: &Local| {
        local.ok(&["--host", "box", "threads"])["threads"]
            .as_array()
            .unwrap()
            .len()
    };
    let before = threads(&local);
    let (code, message) = local.error(&move_words(&source, "1", "box", &other, &[]));
    assert_eq!(code, "conflict", "{message}");
    assert_eq!(threads(&local), before);
    let plain = local.ok(&move_words(
        &source,
        "1",
        "box",
        &clone_arg,
        &["--no-files"],
    ));
    assert!(plain["files"].is_null(), "{plain}");
    assert_eq!(plain["thread"]["cwd"], clone_arg);

    assert_eq!(
        std::fs::read(&native).unwrap(),
        native_before,
        "the source is unchanged"
    );
    assert_eq!(
        git(&repo, &["for-each-ref", "refs/heads", "refs/tags"]),
        branches_before
    );
    assert_eq!(git(&repo, &["for-each-ref", "refs/forkhost/outgoing"]), "");
}

/// A branch moved to a machine that lacks its harness is refused there in words
/// (`harness_not_found`, naming the harness) before its files land: no thread, no worktree, no
/// branch and no new folder on the target, nothing new here, the source unchanged.
#[test]
fn pi_a_branch_moved_to_a_machine_without_its_harness_leaves_nothing_on_either_side() {
    let Some((_model, remote, here, clone)) = repo_and_clone(&[]) else {
        return;
    };
    let repo = here.work_dir().to_path_buf();
    let Some(sshd) = Sshd::start_lacking(&remote, &forkhost_bin(), &["FORKHOST_PI_BIN"]) else {
        return;
    };
    sshd.trust_host_key();
    let local = Local::with_env(&sshd, &here);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);

    let cwd = repo.display().to_string();
    let source = id(&local.ok(&["new", "--harness", "pi", "--cwd", &cwd]));
    local.ok(&[
        "send",
        &source,
        "RUN_COMMAND `printf 'one\\n' > notes.txt`",
        "--approve",
        "none",
    ]);
    let native = PathBuf::from(
        local.ok(&["show", &source])["thread"]["native"]["path"]
            .as_str()
            .unwrap(),
    );
    let native_before = std::fs::read(&native).unwrap();
    let worktrees = || git(&clone, &["worktree", "list", "--porcelain"]);
    let branches = || git(&clone, &["for-each-ref"]);
    let (worktrees_before, branches_before) = (worktrees(), branches());

    let new_folder = remote.work_dir().join("fresh");
    for target in [
        clone.display().to_string(),
        new_folder.display().to_string(),
    ] {
        let (code, message) = local.error(&move_words(&source, "1", "box", &target, &[]));
        assert_eq!(code, "harness_not_found", "{message}");
        assert!(
            message.contains("pi not found"),
            "names the harness: {message}"
        );
    }
    assert_eq!(
        local.ok(&["--host", "box", "threads"])["threads"],
        serde_json::json!([]),
        "no thread there"
    );
    assert_eq!(worktrees(), worktrees_before, "no worktree there");
    assert_eq!(branches(), branches_before, "no branch there");
    assert!(!new_folder.exists(), "no new folder there");
    assert_eq!(
        local.ok(&["threads"])["threads"].as_array().unwrap().len(),
        1,
        "nothing new here"
    );
    assert_eq!(std::fs::read(&native).unwrap(), native_before);
}
