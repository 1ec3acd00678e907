//! The CLI's spare worktree (docs/architecture.md "Files of a thread"): a `forkhost fork
//! --worktree` hands the repository's spare checkout to a `forkhost spare-fill` process of its
//! own, which outlives the command, so the next worktree fork in the repository claims a filled
//! spare (git then writes only what differs) instead of a full checkout. Pi against the fake
//! model in a temporary git repository. Its two fork times are printed, nothing asserted
//! about time. The repository has 300 small files, or with `FORKHOST_BENCH_FILES=N` N files of
//! 20 KiB (50,000: the 1 GB repository of docs/architecture.md "Budgets"):
//! `FORKHOST_BENCH_FILES=50000 cargo test -p forkhost-tests --test cli_spare -- --nocapture`.

// Inodes tell a claimed spare's files from freshly written ones.
#![cfg(unix)]

use crate::host_kit;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use forkhost_tests::cli::Cli;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use host_kit::git;
use serde_json::Value;

/// Files in the repository, and the bytes of each (a test's few small ones by default).
fn repository_size() -> (usize, usize) {
    match std::env::var("FORKHOST_BENCH_FILES")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        Some(files) if files > 300 => (files, 20 * 1024),
        _ => (300, 0),
    }
}

fn id(json: &Value) -> String {
    json["thread"]["id"].as_str().unwrap().to_owned()
}

/// The repository's spare under the data folder once it is filled (its checkout written and
/// its marker gone), waiting up to a minute.
fn filled_spare(data: &Path, files: usize) -> PathBuf {
    // A full checkout's time: about 8 s for 50,000 files of 20 KiB on a quiet machine.
    let limit = Duration::from_secs(60 + files as u64 / 250);
    let deadline = Instant::now() + limit;
    loop {
        let spare = std::fs::read_dir(data.join("worktrees"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|repo| repo.path().join("spare"))
            .find(|spare| spare.join(".git").is_file());
        if let Some(spare) = spare {
            let link = std::fs::read_to_string(spare.join(".git")).unwrap_or_default();
            let git_dir = PathBuf::from(link.trim().trim_start_matches("gitdir:").trim());
            let git_dir = if git_dir.is_absolute() {
                git_dir
            } else {
                spare.join(git_dir)
            };
            if git_dir.join("forkhost-spare").exists()
                && !git_dir.join("forkhost-filling").exists()
                && spare.join("src/f0299.txt").exists()
            {
                return spare;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no filled spare worktree under {} after {limit:?}",
            data.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn pi_a_cli_worktree_fork_leaves_a_filled_spare_that_the_next_fork_claims() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let repo = env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    let (files, size) = repository_size();
    for i in 0..files {
        // 100 files a folder, as in a real tree (src/f0007.txt is in the first).
        let dir = repo.join(if i < 300 {
            "src".to_owned()
        } else {
            format!("src/d{}", i / 100)
        });
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let mut text = format!("file {i}\n").into_bytes();
        text.resize(text.len().max(size), b'x');
        std::fs::write(dir.join(format!("f{i:04}.txt")), text).unwrap();
    }
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

    let started = Instant::now();
    let first = cli.ok(&["fork", &source, "--after", "1", "--worktree"]);
    let first_ms = started.elapsed().as_millis();
    let first_dir = PathBuf::from(first["thread"]["cwd"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(first_dir.join("notes.txt")).unwrap(),
        "one\n"
    );

    // The command has ended; its spare is filled by the process it handed it to.
    let spare = filled_spare(data.path(), files);
    let inode = |path: &Path| std::fs::metadata(path).unwrap().ino();
    let spare_file = inode(&spare.join("src/f0007.txt"));

    let started = Instant::now();
    let second = cli.ok(&["fork", &source, "--after", "1", "--worktree"]);
    let second_ms = started.elapsed().as_millis();
    let second_dir = PathBuf::from(second["thread"]["cwd"].as_str().unwrap());
    assert_eq!(
        inode(&second_dir.join("src/f0007.txt")),
        spare_file,
        "the second fork's files are the spare's, not a new checkout"
    );
    assert_eq!(
        std::fs::read_to_string(second_dir.join("notes.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        git(&second_dir, &["status", "--porcelain"]),
        "",
        "the claimed spare holds exactly the fork point's files"
    );
    assert_ne!(id(&first), id(&second));
    // And a spare again for the fork after (the test's folder then outlives every process).
    let next = filled_spare(data.path(), files);
    assert_ne!(inode(&next.join("src/f0007.txt")), spare_file);
    println!(
        "bench: `forkhost fork --worktree` ({files} files of {size} bytes): {first_ms} ms without a spare, {second_ms} ms claiming the spare"
    );
}
