//! A worktree added at once and filled afterwards: the add writes no file, the fill writes
//! exactly the commit's files with progress, and a fill that fails leaves a worktree that is
//! known to be half made and can be discarded, its branch with it (and nothing else).

mod common;

use std::sync::{Arc, Mutex};

use common::{files_in, outside_folder, Sandbox};
use forkhost_worktree::{FillProgress, WorktreeError, WorktreeSpec, INCLUDE_FILE};

fn committed(sb: &Sandbox, files: usize) -> common::TestRepo {
    let repo = sb.repo();
    for i in 0..files {
        repo.write(&format!("d{}/f{i}.txt", i % 10), format!("file {i}\n"));
    }
    repo.write(".gitignore", ".env\n");
    repo.write(INCLUDE_FILE, ".env\n");
    repo.commit_all("files");
    repo.write(".env", "SECRET=1\n");
    repo
}

#[test]
fn a_worktree_is_added_at_once_then_filled_with_progress() {
    let sb = Sandbox::new();
    let repo = committed(&sb, 300);
    let r = repo.open();
    let (_keep, path) = outside_folder("fork");
    let head = r.head().unwrap().unwrap();
    let spec = WorktreeSpec {
        at: head.clone(),
        path: path.clone(),
        branch: "forkhost/fill".into(),
    };
    let mut made = r.add_worktree(&spec).unwrap();
    assert!(files_in(&path).is_empty(), "no file written by the add");
    assert!(r.worktree_needs_fill(&path).unwrap());
    assert_eq!(made.branch, "forkhost/fill");

    let seen: Arc<Mutex<Vec<FillProgress>>> = Arc::default();
    let into = Arc::clone(&seen);
    r.fill_worktree(&mut made, move |p| into.lock().unwrap().push(p))
        .unwrap();
    assert!(!r.worktree_needs_fill(&path).unwrap());
    let seen = seen.lock().unwrap().clone();
    let last = seen.last().copied().expect("progress reported");
    assert_eq!(last.done, last.total);
    assert_eq!(last.total, 302, "every file of the commit");
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));
    // Exactly the commit's files (and the include copy), a clean status, on its branch.
    let mut want = files_in(&repo.path);
    want.retain(|(p, _)| p != ".env");
    let mut got = files_in(&path);
    assert!(got.contains(&(".env".into(), b"SECRET=1\n".to_vec())));
    got.retain(|(p, _)| p != ".env");
    assert_eq!(got, want);
    assert_eq!(made.included, [".env"]);
    assert_eq!(repo.git_in(&path, &["status", "--porcelain"]), "");
    assert_eq!(
        repo.git_in(&path, &["symbolic-ref", "--short", "HEAD"])
            .trim(),
        "forkhost/fill"
    );
    // A filled worktree is no longer the crate's to discard.
    assert!(matches!(
        r.discard_worktree(&made),
        Err(WorktreeError::NotAWorktree(_))
    ));
    assert!(path.exists());
}

#[test]
fn a_failed_fill_leaves_a_half_made_worktree_that_is_discarded_with_its_branch() {
    let sb = Sandbox::new();
    let repo = committed(&sb, 20);
    // A required smudge filter that fails: checkout cannot write `x.dat`.
    repo.write(".gitattributes", "*.dat filter=broken\n");
    repo.git(&["config", "--global", "filter.broken.clean", "cat"]);
    repo.git(&["config", "--global", "filter.broken.smudge", "false"]);
    repo.git(&["config", "--global", "filter.broken.required", "true"]);
    repo.write("x.dat", "data\n");
    repo.commit_all("with a filtered file");
    let r = repo.open();
    let (_keep, path) = outside_folder("fork");
    let mut made = r
        .add_worktree(&WorktreeSpec {
            at: r.head().unwrap().unwrap(),
            path: path.clone(),
            branch: "forkhost/broken".into(),
        })
        .unwrap();
    let err = r.fill_worktree(&mut made, |_| {}).unwrap_err();
    assert!(err.to_string().contains("broken"), "{err}");
    assert!(r.worktree_needs_fill(&path).unwrap());

    let branches = |r: &common::TestRepo| r.git(&["branch", "--list", "--format=%(refname)"]);
    assert!(branches(&repo).contains("refs/heads/forkhost/broken"));
    r.discard_worktree(&made).unwrap();
    assert!(!path.exists(), "its folder is gone");
    assert!(
        !branches(&repo).contains("forkhost/broken"),
        "and its branch"
    );
    assert!(
        branches(&repo).contains("refs/heads/main"),
        "the user's stays"
    );
    assert_eq!(
        repo.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}
