mod common;

use common::{outside_folder, write_in, Sandbox};
use forkhost_worktree::{CheckpointSpec, Git, Repo, WorktreeError, WorktreeSpec};

#[test]
fn no_user_hook_runs() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let marker = repo.path.join("hook-ran");
    let hooks = repo.path.join(".git/hooks");
    for hook in [
        "reference-transaction",
        "post-checkout",
        "pre-commit",
        "post-commit",
    ] {
        let script = format!("#!/bin/sh\necho {hook} >> \"{}\"\n", marker.display());
        forkhost_test_script::write_executable(&hooks.join(hook), &script).expect("hook");
    }
    // The hooks do run for the test's own git (so this test can fail).
    repo.git(&["update-ref", "refs/test/probe", "HEAD"]);
    assert!(marker.exists(), "hooks are live");
    std::fs::remove_file(&marker).expect("reset marker");

    let r = repo.open();
    repo.write("b.txt", "b");
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1"))
        .expect("checkpoint");
    let (_keep, path) = outside_folder("hooks");
    r.create_worktree(&WorktreeSpec {
        at: cp.commit,
        path,
        branch: "forkhost/hooks".into(),
    })
    .expect("worktree");
    r.prune("t").expect("prune");
    assert!(
        !marker.exists(),
        "a hook ran: {:?}",
        std::fs::read_to_string(&marker)
    );
}

#[test]
fn a_checkpoint_inside_a_linked_worktree_records_that_worktree_and_keeps_both_indexes() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "main");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("linked");
    r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/linked".into(),
    })
    .expect("worktree");
    write_in(&path, "a.txt", "linked edit");
    write_in(&path, "only-here.txt", "x");
    let main_index = repo.index_bytes();
    let linked = Repo::discover(&sb.git, &path)
        .expect("discover")
        .expect("repo");
    let linked_gitdir = repo.git_in(&path, &["rev-parse", "--absolute-git-dir"]);
    let linked_index = std::fs::read(format!("{}/index", linked_gitdir.trim())).expect("index");

    let cp = linked
        .checkpoint(&CheckpointSpec::new("l", "t1"))
        .expect("checkpoint");
    let c = cp.commit.as_str();
    assert_eq!(repo.git(&["show", &format!("{c}:a.txt")]), "linked edit");
    assert_eq!(repo.git(&["show", &format!("{c}:only-here.txt")]), "x");
    assert_eq!(repo.index_bytes(), main_index);
    assert_eq!(
        std::fs::read(format!("{}/index", linked_gitdir.trim())).expect("index"),
        linked_index
    );
    // The ref is shared: the main checkout sees it.
    assert_eq!(r.checkpoints("l").expect("list").len(), 1);
}

#[test]
fn names_with_pathspec_magic_are_taken_literally() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write("*.txt", "star");
    repo.write(":(glob)odd", "colon");
    repo.write("big [1].bin", vec![1u8; 2048]);
    repo.write("big [2].bin", vec![1u8; 10]);
    let cp = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t", "t1").size_limit(1024))
        .expect("checkpoint");
    let listed = repo.git(&["ls-tree", "-r", "-z", "--name-only", cp.commit.as_str()]);
    let mut paths: Vec<&str> = listed.split('\0').filter(|s| !s.is_empty()).collect();
    paths.sort();
    assert_eq!(paths, vec!["*.txt", ":(glob)odd", "a.txt", "big [2].bin"]);
    assert_eq!(cp.skipped.len(), 1);
    assert_eq!(cp.skipped[0].path, "big [1].bin");
}

#[test]
fn a_missing_git_program_is_git_missing() {
    let sb = Sandbox::new();
    let git = Git::with_program("/definitely/not/here/git-forkhost").expect("runner");
    match Repo::discover(&git, sb.home.path()) {
        Err(WorktreeError::GitMissing(p)) => assert!(p.ends_with("git-forkhost")),
        other => panic!("expected GitMissing, got {other:?}"),
    }
}

#[test]
fn an_unknown_checkpoint_is_checkpoint_not_found() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let missing = "0123456789abcdef0123456789abcdef01234567"
        .parse()
        .expect("oid");
    let (_keep, path) = outside_folder("nope");
    assert!(matches!(
        r.create_worktree(&WorktreeSpec {
            at: missing,
            path,
            branch: "forkhost/nope".into()
        }),
        Err(WorktreeError::CheckpointNotFound(_))
    ));
    assert!(matches!(
        r.checkpoint_commit("t", "never"),
        Err(WorktreeError::CheckpointNotFound(_))
    ));
}
