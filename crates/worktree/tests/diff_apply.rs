mod common;

use common::{files_in, outside_folder, write_in, Sandbox, TestRepo};
use forkhost_worktree::{CheckpointSpec, FileStatus, Oid, Repo, WorktreeError, WorktreeSpec};

/// A repository with a base commit, then a checkpoint of a turn that modifies, adds, deletes,
/// renames and writes a binary file.
fn changed_repo(sb: &Sandbox) -> (TestRepo, Repo, Oid, Oid) {
    let repo = sb.repo();
    repo.write("keep.txt", "1\n2\n3\n");
    repo.write("gone.txt", "bye\n");
    let long: String = (0..40).map(|i| format!("line {i}\n")).collect();
    repo.write("old name.txt", &long);
    repo.write("logo.png", [0u8, 1, 2, 3, 0, 255]);
    repo.commit_all("base");
    let r = repo.open();
    let base = r.head().expect("head").expect("born");
    repo.write("keep.txt", "1\nTWO\n3\n4\n");
    std::fs::remove_file(repo.path.join("gone.txt")).expect("delete");
    std::fs::rename(
        repo.path.join("old name.txt"),
        repo.path.join("new name.txt"),
    )
    .expect("rename");
    repo.write("añadido.txt", "a\nb\n");
    repo.write("logo.png", [0u8, 9, 9, 9, 0, 255]);
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint");
    (repo, r, base, cp.commit)
}

#[test]
fn diff_lists_statuses_line_counts_renames_and_binaries() {
    let sb = Sandbox::new();
    let (_repo, r, base, cp) = changed_repo(&sb);
    let mut files = r.diff(&base, &cp).expect("diff");
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let short: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.old_path.as_deref(),
                f.status,
                f.added_lines,
                f.removed_lines,
                f.binary,
            )
        })
        .collect();
    assert_eq!(
        short,
        vec![
            ("añadido.txt", None, FileStatus::Added, 2, 0, false),
            ("gone.txt", None, FileStatus::Deleted, 0, 1, false),
            ("keep.txt", None, FileStatus::Modified, 2, 1, false),
            ("logo.png", None, FileStatus::Modified, 0, 0, true),
            (
                "new name.txt",
                Some("old name.txt"),
                FileStatus::Renamed,
                0,
                0,
                false
            ),
        ]
    );
}

#[test]
fn each_changed_file_comes_with_its_own_patch() {
    let sb = Sandbox::new();
    let (_repo, r, base, cp) = changed_repo(&sb);
    let patches = r.diff_with_patches(&base, &cp).expect("diff");
    let listed: Vec<_> = patches.iter().map(|p| p.file.clone()).collect();
    assert_eq!(
        listed,
        r.diff(&base, &cp).expect("diff"),
        "the same files either way"
    );
    let text = |path: &str| {
        let patch = patches.iter().find(|p| p.file.path == path);
        patch
            .map(|p| p.text.as_str())
            .unwrap_or_else(|| panic!("{path} listed"))
    };
    let keep = text("keep.txt");
    assert!(
        keep.starts_with("diff --git a/keep.txt b/keep.txt\n"),
        "{keep}"
    );
    assert!(keep.contains("-2\n+TWO\n"), "{keep}");
    assert_eq!(keep.matches("diff --git").count(), 1, "{keep}");
    assert!(text("new name.txt").contains("rename from old name.txt"));
    assert!(text("añadido.txt").contains("+a\n+b\n"));
    assert!(text("logo.png").contains("Binary files"));
    assert!(text("gone.txt").contains("-bye\n"));
}

#[test]
fn diff_worktree_since_sees_current_files_without_writing_refs() {
    let sb = Sandbox::new();
    let (repo, r, _base, cp) = changed_repo(&sb);
    let refs = repo.git(&["for-each-ref"]);
    let index = repo.index_bytes();
    repo.write("keep.txt", "changed after the checkpoint\n");
    repo.write("later.txt", "new\n");
    let mut files = r.diff_worktree_since(&repo.path, &cp).expect("diff");
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let short: Vec<_> = files.iter().map(|f| (f.path.as_str(), f.status)).collect();
    assert_eq!(
        short,
        vec![
            ("keep.txt", FileStatus::Modified),
            ("later.txt", FileStatus::Added)
        ]
    );
    assert_eq!(repo.git(&["for-each-ref"]), refs);
    assert_eq!(repo.index_bytes(), index);
}

/// A source with a checkpoint, and a fork worktree that changed things after it.
fn forked(sb: &Sandbox) -> (TestRepo, Repo, Oid, std::path::PathBuf, tempfile::TempDir) {
    let repo = sb.repo();
    repo.write("app.rs", "fn a() {}\nfn b() {}\nfn c() {}\n");
    repo.write("data.bin", [0u8, 1, 2]);
    repo.write("dir with space/ü.txt", "old\n");
    repo.commit_all("base");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    let (keep, path) = outside_folder("fork");
    r.create_worktree(&WorktreeSpec {
        at: cp.clone(),
        path: path.clone(),
        branch: "forkhost/fork".into(),
    })
    .expect("worktree");
    write_in(
        &path,
        "app.rs",
        "fn a() {}\nfn b() { todo!() }\nfn c() {}\n",
    );
    write_in(&path, "data.bin", [9u8, 9, 9, 0]);
    write_in(&path, "dir with space/ü.txt", "new\n");
    write_in(&path, "brand new.md", "# hi\n");
    (repo, r, cp, path, keep)
}

#[test]
fn apply_brings_a_forks_changes_back_as_uncommitted_changes() {
    let sb = Sandbox::new();
    let (repo, r, cp, fork, _keep) = forked(&sb);
    let fork_repo = Repo::discover(&sb.git, &fork)
        .expect("discover")
        .expect("fork");
    let fork_now = fork_repo
        .checkpoint(&CheckpointSpec::new("fork", "t1-end").parent(cp.clone()))
        .expect("fork checkpoint")
        .commit;
    let index = repo.index_bytes();
    let head = repo.git(&["rev-parse", "HEAD"]);

    let applied = r.apply_changes(&cp, &fork_now, &repo.path).expect("apply");
    assert_eq!(
        applied.files,
        vec!["app.rs", "brand new.md", "data.bin", "dir with space/ü.txt"]
    );
    assert_eq!(
        repo.read("app.rs"),
        b"fn a() {}\nfn b() { todo!() }\nfn c() {}\n"
    );
    assert_eq!(repo.read("data.bin"), [9u8, 9, 9, 0]);
    assert_eq!(repo.read("dir with space/ü.txt"), b"new\n");
    assert_eq!(repo.read("brand new.md"), b"# hi\n");
    // Uncommitted: HEAD and the index are as they were.
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.index_bytes(), index);
    let status = repo.git(&["status", "--porcelain=v1", "-z"]);
    assert!(status.contains(" M app.rs\0"), "{status:?}");
    assert!(status.contains("?? brand new.md\0"), "{status:?}");
}

#[test]
fn apply_refuses_when_the_target_edited_a_touched_file_and_changes_nothing() {
    let sb = Sandbox::new();
    let (repo, r, cp, fork, _keep) = forked(&sb);
    let fork_now = Repo::discover(&sb.git, &fork)
        .expect("discover")
        .expect("fork")
        .checkpoint(&CheckpointSpec::new("fork", "t1-end").parent(cp.clone()))
        .expect("fork checkpoint")
        .commit;
    repo.write("app.rs", "fn a() {}\nfn b() { mine }\nfn c() {}\n");
    let before = files_in(&repo.path);
    let index = repo.index_bytes();
    match r.apply_changes(&cp, &fork_now, &repo.path) {
        Err(WorktreeError::Conflict { paths }) => assert_eq!(paths, vec!["app.rs"]),
        other => panic!("expected Conflict, got {other:?}"),
    }
    assert_eq!(files_in(&repo.path), before);
    assert_eq!(repo.index_bytes(), index);
}

#[test]
fn apply_refuses_when_the_patch_does_not_apply_and_changes_nothing() {
    let sb = Sandbox::new();
    let (repo, r, cp, fork, _keep) = forked(&sb);
    let fork_now = Repo::discover(&sb.git, &fork)
        .expect("discover")
        .expect("fork")
        .checkpoint(&CheckpointSpec::new("fork", "t1-end").parent(cp.clone()))
        .expect("fork checkpoint")
        .commit;
    // The target committed a different edit to the same line: clean status, but no fit.
    repo.write("app.rs", "fn a() {}\nfn b() { theirs }\nfn c() {}\n");
    repo.commit_all("their edit");
    let before = files_in(&repo.path);
    match r.apply_changes(&cp, &fork_now, &repo.path) {
        Err(WorktreeError::Conflict { paths }) => assert!(paths.contains(&"app.rs".to_owned())),
        other => panic!("expected Conflict, got {other:?}"),
    }
    assert_eq!(files_in(&repo.path), before);
}

/// The usual bring-back: the fork point was never committed, so the touched file is
/// "uncommitted" in the target, but exactly as it was at the fork point: it takes the changes.
#[test]
fn apply_takes_an_uncommitted_file_that_is_still_as_at_the_fork_point() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("notes.txt", "start\n");
    repo.commit_all("base");
    repo.write("notes.txt", "turn 1\n"); // an agent's turn, never committed
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    let (_keep, fork) = outside_folder("fork");
    r.create_worktree(&WorktreeSpec {
        at: cp.clone(),
        path: fork.clone(),
        branch: "forkhost/fork".into(),
    })
    .expect("worktree");
    write_in(&fork, "notes.txt", "fork\n");
    let fork_now = Repo::discover(&sb.git, &fork)
        .expect("discover")
        .expect("fork")
        .checkpoint(&CheckpointSpec::new("fork", "now").parent(cp.clone()))
        .expect("fork checkpoint")
        .commit;
    let applied = r.apply_changes(&cp, &fork_now, &repo.path).expect("apply");
    assert_eq!(applied.files, vec!["notes.txt"]);
    assert_eq!(repo.read("notes.txt"), b"fork\n");
}
