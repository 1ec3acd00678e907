mod common;

use common::Sandbox;
use forkhost_worktree::{CheckpointSpec, Repo, SkipReason, WorktreeError, REF_PREFIX};

/// The tree of a commit as sorted paths.
fn tree_paths(repo: &common::TestRepo, commit: &str) -> Vec<String> {
    let out = repo.git(&["ls-tree", "-r", "-z", "--name-only", commit]);
    let mut paths: Vec<String> = out
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    paths.sort();
    paths
}

#[test]
fn checkpoint_leaves_index_head_branch_stash_and_files_unchanged() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "one\n");
    repo.write("b.txt", "bee\n");
    repo.commit_all("first");
    // A stash entry, a staged change, an unstaged change and an untracked file.
    repo.write("a.txt", "stashed\n");
    repo.git(&["stash", "-q"]);
    repo.write("a.txt", "staged\n");
    repo.git(&["add", "a.txt"]);
    repo.write("a.txt", "staged then edited\n");
    repo.write("b.txt", "unstaged\n");
    repo.write("new file.txt", "untracked\n");

    let index = repo.index_bytes().expect("index exists");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let branch = repo.git(&["symbolic-ref", "HEAD"]);
    let stash = repo.git(&["stash", "list", "--format=%H"]);
    let status = repo.git(&["status", "--porcelain=v1"]);
    let files = repo.files();

    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-start"))
        .expect("checkpoint");

    assert_eq!(repo.index_bytes().expect("index"), index, "index bytes");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.git(&["symbolic-ref", "HEAD"]), branch);
    assert_eq!(repo.git(&["stash", "list", "--format=%H"]), stash);
    assert_eq!(repo.files(), files, "working files");
    assert_eq!(repo.git(&["status", "--porcelain=v1"]), status);

    // The checkpoint holds the working contents, not the staged ones.
    assert_eq!(cp.r#ref, format!("{REF_PREFIX}t1/t1-start"));
    let c = cp.commit.as_str();
    assert_eq!(
        repo.git(&["show", &format!("{c}:a.txt")]),
        "staged then edited\n"
    );
    assert_eq!(repo.git(&["show", &format!("{c}:b.txt")]), "unstaged\n");
    assert_eq!(
        repo.git(&["show", &format!("{c}:new file.txt")]),
        "untracked\n"
    );
    assert_eq!(repo.git(&["rev-parse", &format!("{c}^")]), head);
    assert_eq!(cp.files_changed_vs_parent, 3);
    // Not visible as a branch or stash.
    assert_eq!(repo.git(&["branch", "--list"]).lines().count(), 1);
    let author = repo.git(&["log", "-1", "--format=%an <%ae>", c]);
    assert_eq!(author.trim(), "Forkhost <forkhost@localhost>");
}

#[test]
fn checkpoint_includes_untracked_and_skips_ignored_and_large_files() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(".gitignore", "node_modules/\n*.log\n");
    repo.write("src/main.rs", "fn main() {}\n");
    repo.commit_all("first");
    repo.write("node_modules/left-pad/index.js", "module.exports = 1;\n");
    repo.write("debug.log", "noise\n");
    repo.write("src/new.rs", "// new\n");
    repo.write("big.bin", vec![7u8; 4096]);
    repo.write("small.bin", vec![7u8; 100]);

    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-end").size_limit(1000))
        .expect("checkpoint");
    let paths = tree_paths(&repo, cp.commit.as_str());
    assert_eq!(
        paths,
        vec![".gitignore", "small.bin", "src/main.rs", "src/new.rs"]
    );
    assert_eq!(cp.skipped.len(), 1);
    assert_eq!(cp.skipped[0].path, "big.bin");
    assert_eq!(cp.skipped[0].reason, SkipReason::TooLarge(4096));
    assert_eq!(cp.files_changed_vs_parent, 2);
}

/// Without a limit of its own a checkpoint keeps untracked files up to 20 MiB: a 2 MiB one is
/// recorded, one byte over 20 MiB is not (a sparse file: it is never read).
#[test]
fn the_default_size_limit_is_twenty_mebibytes() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write("medium.bin", vec![7u8; 2 * 1024 * 1024]);
    let over = std::fs::File::create(repo.path.join("over.bin")).expect("create");
    over.set_len(20 * 1024 * 1024 + 1).expect("sparse length");
    drop(over);
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-end"))
        .expect("checkpoint");
    assert_eq!(
        tree_paths(&repo, cp.commit.as_str()),
        vec!["a.txt", "medium.bin"]
    );
    assert_eq!(cp.skipped.len(), 1, "{:?}", cp.skipped);
    assert_eq!(cp.skipped[0].path, "over.bin");
    assert_eq!(
        cp.skipped[0].reason,
        SkipReason::TooLarge(20 * 1024 * 1024 + 1)
    );
}

/// The limit is the largest size kept: a file of exactly the limit is recorded.
#[test]
fn a_file_of_exactly_the_size_limit_is_kept() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write("at.bin", vec![7u8; 4096]);
    repo.write("over.bin", vec![7u8; 4097]);
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-end").size_limit(4096))
        .expect("checkpoint");
    assert_eq!(
        tree_paths(&repo, cp.commit.as_str()),
        vec!["a.txt", "at.bin"]
    );
    assert_eq!(cp.skipped.len(), 1, "{:?}", cp.skipped);
    assert_eq!(cp.skipped[0].path, "over.bin");
}

/// An index that exists but cannot be read is an error, never taken for a repository without
/// one: starting from an empty index would drop every tracked file outside the thread's folder
/// from the checkpoint.
#[test]
fn an_index_that_cannot_be_read_is_an_error() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let index = repo.path.join(".git/index");
    std::fs::remove_file(&index).expect("index");
    std::fs::create_dir(&index).expect("a folder in its place");
    match repo.open().checkpoint(&CheckpointSpec::new("t1", "t1-end")) {
        Err(WorktreeError::Io(_)) => {}
        other => panic!("expected an I/O error, got {other:?}"),
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/forkhost"]), "");
}

/// A file rewritten within the clock tick its index was written in keeps a stat git cannot
/// tell from the staged one (same size, same mtime): git re-reads such an entry because the
/// index file is no older than it ("racily clean"). The checkpoint's private copy of the index
/// must keep the real index's time for git to see that, or the edit is silently left out (as
/// `chained_checkpoints_store_each_turn` showed now and then under load). The times are set by
/// hand to make the tick certain; ctime cannot be set, so this repository does not trust it.
#[test]
fn an_edit_in_the_clock_tick_of_the_index_write_is_recorded() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.git(&["config", "core.trustctime", "false"]);
    let file = repo.path.join("notes.txt");
    let set_time = |path: &std::path::Path, time: std::time::SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    };
    // Staged from a file older than the index, so git has no reason to mark the entry.
    let staged_at = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    repo.write("notes.txt", "start\n");
    set_time(&file, staged_at);
    repo.commit_all("first");
    // The same size, rewritten in the tick the index was written in.
    repo.write("notes.txt", "turn 1");
    set_time(&file, staged_at);
    set_time(&repo.path.join(".git/index"), staged_at);
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-end"))
        .expect("checkpoint");
    assert_eq!(
        repo.git(&["show", &format!("{}:notes.txt", cp.commit)]),
        "turn 1"
    );
}

#[test]
fn chained_checkpoints_store_each_turn() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("notes.txt", "start\n");
    repo.commit_all("first");
    let r = repo.open();
    let mut parent = None;
    let mut commits = Vec::new();
    for n in 1..=3 {
        repo.write("notes.txt", format!("turn {n}"));
        repo.write(&format!("turn{n}.txt"), format!("made in turn {n}\n"));
        let mut spec = CheckpointSpec::new("th", format!("t{n}-end"));
        if let Some(p) = parent.take() {
            spec = spec.parent(p);
        }
        let cp = r.checkpoint(&spec).expect("checkpoint");
        // Each turn changes notes.txt and adds one file.
        assert_eq!(cp.files_changed_vs_parent, 2, "turn {n}");
        parent = Some(cp.commit.clone());
        commits.push(cp.commit);
    }
    assert_eq!(
        repo.git(&["rev-parse", &format!("{}^", commits[2])]).trim(),
        commits[1].as_str()
    );
    let listed = r.checkpoints("th").expect("list");
    let labels: Vec<&str> = listed.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, vec!["t1-end", "t2-end", "t3-end"]);
    assert_eq!(listed[0].1, commits[0]);
    assert_eq!(r.checkpoint_commit("th", "t2-end").expect("t2"), commits[1]);
}

#[test]
fn unborn_repository_checkpoints_without_a_parent() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("readme.md", "hello\n");
    repo.write("src/lib.rs", "\n");
    let had_index = repo.index_bytes();
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t", "t1-start"))
        .expect("checkpoint");
    assert_eq!(cp.files_changed_vs_parent, 2);
    assert!(!repo.git_ok(&["rev-parse", "--verify", "-q", &format!("{}^", cp.commit)]));
    assert!(
        !repo.git_ok(&["rev-parse", "--verify", "-q", "HEAD"]),
        "HEAD still unborn"
    );
    assert_eq!(repo.index_bytes(), had_index, "no index appeared");
    assert_eq!(
        tree_paths(&repo, cp.commit.as_str()),
        vec!["readme.md", "src/lib.rs"]
    );
}

#[test]
fn a_plain_folder_is_not_a_repository() {
    let sb = Sandbox::new();
    let plain = sb.plain_folder();
    let found = Repo::discover(&sb.git, plain.path()).expect("discover");
    assert!(found.is_none());
}

#[test]
fn prune_deletes_only_the_threads_refs() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("f", "x\n");
    repo.commit_all("first");
    repo.git(&["tag", "v1"]);
    repo.git(&["branch", "feature"]);
    let r = repo.open();
    r.checkpoint(&CheckpointSpec::new("a", "t1-start"))
        .expect("a1");
    r.checkpoint(&CheckpointSpec::new("a", "t1-end"))
        .expect("a2");
    r.checkpoint(&CheckpointSpec::new("ab", "t1-start"))
        .expect("ab");
    r.checkpoint(&CheckpointSpec::new("b", "t1-start"))
        .expect("b");
    let before = repo.git(&["for-each-ref", "--format=%(refname)"]);

    assert_eq!(r.prune("a").expect("prune"), 2);
    let after = repo.git(&["for-each-ref", "--format=%(refname)"]);
    let expected: Vec<&str> = before
        .lines()
        .filter(|l| !l.starts_with("refs/forkhost/a/"))
        .collect();
    assert_eq!(after.lines().collect::<Vec<_>>(), expected);
    assert!(after.contains("refs/forkhost/ab/t1-start"));
    assert!(after.contains("refs/forkhost/b/t1-start"));
    assert!(after.contains("refs/tags/v1") && after.contains("refs/heads/feature"));
    assert!(r.checkpoints("a").expect("list").is_empty());
}

#[test]
fn names_that_could_escape_the_namespace_are_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("f", "x\n");
    repo.commit_all("first");
    let r = repo.open();
    for bad in ["../heads/main", "a/b", "", ".hidden", "x.lock", "sp ace"] {
        assert!(
            r.checkpoint(&CheckpointSpec::new(bad, "l")).is_err(),
            "thread {bad:?}"
        );
        assert!(r.prune(bad).is_err(), "prune {bad:?}");
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/forkhost"]), "");
}

#[test]
fn checkpoint_records_deletions_a_file_turned_folder_and_a_merge_conflict() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("gone.txt", "x\n");
    repo.write("thing", "a file\n");
    repo.write("c.txt", "base\n");
    repo.commit_all("first");
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("c.txt", "other\n");
    repo.commit_all("other");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("c.txt", "main\n");
    repo.commit_all("main");
    // A merge left in conflict: the index has unmerged entries.
    assert!(!repo.git_ok(&["merge", "-q", "other"]));
    let index = repo.index_bytes();
    std::fs::remove_file(repo.path.join("gone.txt")).expect("delete");
    std::fs::remove_file(repo.path.join("thing")).expect("delete");
    repo.write("thing/inside.txt", "now a folder\n");

    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t", "t1"))
        .expect("checkpoint");
    assert_eq!(
        tree_paths(&repo, cp.commit.as_str()),
        vec!["c.txt", "thing/inside.txt"]
    );
    let c = repo.git(&["show", &format!("{}:c.txt", cp.commit)]);
    assert!(
        c.contains("<<<<<<<"),
        "the conflicted file as it is on disk: {c}"
    );
    assert_eq!(repo.index_bytes(), index, "still mid-merge for the user");
}

/// A repository far larger than the thread's folder (a dotfiles repository in the home folder):
/// a checkpoint given the folder records no untracked file and no unsaved edit outside it.
#[test]
fn a_checkpoint_within_a_folder_records_nothing_outside_it() {
    let sb = Sandbox::new();
    let home = sb.repo();
    home.write(".bashrc", "committed\n");
    home.commit_all("dotfiles");
    home.write(".bashrc", "edited, with a token\n");
    home.write("secret.txt", "hunter2\n");
    home.write(".ssh/id_ed25519", "PRIVATE KEY\n");
    home.write("proj/main.rs", "fn main() {}\n");
    home.write("proj/src/lib.rs", "// lib\n");
    let proj = home.path.join("proj");

    let cp = home
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-start").within(&proj))
        .expect("checkpoint");
    let paths = tree_paths(&home, cp.commit.as_str());
    assert_eq!(paths, vec![".bashrc", "proj/main.rs", "proj/src/lib.rs"]);
    let c = cp.commit.as_str();
    assert_eq!(
        home.git(&["show", &format!("{c}:.bashrc")]),
        "committed\n",
        "a tracked file outside keeps its committed contents, not the edit"
    );
    // Without the scope the whole home folder would be recorded (the finding).
    let all = home
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "whole"))
        .expect("checkpoint");
    assert!(tree_paths(&home, all.commit.as_str()).contains(&"secret.txt".to_owned()));
}

/// `status.showUntrackedFiles=no` (the dotfiles convention) means no untracked file is
/// recorded; edits to tracked files still are.
#[test]
fn show_untracked_files_no_is_respected() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "one\n");
    repo.commit_all("first");
    repo.git(&["config", "status.showUntrackedFiles", "no"]);
    repo.write("a.txt", "two\n");
    repo.write("untracked.txt", "not asked for\n");
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t1", "t1-start").within(&repo.path))
        .expect("checkpoint");
    assert_eq!(tree_paths(&repo, cp.commit.as_str()), vec!["a.txt"]);
    assert_eq!(
        repo.git(&["show", &format!("{}:a.txt", cp.commit.as_str())]),
        "two\n"
    );
}

/// A git that hangs is killed at its deadline with what it started, and the call is a typed
/// error rather than a wait without end.
#[cfg(unix)]
#[test]
fn a_hung_git_is_killed_at_its_deadline() {
    use forkhost_worktree::WorktreeError;
    use std::time::{Duration, Instant};

    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "one\n");
    repo.commit_all("first");
    // A `git` whose `status` hangs in a child process (as a stuck filter or lock would).
    let bin = tempfile::tempdir().unwrap();
    let pid_file = bin.path().join("sleep.pid");
    let (_wrapper, git) = common::wrapped_git(
        &sb,
        &format!(
            "for a in \"$@\"; do if [ \"$a\" = status ]; then sleep 60 & echo $! > '{}'; wait; fi; done",
            pid_file.display()
        ),
    );
    let git = git.timeout(Duration::from_secs(2));
    let r = Repo::discover(&git, &repo.path).unwrap().unwrap();
    // The call runs on a thread of its own, so that a call that never returns fails this test
    // instead of hanging the suite.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(r.checkpoint(&CheckpointSpec::new("t1", "t1-start")));
    });
    let err = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the call returns soon after its 2 s deadline")
        .unwrap_err();
    assert!(
        matches!(err, WorktreeError::GitTimedOut { .. }),
        "expected a timeout, got {err:?}"
    );
    assert!(err.to_string().contains("git status"), "{err}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let alive = || std::path::Path::new(&format!("/proc/{}", pid.trim())).exists();
    let until = Instant::now() + Duration::from_secs(5);
    while alive() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "the hung git's child was killed too");
}
