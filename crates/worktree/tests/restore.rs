//! Restoring a folder to a checkpoint: tracked and untracked files written back, files the
//! checkpoint lacks deleted, and the user's index, HEAD, ignored files and files outside the
//! folder untouched; undone by a restore back to the checkpoint taken before.
mod common;

use common::Sandbox;
use forkhost_worktree::{CheckpointSpec, FileStatus, Oid};

fn checkpoint(r: &forkhost_worktree::Repo, label: &str, folder: &std::path::Path) -> Oid {
    r.checkpoint(&CheckpointSpec::new("t", label).within(folder))
        .expect("checkpoint")
        .commit
}

#[test]
fn a_folder_goes_back_to_a_checkpoint_and_forward_again() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(".gitignore", "*.log\n");
    repo.write("app/main.rs", "fn main() {}\n");
    repo.write("app/lib.rs", "pub fn a() {}\n");
    repo.write("other/outside.txt", "outside\n");
    repo.commit_all("base");
    let r = repo.open();
    let folder = repo.path.join("app");
    // Turn 2 ends: an untracked file, an edit.
    repo.write("app/notes.md", "turn 2\n");
    repo.write("app/main.rs", "fn main() { two() }\n");
    let t2 = checkpoint(&r, "t2-end", &folder);
    // Turn 3 (a shell command): a new file in a new folder, an edit, a deletion; an ignored
    // file and a file outside the folder change too.
    repo.write("app/gen/out.txt", "generated\n");
    repo.write("app/main.rs", "fn main() { three() }\n");
    std::fs::remove_file(repo.path.join("app/notes.md")).expect("delete");
    repo.write("app/build.log", "ignored\n");
    repo.write("other/outside.txt", "changed outside\n");
    repo.git(&["add", "app/lib.rs"]);
    let index_before = repo.index_bytes();
    let head_before = repo.git(&["rev-parse", "HEAD"]);
    // The preview reads the folder as it is and says which changes no checkpoint holds.
    let preview = r.restore_preview(&folder, &t2, Some(&t2)).expect("preview");
    assert_eq!(preview.changes.len(), 3);
    assert_eq!(preview.unrecorded.len(), 3);
    let now = checkpoint(&r, "rewind-before", &folder);
    let preview = r
        .restore_preview(&folder, &t2, Some(&now))
        .expect("preview");
    assert_eq!(preview.changes.len(), 3);
    assert!(preview.unrecorded.is_empty(), "{preview:?}");

    let plan = r.restore_changes(&now, &t2, &folder).expect("plan");
    let listed: Vec<_> = plan.iter().map(|f| (f.path.as_str(), f.status)).collect();
    assert_eq!(
        listed,
        vec![
            ("app/gen/out.txt", FileStatus::Deleted),
            ("app/main.rs", FileStatus::Modified),
            ("app/notes.md", FileStatus::Added),
        ]
    );
    let done = r.restore(&now, &t2, &folder).expect("restore");
    assert_eq!(done.files.len(), 3);
    assert!(done.kept.is_empty());
    assert!(
        !repo.path.join("app/gen").exists(),
        "its emptied folder goes"
    );
    assert_eq!(repo.read("app/main.rs"), b"fn main() { two() }\n");
    assert_eq!(repo.read("app/notes.md"), b"turn 2\n");
    assert_eq!(repo.read("app/build.log"), b"ignored\n");
    assert_eq!(repo.read("other/outside.txt"), b"changed outside\n");
    assert_eq!(repo.index_bytes(), index_before, "the user's index");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head_before);
    assert!(r
        .restore_changes(&t2, &checkpoint(&r, "after", &folder), &folder)
        .expect("again")
        .is_empty());

    // Undo: back to the checkpoint taken before.
    let back = checkpoint(&r, "undo-before", &folder);
    r.restore(&back, &now, &folder).expect("undo");
    assert_eq!(repo.read("app/gen/out.txt"), b"generated\n");
    assert_eq!(repo.read("app/main.rs"), b"fn main() { three() }\n");
    assert!(!repo.path.join("app/notes.md").exists());
    assert_eq!(repo.index_bytes(), index_before);
}

#[test]
fn another_thread_names_checkpoints_it_takes_over() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a\n");
    repo.commit_all("base");
    let r = repo.open();
    let t1 = checkpoint(&r, "t1-end", &repo.path);
    r.name_checkpoints("branch", &[("t1-end".to_owned(), t1.clone())])
        .expect("name");
    assert_eq!(r.checkpoint_commit("branch", "t1-end").expect("named"), t1);
    assert!(r
        .name_checkpoints("../x", &[("t1-end".to_owned(), t1)])
        .is_err());
    r.name_checkpoints("branch", &[]).expect("nothing to name");
}

#[test]
fn a_file_gone_already_is_fine_and_a_folder_in_its_way_stays() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a\n");
    repo.commit_all("base");
    let r = repo.open();
    let then = checkpoint(&r, "t1-end", &repo.path);
    repo.write("made.txt", "made\n");
    repo.write("dir/made.txt", "made\n");
    let now = checkpoint(&r, "now", &repo.path);
    // Gone since the checkpoint before: nothing left to delete.
    std::fs::remove_file(repo.path.join("made.txt")).expect("delete");
    // A folder where the checkpoint had a file: not that file, so it stays.
    std::fs::remove_dir_all(repo.path.join("dir")).expect("delete");
    std::fs::create_dir_all(repo.path.join("dir/made.txt/inner")).expect("folder");
    let done = r.restore(&now, &then, &repo.path).expect("restore");
    assert_eq!(done.files.len(), 2);
    assert!(
        repo.path.join("dir/made.txt/inner").is_dir(),
        "the folder stays"
    );
    assert!(!repo.path.join("made.txt").exists());
    // Without a recorded checkpoint every change is unrecorded.
    repo.write("new.txt", "new\n");
    let preview = r.restore_preview(&repo.path, &then, None).expect("preview");
    assert_eq!(preview.unrecorded, ["new.txt"]);
}

#[test]
fn a_file_the_checkpoint_before_did_not_hold_is_kept() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a\n");
    repo.commit_all("base");
    let r = repo.open();
    repo.write("data.bin", "small then\n");
    let then = checkpoint(&r, "t1-end", &repo.path);
    std::fs::remove_file(repo.path.join("data.bin")).expect("delete");
    let now = checkpoint(&r, "now", &repo.path);
    // Written after the checkpoint before: no checkpoint holds it, so it is not overwritten.
    repo.write("data.bin", "newer, unrecorded\n");
    let done = r.restore(&now, &then, &repo.path).expect("restore");
    assert_eq!(done.kept, vec!["data.bin".to_owned()]);
    assert_eq!(repo.read("data.bin"), b"newer, unrecorded\n");
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_never_leads_outside() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("d/x.txt", "x\n");
    repo.commit_all("base");
    let r = repo.open();
    let then = checkpoint(&r, "t1-end", &repo.path);
    repo.write("d/x.txt", "y\n");
    let later = checkpoint(&r, "t2-end", &repo.path);
    // The folder becomes a symlink to somewhere else (the checkpoints' trees still hold d/).
    std::fs::remove_dir_all(repo.path.join("d")).expect("remove");
    let elsewhere = sb.plain_folder();
    std::os::unix::fs::symlink(elsewhere.path(), repo.path.join("d")).expect("symlink");
    let refused = r.restore(&later, &then, &repo.path);
    assert!(refused.is_err(), "{refused:?}");
    assert!(!elsewhere.path().join("x.txt").exists());
}

/// Review L-7: a path added by the restore is decided on after every deletion. A folder that
/// becomes a file shows it on any disk (an added `d` sorts before a deleted `d/x`); on a
/// case-insensitive disk a case-only rename (`readme.md` to `README.md`) does too.
#[test]
fn a_path_freed_by_a_deletion_is_written_not_reported_kept() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("base.txt", "base\n");
    repo.commit_all("base");
    let r = repo.open();
    let folder = repo.path.clone();
    repo.write("d", "a file\n");
    let file = checkpoint(&r, "t1-end", &folder);
    std::fs::remove_file(repo.path.join("d")).unwrap();
    repo.write("d/x", "in a folder\n");
    let now = checkpoint(&r, "t2-end", &folder);
    let done = r.restore(&now, &file, &folder).expect("restore");
    assert!(done.kept.is_empty(), "{:?}", done.kept);
    assert_eq!(repo.read("d"), b"a file\n");

    // The case-only rename, where the disk folds case.
    repo.write("readme.md", "lower\n");
    let lower = checkpoint(&r, "t3-end", &folder);
    std::fs::remove_file(repo.path.join("readme.md")).unwrap();
    repo.write("README.md", "upper\n");
    let upper = checkpoint(&r, "t4-end", &folder);
    if !repo.path.join("readme.md").exists() {
        return; // a case-sensitive disk: nothing more to see here
    }
    std::fs::remove_file(repo.path.join("README.md")).unwrap();
    repo.write("readme.md", "lower\n");
    let done = r.restore(&lower, &upper, &folder).expect("restore");
    assert!(done.kept.is_empty(), "{:?}", done.kept);
    assert_eq!(repo.read("README.md"), b"upper\n");
}
