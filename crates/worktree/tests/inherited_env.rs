//! Its own test binary: it sets process-wide variables, which must not leak into other tests.
mod common;

use common::Sandbox;
use forkhost_worktree::{CheckpointSpec, Repo};

#[test]
fn repository_variables_of_the_parent_process_are_ignored() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let decoy = sb.repo();
    decoy.write("decoy.txt", "d");
    decoy.commit_all("decoy");
    let decoy_index = decoy.path.join(".git/index");
    let before = std::fs::read(&decoy_index).expect("decoy index");
    // As a parent (an editor, a hook) might leave them.
    std::env::set_var("GIT_DIR", decoy.path.join(".git"));
    std::env::set_var("GIT_WORK_TREE", &decoy.path);
    std::env::set_var("GIT_INDEX_FILE", &decoy_index);

    let r = Repo::discover(&sb.git, &repo.path)
        .expect("discover")
        .expect("repo");
    assert_eq!(r.root(), repo.path.as_path());
    repo.write("b.txt", "b");
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1"))
        .expect("checkpoint");
    assert_eq!(cp.files_changed_vs_parent, 1);
    assert_eq!(std::fs::read(&decoy_index).expect("decoy index"), before);
    std::env::remove_var("GIT_DIR");
    std::env::remove_var("GIT_WORK_TREE");
    std::env::remove_var("GIT_INDEX_FILE");
    assert!(repo
        .git(&["for-each-ref", "refs/forkhost/t/t1"])
        .contains("refs/forkhost/t/t1"));
    assert!(decoy.git(&["for-each-ref", "refs/forkhost"]).is_empty());
}
