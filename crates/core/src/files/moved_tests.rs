//! A branch's files moving with it, in process: one Host plays both machines (as the CLI's
//! `export-branch`, `files-target`, `bundle-files` and `adopt-branch` do on each side). The
//! files as of the cut land in a new worktree of the target's clone, or a new repository in an
//! empty folder; only what the clone lacks is bundled; nothing is left when the thread cannot
//! be made; a folder of other files is refused. `tests/cli/remote.rs` moves them over ssh.

use std::path::Path;

use forkhost_harness::HarnessKind;

use super::checkpoints::TurnEdge;
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::test_host::{committed_repo, git, pi_thread, ClaudeProgram, TestHost};

/// A 3-turn Pi thread in the subfolder `w` of a repository, whose files at the end of turn 2
/// are recorded ("notes.txt" = "as of turn two"), and changed since.
async fn thread_with_checkpoint() -> TestHost {
    let t = pi_thread(3, ClaudeProgram::VersionOnly).await;
    committed_repo(&t.work());
    std::fs::write(t.folder().join("notes.txt"), "as of turn two\n").unwrap();
    let recorded = t
        .host
        .checkpoint_turn(&t.thread, t.folder(), 2, TurnEdge::End)
        .await;
    assert!(recorded.is_some(), "a checkpoint");
    std::fs::write(t.folder().join("notes.txt"), "changed later\n").unwrap();
    t
}

fn after(n: i64) -> ForkAt {
    ForkAt::After(TurnRef::Number(n))
}

/// Bundles the branch's files for `cwd` as the carrier would: (target, bundle file).
async fn carried(
    t: &TestHost,
    branch: &crate::BranchSeed,
    cwd: &Path,
    out: &Path,
) -> (crate::FilesTarget, forkhost_worktree::BundleMade) {
    let files = branch.files.as_ref().expect("the files come");
    let target = t.host.files_target(cwd, files).await.unwrap();
    let made = t
        .host
        .bundle_branch_files(&t.thread, files, &target.have, out)
        .await
        .unwrap();
    (target, made)
}

#[tokio::test]
async fn the_files_as_of_the_cut_land_in_a_worktree_of_the_targets_clone() {
    let t = thread_with_checkpoint().await;
    let source_refs = git(&t.work(), &["for-each-ref"]);
    let branch = t
        .host
        .branch_seed(&t.thread, after(2), Some(HarnessKind::Claude))
        .await
        .unwrap();
    let files = branch.files.clone().expect("files");
    assert_eq!(
        files.subfolder, "w",
        "where in the repository the thread works"
    );
    assert_eq!(files.roots.len(), 1);
    assert!(branch.files_note.is_none());

    // The target: a clone of the repository made before the checkpoint.
    let place = tempfile::tempdir().unwrap();
    let clone = place.path().join("clone");
    git(
        place.path(),
        &["clone", "-q", t.work().to_str().unwrap(), "clone"],
    );
    let (target, made) = carried(&t, &branch, &clone, &place.path().join("b")).await;
    assert!(!target.new_repository);
    assert_eq!(made.prerequisites, 1, "the clone's main is left out");
    assert_eq!(git(&t.work(), &["for-each-ref"]), source_refs);

    let adopted = t
        .host
        .adopt_branch(branch, &clone, Some(true), Some(&place.path().join("b")))
        .await
        .unwrap();
    let cwd = Path::new(&adopted.thread.cwd);
    assert!(cwd.ends_with("w"), "{}", cwd.display());
    assert!(cwd.starts_with(t.data_dir()), "{}", cwd.display());
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "as of turn two\n"
    );
    assert!(!clone.join("w").exists(), "the clone's own files untouched");
    assert_eq!(git(&clone, &["status", "--porcelain"]), "");
    let shown = t.host.files(&adopted.thread.id).await.unwrap();
    assert_eq!(shown.folder_kind, "worktree");
    let checkpoints = &shown.checkpoints;
    assert_eq!(checkpoints.len(), 1, "{checkpoints:?}");
    assert_eq!(
        (checkpoints[0].turn, checkpoints[0].edge.as_str()),
        (2, "end")
    );
    assert_eq!(
        git(&clone, &["for-each-ref", "refs/forkhost/incoming"]),
        "",
        "no incoming ref left"
    );
}

#[tokio::test]
async fn an_empty_folder_gets_a_new_repository_and_a_failed_thread_leaves_it_empty() {
    let t = thread_with_checkpoint().await;
    let branch = t
        .host
        .branch_seed(&t.thread, after(2), Some(HarnessKind::Claude))
        .await
        .unwrap();
    let place = tempfile::tempdir().unwrap();
    let empty = place.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let bundle = place.path().join("b");
    let (target, made) = carried(&t, &branch, &empty, &bundle).await;
    assert!(target.new_repository);
    assert_eq!(made.prerequisites, 0, "a complete bundle");

    // Claude's sessions folder cannot be made: the thread fails after the files landed.
    std::fs::write(t.home().join(".claude"), "not a folder").unwrap();
    let failed = t
        .host
        .adopt_branch(branch.clone(), &empty, Some(true), Some(&bundle))
        .await
        .unwrap_err();
    assert_eq!(failed.code(), "harness_failed", "{failed}");
    assert!(empty.is_dir());
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "left empty");
    let absent = place.path().join("absent");
    t.host
        .adopt_branch(branch.clone(), &absent, Some(true), Some(&bundle))
        .await
        .unwrap_err();
    assert!(!absent.exists(), "left absent");
    assert_eq!(t.host.threads().await.unwrap().len(), 1, "no thread made");

    std::fs::remove_file(t.home().join(".claude")).unwrap();
    let adopted = t
        .host
        .adopt_branch(branch, &empty, Some(true), Some(&bundle))
        .await
        .unwrap();
    assert_eq!(Path::new(&adopted.thread.cwd), empty.join("w"));
    let kept = t.host.files(&adopted.thread.id).await.unwrap().checkpoints;
    assert_eq!(
        kept.len(),
        1,
        "the new repository's commit is its checkpoint: {kept:?}"
    );
    assert_eq!((kept[0].turn, kept[0].edge.as_str()), (2, "end"));
    assert_eq!(
        std::fs::read_to_string(empty.join("w/notes.txt")).unwrap(),
        "as of turn two\n"
    );
    assert_eq!(
        git(&empty, &["rev-parse", "--abbrev-ref", "HEAD"])
            .split('/')
            .next(),
        Some("forkhost")
    );
}

#[tokio::test]
async fn a_folder_of_other_files_is_refused_and_a_thread_without_checkpoints_says_why() {
    let t = thread_with_checkpoint().await;
    let branch = t.host.branch_seed(&t.thread, after(2), None).await.unwrap();
    let files = branch.files.clone().unwrap();
    let place = tempfile::tempdir().unwrap();
    std::fs::write(place.path().join("mine.txt"), "keep").unwrap();
    let err = t.host.files_target(place.path(), &files).await.unwrap_err();
    assert_eq!(err.code(), "conflict", "{err}");
    let other = place.path().join("other");
    std::fs::create_dir(&other).unwrap();
    git(&other, &["init", "-q", "-b", "main"]);
    std::fs::write(other.join("b.txt"), "another history\n").unwrap();
    git(&other, &["add", "-A"]);
    git(&other, &["commit", "-q", "-m", "other"]);
    let err = t.host.files_target(&other, &files).await.unwrap_err();
    assert_eq!(err.code(), "conflict", "{err}");
    assert!(err.to_string().contains("another repository"), "{err}");

    // Turn 1 has no checkpoint (from before Forkhost hosted it): only the conversation.
    let early = t.host.branch_seed(&t.thread, after(1), None).await.unwrap();
    assert!(early.files.is_none());
    let note = early.files_note.unwrap();
    assert!(note.contains("no checkpoint"), "{note}");
}

#[tokio::test]
async fn a_new_folder_is_made_one_level_deep_and_paths_are_absolute() {
    let t = thread_with_checkpoint().await;
    let branch = t.host.branch_seed(&t.thread, after(2), None).await.unwrap();
    let files = branch.files.unwrap();
    let place = tempfile::tempdir().unwrap();
    let new = t
        .host
        .files_target(&place.path().join("new"), &files)
        .await
        .unwrap();
    assert!(new.new_repository);
    assert!(new.have.is_empty());
    let deep = t
        .host
        .files_target(&place.path().join("no/such/place"), &files)
        .await
        .unwrap_err();
    assert_eq!(deep.code(), "invalid_input", "{deep}");
    std::fs::write(place.path().join("a-file"), "x").unwrap();
    let file = t
        .host
        .files_target(&place.path().join("a-file"), &files)
        .await
        .unwrap_err();
    assert_eq!(file.code(), "invalid_input", "{file}");
    assert!(file.to_string().contains("is a file"), "{file}");
    let relative = t
        .host
        .files_target(Path::new("relative/dir"), &files)
        .await
        .unwrap_err();
    assert_eq!(relative.code(), "invalid_input", "{relative}");
    // The source's own clone offers its branch tip.
    let own = t.host.files_target(&t.work(), &files).await.unwrap();
    assert!(!own.new_repository);
    assert_eq!(own.have.len(), 1, "{own:?}");
}
