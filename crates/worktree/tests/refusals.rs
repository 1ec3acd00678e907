//! What the crate refuses, wherever it is asked from: the user's main checkout is never removed,
//! a branch name outside the safe alphabet never reaches git, and a commit id must be whole.

mod common;

use common::{outside_folder, Sandbox};
use forkhost_worktree::{Confirm, Oid, Repo, WorktreeError, WorktreeSpec};

/// Asked through a linked worktree of the same repository, the main checkout is still the
/// user's own folder: refused as not a worktree, even with its exact loss "accepted" (the path
/// that would force the removal), and its files stay.
#[test]
fn the_main_checkout_is_refused_from_a_linked_worktree_too() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
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
    repo.write("a.txt", "unsaved work in the main checkout");
    let linked = Repo::discover(&sb.git, &path)
        .expect("discover")
        .expect("repo");

    let loss = linked.worktree_state(&repo.path).expect("state").loss();
    assert_eq!(
        loss.files,
        vec!["a.txt"],
        "the main checkout's edit is seen"
    );
    for confirm in [Confirm::NothingToLose, Confirm::Accept(loss)] {
        match linked.remove_worktree(&repo.path, confirm.clone()) {
            Err(WorktreeError::NotAWorktree(p)) => assert_eq!(p, repo.path),
            other => panic!("{confirm:?}: expected NotAWorktree, got {other:?}"),
        }
    }
    assert_eq!(repo.read("a.txt"), b"unsaved work in the main checkout");
    assert!(repo.path.join(".git").is_dir());
}

/// A branch name outside the safe alphabet is refused before git runs: no folder, no branch.
#[test]
fn a_worktree_branch_outside_the_safe_alphabet_is_refused() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    for bad in [
        "forkhost/../main",
        "forkhost/a b",
        "forkhost/",
        "-x",
        "forkhost/x.lock",
    ] {
        let (_keep, path) = outside_folder("refused");
        match r.create_worktree(&WorktreeSpec {
            at: head.clone(),
            path: path.clone(),
            branch: bad.into(),
        }) {
            Err(WorktreeError::InvalidName(name)) => assert_eq!(name, bad),
            other => panic!("{bad:?}: expected InvalidName, got {other:?}"),
        }
        assert!(!path.exists(), "{bad:?} made a folder");
    }
    assert_eq!(
        repo.git(&["for-each-ref", "--format=%(refname)", "refs/heads"]),
        "refs/heads/main\n"
    );
}

/// Only a whole object id (40 hex digits, or 64 in a SHA-256 repository) is an `Oid`: a
/// shortened or damaged one read back from the store would otherwise resolve, by prefix, to
/// whatever commit happens to start that way.
#[test]
fn only_a_whole_hex_object_id_is_an_oid() {
    let sha1 = "0123456789abcdef0123456789ABCDEF01234567";
    let sha256 = "a".repeat(64);
    assert_eq!(
        sha1.parse::<Oid>().expect("sha-1").as_str(),
        sha1.to_ascii_lowercase()
    );
    assert_eq!(sha256.parse::<Oid>().expect("sha-256").as_str(), sha256);
    for bad in [
        "0123456",
        &sha1[..39],
        &format!("{sha1}0"),
        "0123456789abcdef0123456789abcdef0123456g",
        &format!("{}z", &sha256[..63]),
        "",
    ] {
        assert!(bad.parse::<Oid>().is_err(), "{bad:?}");
    }
}
