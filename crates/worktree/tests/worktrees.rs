mod common;

use common::{files_in, outside_folder, write_in, Sandbox};
use forkhost_worktree::{
    CheckpointSpec, Confirm, Loss, Repo, WorktreeError, WorktreeSpec, INCLUDE_FILE,
};

#[test]
fn a_worktree_from_the_first_of_three_checkpoints_has_turn_one_files() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("notes.txt", "start");
    repo.commit_all("first");
    let r = repo.open();
    let mut parent = None;
    let mut commits = Vec::new();
    for n in 1..=3 {
        repo.write("notes.txt", format!("turn {n}"));
        repo.write(&format!("turn{n}.txt"), format!("turn {n} file"));
        let mut spec = CheckpointSpec::new("t", format!("t{n}-end"));
        if let Some(p) = parent.take() {
            spec = spec.parent(p);
        }
        let cp = r.checkpoint(&spec).expect("checkpoint");
        parent = Some(cp.commit.clone());
        commits.push(cp.commit);
    }
    let source_files = repo.files();
    let source_status = repo.git(&["status", "--porcelain=v1"]);

    let (_keep, path) = outside_folder("fork one");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: commits[0].clone(),
            path: path.clone(),
            branch: "forkhost/fork-one".into(),
        })
        .expect("worktree");
    assert_eq!(wt.branch, "forkhost/fork-one");
    assert_eq!(
        std::fs::read_to_string(path.join("notes.txt")).expect("notes"),
        "turn 1"
    );
    assert!(path.join("turn1.txt").exists());
    assert!(!path.join("turn2.txt").exists());
    assert!(!path.join("turn3.txt").exists());
    assert_eq!(repo.files(), source_files, "source folder unchanged");
    assert_eq!(repo.git(&["status", "--porcelain=v1"]), source_status);
    assert_eq!(
        repo.git(&["symbolic-ref", "--short", "HEAD"]).trim(),
        "main"
    );

    // The fork is clean at its start: untracked files of the moment are tracked there.
    let state = r.worktree_state(&path).expect("state");
    assert!(state.exists);
    assert!(state.uncommitted.is_empty(), "{:?}", state.uncommitted);
    assert_eq!(state.unpushed_commits, 0);

    // Discovery works from inside the linked worktree and sees the same checkpoints.
    let inside = Repo::discover(&sb.git, &path)
        .expect("discover")
        .expect("repo");
    assert_eq!(inside.checkpoints("t").expect("list").len(), 3);
}

#[test]
fn branch_names_already_taken_get_a_number() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("f", "x");
    repo.commit_all("first");
    repo.git(&["branch", "forkhost/fork"]);
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_a, pa) = outside_folder("a");
    let (_b, pb) = outside_folder("b");
    let spec = |path| WorktreeSpec {
        at: head.clone(),
        path,
        branch: "forkhost/fork".into(),
    };
    assert_eq!(
        r.create_worktree(&spec(pa)).expect("a").branch,
        "forkhost/fork-2"
    );
    assert_eq!(
        r.create_worktree(&spec(pb)).expect("b").branch,
        "forkhost/fork-3"
    );
}

#[test]
fn worktreeinclude_copies_ignored_files_that_match() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(".gitignore", ".env\n*.local\nnode_modules/\nsecrets/\n");
    repo.write(
        ".worktreeinclude",
        "# comments work as in .gitignore\n.env\nconfig/*.local\nmissing.local\nsecrets/\n",
    );
    repo.write("config/app.toml", "tracked");
    repo.commit_all("first");
    repo.write(".env", "SECRET=1\n");
    repo.write("config/db.local", "db\n");
    repo.write("other.local", "ignored but not listed\n");
    repo.write("node_modules/x.js", "no\n");
    repo.write("secrets/deep/key pem", "k\n");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("inc");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: head,
            path: path.clone(),
            branch: "forkhost/inc".into(),
        })
        .expect("worktree");
    assert_eq!(
        wt.included,
        vec![".env", "config/db.local", "secrets/deep/key pem"]
    );
    assert_eq!(
        std::fs::read(path.join("secrets/deep/key pem")).expect("key"),
        b"k\n"
    );
    assert_eq!(
        std::fs::read(path.join(".env")).expect(".env"),
        b"SECRET=1\n"
    );
    assert!(!path.join("other.local").exists());
    assert!(!path.join("node_modules").exists());
    // Still ignored there: the copy is not an uncommitted change.
    assert!(r
        .worktree_state(&path)
        .expect("state")
        .uncommitted
        .is_empty());
}

#[test]
fn a_dirty_worktree_is_removed_only_with_the_exact_loss_confirmed() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint");
    let (_keep, path) = outside_folder("dirty");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: cp.commit,
            path: path.clone(),
            branch: "forkhost/dirty".into(),
        })
        .expect("worktree");
    // One commit of the fork's own, then an edit and a new file.
    write_in(&path, "a.txt", "fork commit");
    repo.git_in(&path, &["commit", "-q", "-am", "fork work"]);
    write_in(&path, "a.txt", "edited");
    write_in(&path, "ñew file.txt", "new");

    let state = r.worktree_state(&path).expect("state");
    assert_eq!(state.uncommitted, vec!["a.txt", "ñew file.txt"]);
    assert_eq!(state.unpushed_commits, 1);

    let before = files_in(&path);
    match r.remove_worktree(&path, Confirm::NothingToLose) {
        Err(WorktreeError::Dirty { what_would_be_lost }) => {
            assert_eq!(what_would_be_lost, state.loss())
        }
        other => panic!("expected Dirty, got {other:?}"),
    }
    // A confirmation of a different loss is refused too.
    let partial = Loss {
        files: vec!["a.txt".into()],
        commits: 1,
        ignored: Vec::new(),
    };
    assert!(matches!(
        r.remove_worktree(&path, Confirm::Accept(partial)),
        Err(WorktreeError::Dirty { .. })
    ));
    assert_eq!(files_in(&path), before, "refusals touch nothing");

    r.remove_worktree(&path, Confirm::Accept(state.loss()))
        .expect("remove");
    assert!(!path.exists());
    assert!(!repo.git_ok(&[
        "rev-parse",
        "--verify",
        "-q",
        &format!("refs/heads/{}", wt.branch)
    ]));
    assert!(!repo.git(&["worktree", "list"]).contains("dirty"));
}

#[test]
fn a_clean_worktree_is_removed_and_checkpoints_do_not_count_as_its_commits() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    repo.write("b.txt", "b");
    let c1 = r.checkpoint(&CheckpointSpec::new("t", "t1")).expect("c1");
    repo.write("c.txt", "c");
    let c2 = r
        .checkpoint(&CheckpointSpec::new("t", "t2").parent(c1.commit))
        .expect("c2");
    // Once the thread's refs are gone, the checkpoint chain is still not "the fork's commits".
    let (_keep, path) = outside_folder("clean");
    r.create_worktree(&WorktreeSpec {
        at: c2.commit,
        path: path.clone(),
        branch: "forkhost/clean".into(),
    })
    .expect("worktree");
    r.prune("t").expect("prune");
    let state = r.worktree_state(&path).expect("state");
    assert_eq!(state.unpushed_commits, 0);
    r.remove_worktree(&path, Confirm::NothingToLose)
        .expect("remove");
    assert!(!path.exists());
    // The user's own files and branch are untouched.
    assert_eq!(repo.read("a.txt"), b"a");
    assert!(repo.git_ok(&["rev-parse", "--verify", "-q", "refs/heads/main"]));
}

#[test]
fn a_worktree_deleted_outside_is_reported_gone_and_removal_prunes_the_record() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("gone");
    r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/gone".into(),
    })
    .expect("worktree");
    std::fs::remove_dir_all(&path).expect("user deletes it");
    let state = r.worktree_state(&path).expect("state");
    assert!(!state.exists);
    assert!(repo
        .git(&["worktree", "list", "--porcelain"])
        .contains("gone"));
    r.remove_worktree(&path, Confirm::NothingToLose)
        .expect("remove");
    assert!(!repo
        .git(&["worktree", "list", "--porcelain"])
        .contains("gone"));
}

#[test]
fn the_main_checkout_is_never_removed() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    assert!(matches!(
        r.remove_worktree(&repo.path, Confirm::NothingToLose),
        Err(WorktreeError::NotAWorktree(_))
    ));
    assert_eq!(repo.read("a.txt"), b"a");
}

#[test]
fn fork_commits_kept_on_another_branch_are_not_counted_as_lost() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("kept");
    r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/kept".into(),
    })
    .expect("worktree");
    write_in(&path, "a.txt", "one");
    repo.git_in(&path, &["commit", "-q", "-am", "one"]);
    write_in(&path, "a.txt", "two");
    repo.git_in(&path, &["commit", "-q", "-am", "two"]);
    assert_eq!(r.worktree_state(&path).expect("state").unpushed_commits, 2);
    repo.git(&["branch", "saved", "forkhost/kept~1"]);
    assert_eq!(r.worktree_state(&path).expect("state").unpushed_commits, 1);
    repo.git(&["branch", "-f", "saved", "forkhost/kept"]);
    let state = r.worktree_state(&path).expect("state");
    assert_eq!(state.unpushed_commits, 0);
    assert_eq!(state.branch.as_deref(), Some("refs/heads/forkhost/kept"));
    r.remove_worktree(&path, Confirm::NothingToLose)
        .expect("nothing to lose");
    assert!(repo.git_ok(&["rev-parse", "--verify", "-q", "refs/heads/saved"]));
}

/// Ignored files made in a fork's worktree (review M6): a local database and a whole ignored
/// folder are part of the loss, so a silent removal is refused and nothing is deleted; an
/// unchanged `.worktreeinclude` copy is no loss, an edited one is.
#[test]
fn ignored_files_made_in_a_worktree_block_a_silent_removal() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write(".gitignore", "*.db\n.env\n.venv/\n");
    repo.write(INCLUDE_FILE, ".env\n");
    repo.write("a.txt", "a");
    repo.commit_all("first");
    repo.write(".env", "KEY=source\n");
    let r = repo.open();
    let cp = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint");
    let (_keep, path) = outside_folder("ignored");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at: cp.commit,
            path: path.clone(),
            branch: "forkhost/ignored".into(),
        })
        .expect("worktree");
    assert_eq!(wt.included, vec![".env"]);
    assert!(
        r.worktree_state(&path).expect("state").loss().is_empty(),
        "the copy is no loss"
    );

    write_in(&path, "local.db", "rows");
    write_in(&path, ".venv/lib/site.py", "x");
    write_in(&path, ".venv/bin/python", "x");
    let state = r.worktree_state(&path).expect("state");
    assert!(state.uncommitted.is_empty(), "{state:?}");
    assert_eq!(state.ignored, vec![".venv/", "local.db"]);
    match r.remove_worktree(&path, Confirm::NothingToLose) {
        Err(WorktreeError::Dirty { what_would_be_lost }) => {
            assert_eq!(what_would_be_lost.ignored, vec![".venv/", "local.db"]);
        }
        other => panic!("expected Dirty, got {other:?}"),
    }
    assert!(
        path.join("local.db").exists(),
        "the refusal deleted nothing"
    );

    write_in(&path, ".env", "KEY=edited in the fork\n");
    let state = r.worktree_state(&path).expect("state");
    assert_eq!(state.ignored, vec![".env", ".venv/", "local.db"]);
    r.remove_worktree(&path, Confirm::Accept(state.loss()))
        .expect("removed once the loss is accepted");
    assert!(!path.exists());
}

/// A locked worktree whose folder is gone (on a drive that is not plugged in) is not there:
/// git keeps its record (locked records are never pruned), and reading its state is no error.
#[test]
fn a_locked_worktree_whose_folder_is_gone_is_not_there() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("unplugged");
    r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/unplugged".into(),
    })
    .expect("worktree");
    repo.git(&["worktree", "lock", path.to_str().expect("utf-8 path")]);
    std::fs::remove_dir_all(&path).expect("the drive goes");
    let listed = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(
        listed.contains("locked") && !listed.contains("prunable"),
        "{listed}"
    );
    let state = r.worktree_state(&path).expect("state");
    assert!(!state.exists, "{state:?}");
    assert!(state.loss().is_empty());
}

/// A worktree the user deleted, named through a symlinked folder (as macOS names `/var`
/// through `/private/var`), is still the worktree git lists: its record is pruned, not refused.
#[cfg(unix)]
#[test]
fn a_deleted_worktree_named_through_a_symlink_is_still_found() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let head = r.head().expect("head").expect("born");
    let (_keep, path) = outside_folder("linked away");
    r.create_worktree(&WorktreeSpec {
        at: head,
        path: path.clone(),
        branch: "forkhost/linked-away".into(),
    })
    .expect("worktree");
    let links = sb.plain_folder();
    let through_link = links.path().join("link");
    std::os::unix::fs::symlink(path.parent().expect("parent"), &through_link).expect("symlink");
    let named = through_link.join("linked away");
    std::fs::remove_dir_all(&path).expect("user deletes it");

    assert!(!r.worktree_state(&named).expect("state").exists);
    r.remove_worktree(&named, Confirm::NothingToLose)
        .expect("the record is pruned");
    assert!(!repo
        .git(&["worktree", "list", "--porcelain"])
        .contains("linked away"));
}

/// Review L-6: a folder the fork's commit holds as a symlink is not written through.
#[cfg(unix)]
#[test]
fn worktreeinclude_never_copies_through_a_symlinked_folder_of_the_fork() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    let (_out, outside) = outside_folder("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    repo.write(".gitignore", ".env\n");
    repo.write(".worktreeinclude", "d/.env\n");
    std::os::unix::fs::symlink(&outside, repo.path.join("d")).unwrap();
    repo.commit_all("d is a link");
    let r = repo.open();
    let at = r.head().expect("head").expect("born");
    // The source now has a real `d/` with the user's secret in it.
    std::fs::remove_file(repo.path.join("d")).unwrap();
    repo.write("d/.env", "SECRET=1\n");
    let (_keep, path) = outside_folder("fork");
    let wt = r
        .create_worktree(&WorktreeSpec {
            at,
            path: path.clone(),
            branch: "forkhost/link".into(),
        })
        .expect("worktree");
    assert!(wt.included.is_empty(), "{:?}", wt.included);
    assert!(!outside.join(".env").exists(), "written through the link");
}
