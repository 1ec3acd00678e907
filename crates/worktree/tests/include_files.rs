//! `.worktreeinclude` at its edges: a pattern that matches only files git does not ignore (they
//! are in the checkpoint already), a file the new worktree already has, and git failing to say
//! which files it ignores.

mod common;

use common::{outside_folder, Sandbox};
use forkhost_worktree::{CheckpointSpec, WorktreeSpec, INCLUDE_FILE};
#[cfg(unix)]
use forkhost_worktree::{Repo, WorktreeError};

/// Every file the patterns match is one the repository does not ignore (git's "none ignored"
/// answer, exit 1): nothing is copied, and the worktree is made with the file from the
/// checkpoint.
#[test]
fn include_patterns_matching_no_ignored_file_copy_nothing() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(INCLUDE_FILE, "notes.txt\n");
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write("notes.txt", "untracked, not ignored");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1"))
        .expect("checkpoint");
    let (_keep, path) = outside_folder("none ignored");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: cp.commit,
            path: path.clone(),
            branch: "forkhost/none-ignored".into(),
        })
        .expect("worktree");
    assert!(wt.included.is_empty(), "{:?}", wt.included);
    assert_eq!(
        std::fs::read(path.join("notes.txt")).expect("from the checkpoint"),
        b"untracked, not ignored"
    );
}

/// A file the checkpoint holds (it was not ignored then) keeps the checkpoint's content in the
/// new worktree, even when the source's file is ignored and listed by now: copying never
/// overwrites.
#[test]
fn an_included_file_never_overwrites_what_the_worktree_has() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(INCLUDE_FILE, ".env\n");
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write(".env", "KEY=at the checkpoint\n");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1"))
        .expect("checkpoint");
    repo.write(".gitignore", ".env\n");
    repo.write(".env", "KEY=changed since\n");
    let (_keep, path) = outside_folder("kept");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: cp.commit,
            path: path.clone(),
            branch: "forkhost/kept".into(),
        })
        .expect("worktree");
    assert!(wt.included.is_empty(), "{:?}", wt.included);
    assert_eq!(
        std::fs::read(path.join(".env")).expect(".env"),
        b"KEY=at the checkpoint\n"
    );
}

/// Git failing to say which files it ignores is an error, not "nothing to copy": the fork
/// would otherwise start without the `.env` it needs and no one would know why.
#[cfg(unix)]
#[test]
fn a_failing_ignore_check_is_an_error() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(".gitignore", ".env\n");
    repo.write(INCLUDE_FILE, ".env\n");
    repo.commit_all("first");
    repo.write(".env", "KEY=1\n");
    // A `git` whose `check-ignore` fails as a broken install or a full disk would.
    let (_bin, git) = common::wrapped_git(
        &sb,
        "for a in \"$@\"; do if [ \"$a\" = check-ignore ]; then echo 'fatal: cannot read' >&2; exit 128; fi; done",
    );
    let r = Repo::discover(&git, &repo.path).unwrap().unwrap();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("failing");
    match r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/failing".into(),
    }) {
        Err(WorktreeError::GitFailed {
            command,
            stderr_tail,
        }) => {
            assert!(command.contains("check-ignore"), "{command}");
            assert!(stderr_tail.contains("cannot read"), "{stderr_tail}");
        }
        other => panic!("expected GitFailed, got {other:?}"),
    }
}
