//! Review M-6: filter drivers defined in a repository's own `.git/config` never run in
//! Forkhost's git calls (checkpoint, restore, worktree fill); the user's own drivers still do.
mod common;

use std::path::Path;

use common::{outside_folder, Sandbox};
use forkhost_worktree::{CheckpointSpec, WorktreeSpec};

/// A driver command that leaves `marker` behind and passes the content through.
fn marking(marker: &Path) -> String {
    format!("sh -c 'touch \"{}\"; cat'", marker.display())
}

#[test]
fn a_repositorys_own_filter_drivers_never_run_at_checkpoints_restores_or_worktree_fills() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    let (_out, outside) = outside_folder("markers");
    std::fs::create_dir_all(&outside).unwrap();
    let (clean, smudge, process) = (
        outside.join("clean"),
        outside.join("smudge"),
        outside.join("process"),
    );
    repo.write(".gitattributes", "*.txt filter=x\n*.md filter=p\n");
    repo.write("base.txt", "base\n");
    repo.commit_all("base");
    // Set after the commit: the test's own `git add` must not run them either.
    repo.git(&["config", "filter.x.clean", &marking(&clean)]);
    repo.git(&["config", "filter.x.smudge", &marking(&smudge)]);
    repo.git(&["config", "filter.x.required", "true"]);
    repo.git(&[
        "config",
        "filter.p.process",
        &format!("sh -c 'touch \"{}\"'", process.display()),
    ]);
    repo.write("a.txt", "hi\n");
    repo.write("b.md", "md\n");
    let r = repo.open();
    let one = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    assert!(!clean.exists(), "the clean filter ran at a checkpoint");
    assert!(!process.exists(), "the process filter ran at a checkpoint");
    // The file is stored as it is.
    assert_eq!(
        repo.git(&["show", &format!("{one}:a.txt")]),
        "hi\n",
        "stored unfiltered"
    );

    // Restore writes it back through checkout-index: no smudge.
    repo.write("a.txt", "changed\n");
    let two = r
        .checkpoint(&CheckpointSpec::new("t", "t2-end").parent(one.clone()))
        .expect("checkpoint")
        .commit;
    r.restore(&two, &one, &repo.path).expect("restore");
    assert_eq!(repo.read("a.txt"), b"hi\n");
    assert!(!smudge.exists(), "the smudge filter ran at a restore");

    // A worktree fill checks out with no smudge either.
    let (_keep, path) = outside_folder("fork");
    r.create_worktree(&WorktreeSpec {
        at: one,
        path: path.clone(),
        branch: "forkhost/fork".into(),
    })
    .expect("worktree");
    assert_eq!(std::fs::read(path.join("a.txt")).unwrap(), b"hi\n");
    for marker in [&clean, &smudge, &process] {
        assert!(!marker.exists(), "{} ran", marker.display());
    }
}

#[test]
fn the_users_own_drivers_still_run() {
    let sb = Sandbox::new();
    let (_out, outside) = outside_folder("markers");
    std::fs::create_dir_all(&outside).unwrap();
    let clean = outside.join("clean");
    let set = std::process::Command::new("git")
        .arg("config")
        .arg("--file")
        .arg(sb.global_config())
        .args(["filter.g.clean", &marking(&clean)])
        .status()
        .unwrap();
    assert!(set.success());
    let repo = sb.repo();
    repo.write(".gitattributes", "*.txt filter=g\n");
    repo.write("a.txt", "hi\n");
    repo.open()
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint");
    assert!(clean.exists(), "the user's global driver is theirs to keep");
}

#[test]
fn a_config_that_includes_another_file_but_defines_no_filter_still_checkpoints() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.git(&["config", "include.path", "no-such-file"]);
    repo.write("a.txt", "hi\n");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    assert_eq!(repo.git(&["show", &format!("{cp}:a.txt")]), "hi\n");
}
