mod common;

use common::Sandbox;
use forkhost_worktree::{CheckpointSpec, Repo, SkipReason, REF_PREFIX};

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
