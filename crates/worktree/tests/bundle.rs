//! A checkpoint's files carried to another clone as a git bundle: only what the other clone
//! lacks is sent, it lands on a `refs/forkhost/incoming/` ref only, a complete bundle makes a
//! new repository, and a bundle the target cannot take is refused in git's words.

mod common;

use common::Sandbox;
use forkhost_worktree::{clone_bundle, CheckpointSpec, Oid, WorktreeError};

/// A repository with two commits of history, and a clone of it made before a checkpoint.
fn source_and_clone(sb: &Sandbox) -> (common::TestRepo, common::TestRepo) {
    let source = sb.repo();
    for n in 0..20 {
        source.write(
            &format!("src/file{n}.txt"),
            format!("line {n}\n").repeat(200),
        );
    }
    source.commit_all("first");
    source.write("notes.txt", "start\n");
    source.commit_all("second");
    let target = sb.repo();
    let from = source.path.display().to_string();
    target.git(&["pull", "-q", &from, "main"]);
    (source, target)
}

#[test]
fn a_bundle_carries_only_what_the_other_clone_lacks_and_lands_on_an_incoming_ref() {
    let sb = Sandbox::new();
    let (source, target) = source_and_clone(&sb);
    source.write("notes.txt", "as of turn one\n");
    source.write("new.txt", "untracked\n");
    let repo = source.open();
    let checkpoint = repo
        .checkpoint(&CheckpointSpec::new("t1", "t1-end"))
        .expect("checkpoint");
    let refs_before = source.git(&["for-each-ref"]);

    let there = target.open();
    let tips = there.tips(256).expect("tips");
    assert_eq!(tips.len(), 1, "{tips:?}");
    // Branches and tags at one commit are one tip; a limit keeps that many.
    target.git(&["branch", "same-as-main"]);
    target.git(&["tag", "v1"]);
    target.write("later.txt", "later\n");
    target.git(&["checkout", "-q", "-b", "topic"]);
    target.commit_all("later");
    let all = there.tips(256).unwrap();
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(there.tips(1).unwrap().len(), 1);
    target.git(&["checkout", "-q", "main"]);
    let dir = tempfile::tempdir().unwrap();
    let (thin, full) = (
        dir.path().join("thin.bundle"),
        dir.path().join("full.bundle"),
    );
    let made = repo
        .create_bundle(&checkpoint.commit, &tips, &thin)
        .expect("bundle");
    let whole = repo.create_bundle(&checkpoint.commit, &[], &full).unwrap();
    assert_eq!(made.prerequisites, 1, "the clone's tip is left out");
    assert_eq!(whole.prerequisites, 0);
    assert!(
        made.bytes * 3 < whole.bytes,
        "thin {} vs full {}",
        made.bytes,
        whole.bytes
    );
    assert_eq!(
        source.git(&["for-each-ref"]),
        refs_before,
        "the source keeps no ref of it"
    );
    // A commit the source does not hold is passed over, not an error.
    let unknown: Oid = "1234567890123456789012345678901234567890".parse().unwrap();
    let again = repo
        .create_bundle(&checkpoint.commit, &[unknown], &dir.path().join("u.bundle"))
        .unwrap();
    assert_eq!(again.prerequisites, 0);

    let branches = target.git(&["for-each-ref", "refs/heads", "refs/tags"]);
    let fetched = there.fetch_bundle(&thin, "move1").expect("fetch");
    assert_eq!(fetched, checkpoint.commit);
    assert_eq!(
        target.git(&["show", &format!("{}:notes.txt", fetched.as_str())]),
        "as of turn one\n"
    );
    assert_eq!(
        target.git(&["for-each-ref", "refs/heads", "refs/tags"]),
        branches
    );
    assert_eq!(target.read("notes.txt"), b"start\n", "its files untouched");
    assert!(target.git_ok(&["rev-parse", "--verify", "refs/forkhost/incoming/move1"]));
    there.drop_incoming("move1").unwrap();
    assert!(!target.git_ok(&["rev-parse", "--verify", "refs/forkhost/incoming/move1"]));

    // A repository without the prerequisite refuses the thin bundle in git's words.
    let stranger = sb.repo();
    stranger.write("x", "x");
    stranger.commit_all("other history");
    let refused = stranger.open().fetch_bundle(&thin, "move2").unwrap_err();
    assert!(
        matches!(refused, WorktreeError::GitFailed { .. }),
        "{refused:?}"
    );
}

#[test]
fn a_complete_bundle_makes_a_new_repository_only_in_an_empty_folder() {
    let sb = Sandbox::new();
    let (source, _) = source_and_clone(&sb);
    source.write("notes.txt", "as of turn two\n");
    let repo = source.open();
    let checkpoint = repo
        .checkpoint(&CheckpointSpec::new("t1", "t2-end"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("full.bundle");
    repo.create_bundle(&checkpoint.commit, &[], &file).unwrap();
    assert_eq!(
        repo.roots_of(&checkpoint.commit).unwrap().len(),
        1,
        "one root commit"
    );

    let folder = dir.path().join("new clone");
    let made = clone_bundle(&sb.git, &file, &folder, "forkhost/moved").expect("clone");
    assert_eq!(
        std::fs::read_to_string(folder.join("notes.txt")).unwrap(),
        "as of turn two\n"
    );
    assert_eq!(made.head().unwrap(), Some(checkpoint.commit.clone()));
    assert_eq!(
        made.roots_of(&checkpoint.commit).unwrap(),
        repo.roots_of(&checkpoint.commit).unwrap(),
        "the same repository: found again by its roots"
    );

    let taken = dir.path().join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    std::fs::write(taken.join("mine.txt"), "keep").unwrap();
    let refused = clone_bundle(&sb.git, &file, &taken, "forkhost/moved").unwrap_err();
    assert!(
        matches!(refused, WorktreeError::PathTaken(_)),
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read_to_string(taken.join("mine.txt")).unwrap(),
        "keep"
    );
    assert!(!taken.join(".git").exists());
}
