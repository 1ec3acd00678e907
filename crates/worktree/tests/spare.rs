//! A spare worktree kept filled ahead of a fork: claimed, it holds exactly the fork point's
//! files while only the paths that differ are written; it is then an ordinary fork worktree;
//! a spare with a stray file, a half-made one, and a folder that is no spare are never
//! claimed as they are; every failure leaves the spare as it was, or nothing.

// File modes, inodes and times through `std::os::unix`.
#![cfg(unix)]

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{files_in, outside_folder, write_in, Sandbox, TestRepo};
use forkhost_worktree::{Confirm, Oid, Repo, WorktreeError, WorktreeSpec};

/// A repository whose `main` is at A, and a commit B (reachable from no branch, like a
/// checkpoint) ten paths away from A: modified, deleted, added (in a new folder), and one
/// made executable.
fn two_commits(sb: &Sandbox) -> (TestRepo, Oid, Oid) {
    let repo = sb.repo();
    for i in 0..40 {
        repo.write(&format!("d{}/f{i}.txt", i % 4), format!("file {i}\n"));
    }
    repo.write(".gitignore", "*.log\n");
    repo.commit_all("A");
    let a: Oid = repo.git(&["rev-parse", "HEAD"]).trim().parse().unwrap();
    for i in 0..4 {
        repo.write(&format!("d{i}/f{i}.txt"), format!("changed {i}\n"));
    }
    std::fs::remove_file(repo.path.join("d0/f4.txt")).unwrap();
    std::fs::remove_file(repo.path.join("d1/f5.txt")).unwrap();
    repo.write("new/one.txt", "new 1\n");
    repo.write("new/deep/two.txt", "new 2\n");
    repo.write("d3/f7.txt", "changed 7\n");
    let exec = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(repo.path.join("d2/f6.txt"), exec).unwrap();
    repo.commit_all("B");
    let b: Oid = repo.git(&["rev-parse", "HEAD"]).trim().parse().unwrap();
    repo.git(&["reset", "-q", "--hard", a.as_str()]);
    (repo, a, b)
}

fn spec(at: &Oid, path: &Path, branch: &str) -> WorktreeSpec {
    WorktreeSpec {
        at: at.clone(),
        path: path.to_owned(),
        branch: branch.into(),
    }
}

/// The git folder of the checkout at `path`.
fn git_dir(repo: &TestRepo, path: &Path) -> PathBuf {
    PathBuf::from(
        repo.git_in(path, &["rev-parse", "--absolute-git-dir"])
            .trim(),
    )
}

fn branches(repo: &TestRepo) -> String {
    repo.git(&["for-each-ref", "--format=%(refname)", "refs/heads"])
}

fn worktrees(repo: &TestRepo) -> String {
    repo.git(&["worktree", "list", "--porcelain"])
}

/// (inode, mtime in ns) of a file: a file written again gets another one of them.
fn stamp(path: &Path) -> (u64, i128) {
    let meta = std::fs::metadata(path).unwrap();
    (
        meta.ino(),
        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
    )
}

#[test]
fn a_claimed_spare_holds_exactly_the_fork_points_files_and_only_the_difference_is_written() {
    let sb = Sandbox::new();
    let (repo, a, b) = two_commits(&sb);
    let r = repo.open();
    let (_keep, parent) = outside_folder("x");
    let spare = parent.with_file_name("spare");
    r.add_spare(&spare, &a).unwrap();
    assert!(r.spare_ready(&spare));
    assert_eq!(files_in(&spare), files_in(&repo.path), "the spare holds A");
    assert!(!repo.git_ok(&["-C", spare.to_str().unwrap(), "symbolic-ref", "-q", "HEAD"]));
    // Its index is newer than every file it holds (in git's whole seconds), so none is
    // "racily clean" and a claim or fill reads no file only to be sure.
    let seconds = |p: &Path| std::fs::metadata(p).unwrap().mtime();
    let index = seconds(&git_dir(&repo, &spare).join("index"));
    for (file, _) in files_in(&spare) {
        assert!(
            seconds(&spare.join(&file)) < index,
            "{file} is racily clean"
        );
    }
    let kept = stamp(&spare.join("d1/f9.txt"));
    let changed = stamp(&spare.join("d1/f1.txt"));
    // A file written again now would carry a later mtime.
    std::thread::sleep(Duration::from_millis(50));

    let fork = parent.with_file_name("fork");
    let mut claimed = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/fork"))
        .unwrap();
    assert!(!spare.exists(), "the spare became the fork");
    assert!(!r.spare_ready(&spare));
    assert_eq!(claimed.path, fork);
    assert_eq!(claimed.branch, "forkhost/fork");
    assert_eq!(claimed.base, b);
    assert!(claimed.included.is_empty());
    assert!(r.worktree_needs_fill(&fork).unwrap(), "marked as added");
    assert_eq!(
        repo.git_in(&fork, &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/forkhost/fork"
    );
    assert_eq!(
        stamp(&fork.join("d1/f1.txt")),
        changed,
        "no file touched yet"
    );
    r.fill_worktree(&mut claimed, |_| {}).unwrap();
    assert!(!r.worktree_needs_fill(&fork).unwrap());

    // Exactly what a fresh worktree of B holds: every path and content, and the mode.
    let fresh = parent.with_file_name("fresh");
    r.create_worktree(&spec(&b, &fresh, "forkhost/fresh"))
        .unwrap();
    assert_eq!(files_in(&fork), files_in(&fresh));
    assert!(!fork.join("d0/f4.txt").exists() && fork.join("new/deep/two.txt").exists());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o111;
    assert_ne!(mode(&fork.join("d2/f6.txt")), 0, "made executable in B");
    assert_eq!(
        repo.git_in(&fork, &["status", "--porcelain", "--ignored"]),
        ""
    );
    assert_eq!(
        stamp(&fork.join("d1/f9.txt")),
        kept,
        "the same in A and B: not written"
    );
    assert_ne!(
        stamp(&fork.join("d1/f1.txt")),
        changed,
        "changed in B: written"
    );

    // An ordinary fork worktree: its base is B (reachable from no branch), so only its own
    // commits count, and it is removed with its branch.
    let state = r.worktree_state(&fork).unwrap();
    assert!(state.exists && state.uncommitted.is_empty() && state.ignored.is_empty());
    assert_eq!(state.unpushed_commits, 0);
    assert_eq!(state.branch.as_deref(), Some("refs/heads/forkhost/fork"));
    write_in(&fork, "mine.txt", "work\n");
    repo.git_in(&fork, &["add", "mine.txt"]);
    repo.git_in(&fork, &["commit", "-q", "-m", "fork's work"]);
    assert_eq!(r.worktree_state(&fork).unwrap().unpushed_commits, 1);
    let loss = r.worktree_state(&fork).unwrap().loss();
    r.remove_worktree(&fork, Confirm::Accept(loss)).unwrap();
    assert!(!fork.exists());
    assert!(!branches(&repo).contains("forkhost/fork"));
}

/// Leaves a stray change in the spare at the path given.
type Stray = fn(&TestRepo, &Path);

/// What was left in a spare never reaches the fork that claims it: the claim does not walk
/// the tree (that would cost the user a `git status` of the whole repository while the fork
/// opens), and the fill removes untracked and ignored files and puts modified and staged
/// ones back, so the fork holds exactly its commit.
#[test]
fn a_spare_with_a_stray_file_gives_a_fork_exactly_its_commit() {
    let sb = Sandbox::new();
    let (repo, a, b) = two_commits(&sb);
    let r = repo.open();
    let (_keep, parent) = outside_folder("x");
    let fresh = parent.with_file_name("fresh");
    r.create_worktree(&spec(&b, &fresh, "forkhost/fresh"))
        .unwrap();
    let strays: [(&str, Stray); 5] = [
        ("untracked", |_, s| write_in(s, "d0/stray.txt", "left\n")),
        ("ignored", |_, s| write_in(s, "build.log", "left\n")),
        ("modified", |_, s| write_in(s, "d1/f9.txt", "edited\n")),
        ("staged", |repo, s| {
            write_in(s, "d1/f9.txt", "staged\n");
            repo.git_in(s, &["add", "d1/f9.txt"]);
            write_in(s, "d1/f9.txt", "file 9\n");
        }),
        ("deleted", |_, s| {
            std::fs::remove_file(s.join("d1/f9.txt")).unwrap()
        }),
    ];
    for (what, stray) in strays {
        let spare = parent.with_file_name(format!("spare-{what}"));
        let fork = parent.with_file_name(format!("fork-{what}"));
        r.add_spare(&spare, &a).unwrap();
        stray(&repo, &spare);
        let mut claimed = r
            .claim_spare(&spare, &spec(&b, &fork, &format!("forkhost/{what}")))
            .unwrap();
        r.fill_worktree(&mut claimed, |_| {}).unwrap();
        assert_eq!(
            files_in(&fork),
            files_in(&fresh),
            "{what}: exactly B's files"
        );
        assert_eq!(
            repo.git_in(&fork, &["status", "--porcelain", "--ignored"]),
            "",
            "{what}"
        );
        assert!(
            !git_dir(&repo, &fork).join("forkhost-claimed").exists(),
            "{what}"
        );
    }
    // A spare moved off its commit (HEAD elsewhere, files as there) is no spare of it: refused,
    // nothing changed, and it can be discarded.
    let spare = parent.with_file_name("spare-moved");
    r.add_spare(&spare, &a).unwrap();
    repo.git_in(&spare, &["checkout", "-q", "--detach", b.as_str()]);
    let before = (files_in(&spare), branches(&repo), worktrees(&repo));
    let fork = parent.with_file_name("f2");
    let err = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/f"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NotASpare(_)), "{err}");
    assert_eq!(
        (files_in(&spare), branches(&repo), worktrees(&repo)),
        before
    );
    assert!(!fork.exists());
    r.discard_spare(&spare).unwrap();
    assert!(!spare.exists(), "discarded");
}

#[test]
fn a_folder_that_is_no_spare_is_refused_and_nothing_changes() {
    let sb = Sandbox::new();
    let (repo, a, b) = two_commits(&sb);
    let r = repo.open();
    let (_keep, parent) = outside_folder("x");
    // A fork's worktree, a linked worktree on a branch, a detached one without the marker,
    // a plain folder, the main checkout, another repository's spare, a spare's deleted folder.
    let forked = parent.with_file_name("forked");
    r.create_worktree(&spec(&a, &forked, "forkhost/forked"))
        .unwrap();
    let detached = parent.with_file_name("detached");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        detached.to_str().unwrap(),
    ]);
    let on_branch = parent.with_file_name("on-branch");
    let spare_marked = parent.with_file_name("spare-then-branch");
    r.add_spare(&spare_marked, &a).unwrap();
    repo.git_in(&spare_marked, &["switch", "-q", "-c", "user-work"]);
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "mine",
        on_branch.to_str().unwrap(),
    ]);
    let plain = parent.with_file_name("plain");
    std::fs::create_dir(&plain).unwrap();
    let other = sb.repo();
    other.write("o.txt", "other\n");
    other.commit_all("other");
    let theirs = parent.with_file_name("their-spare");
    let other_head: Oid = other.git(&["rev-parse", "HEAD"]).trim().parse().unwrap();
    other.open().add_spare(&theirs, &other_head).unwrap();
    let gone = parent.with_file_name("gone");
    r.add_spare(&gone, &a).unwrap();
    std::fs::remove_dir_all(&gone).unwrap();
    // A fork's worktree added and not filled yet: no file in it either, but on its branch.
    let unfilled = parent.with_file_name("unfilled");
    r.add_worktree(&spec(&a, &unfilled, "forkhost/unfilled"))
        .unwrap();

    let folders = [
        &forked,
        &detached,
        &spare_marked,
        &on_branch,
        &plain,
        &repo.path,
        &theirs,
        &gone,
        &unfilled,
    ];
    for folder in folders {
        let before = (
            folder.exists().then(|| files_in(folder)),
            branches(&repo),
            worktrees(&repo),
        );
        let fork = parent.with_file_name("fork");
        let err = r
            .claim_spare(folder, &spec(&b, &fork, "forkhost/f"))
            .unwrap_err();
        assert!(
            matches!(err, WorktreeError::NotASpare(_)),
            "{}: {err}",
            folder.display()
        );
        assert!(!r.spare_ready(folder), "{}", folder.display());
        let err = r.discard_spare(folder).unwrap_err();
        assert!(matches!(err, WorktreeError::NotASpare(_)), "{err}");
        let after = (
            folder.exists().then(|| files_in(folder)),
            branches(&repo),
            worktrees(&repo),
        );
        assert_eq!(after, before, "{}: nothing changed", folder.display());
        assert!(!fork.exists());
    }
    // A spare whose folder was deleted is made again at the same place.
    r.add_spare(&gone, &a).unwrap();
    assert!(r.spare_ready(&gone));
    // The main checkout, detached and carrying a spare's marker, is still the user's.
    repo.git(&["checkout", "-q", "--detach"]);
    std::fs::write(repo.path.join(".git/forkhost-spare"), format!("{a}\n")).unwrap();
    let fork = parent.with_file_name("fork");
    let err = r
        .claim_spare(&repo.path, &spec(&b, &fork, "forkhost/f"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NotASpare(_)), "{err}");
    assert!(!fork.exists() && repo.path.join("d0/f0.txt").exists());
}

#[test]
fn a_spare_cut_short_is_finished_at_its_claim_unless_a_git_still_fills_it() {
    let sb = Sandbox::new();
    let (repo, a, b) = two_commits(&sb);
    let r = repo.open();
    let (_keep, parent) = outside_folder("x");
    let spare = parent.with_file_name("spare");
    r.add_spare(&spare, &a).unwrap();
    // As a CLI's spare is left when the process ended after its checkout did: still marked
    // half made (and here a folder of files gone too).
    let dir = git_dir(&repo, &spare);
    std::fs::write(dir.join("forkhost-filling"), "").unwrap();
    std::fs::remove_dir_all(spare.join("d2")).unwrap();
    assert!(!r.spare_ready(&spare), "half made");

    // A git writing its files (a fresh index lock) is left alone by claim and discard.
    std::fs::write(dir.join("index.lock"), "").unwrap();
    let fork = parent.with_file_name("fork");
    let busy = r.claim_spare(&spare, &spec(&b, &fork, "forkhost/f"));
    assert!(matches!(busy, Err(WorktreeError::SpareBusy(_))), "{busy:?}");
    let busy = r.discard_spare(&spare);
    assert!(matches!(busy, Err(WorktreeError::SpareBusy(_))), "{busy:?}");
    assert!(dir.join("index.lock").exists() && spare.exists() && !fork.exists());
    assert!(!branches(&repo).contains("forkhost/f"));

    // A lock older than any git call is a dead process's: the claim finishes the spare.
    let old = std::process::Command::new("touch")
        .args(["-d", "10 minutes ago"])
        .arg(dir.join("index.lock"))
        .status()
        .unwrap();
    assert!(old.success());
    let mut claimed = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/f"))
        .unwrap();
    r.fill_worktree(&mut claimed, |_| {}).unwrap();
    let fresh = parent.with_file_name("fresh");
    r.create_worktree(&spec(&b, &fresh, "forkhost/fresh"))
        .unwrap();
    assert_eq!(files_in(&fork), files_in(&fresh));
    assert_eq!(
        repo.git_in(&fork, &["status", "--porcelain", "--ignored"]),
        ""
    );

    // Cut short before its checkout ended (no index yet, as after `worktree add
    // --no-checkout`): no spare to claim, discarded whole.
    r.add_spare(&spare, &a).unwrap();
    let dir = git_dir(&repo, &spare);
    std::fs::write(dir.join("forkhost-filling"), "").unwrap();
    std::fs::remove_file(dir.join("index")).unwrap();
    let fork = parent.with_file_name("fork-2");
    let err = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/g"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NotASpare(_)), "{err}");
    assert!(!fork.exists() && spare.exists() && !dir.join("index").exists());
    r.discard_spare(&spare).unwrap();
    assert!(!spare.exists());

    // Cut short between its `worktree add` and its marker: no file in it, discarded too.
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        "--no-checkout",
        spare.to_str().unwrap(),
    ]);
    let err = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/g"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NotASpare(_)), "{err}");
    r.discard_spare(&spare).unwrap();
    assert!(!spare.exists());
    assert_eq!(
        worktrees(&repo).matches("worktree ").count(),
        3,
        "main, fork, fresh"
    );
}

#[test]
fn every_failure_leaves_the_spare_as_it_was_or_nothing() {
    let sb = Sandbox::new();
    let (repo, a, b) = two_commits(&sb);
    let r: Repo = repo.open();
    let (_keep, parent) = outside_folder("x");
    let spare = parent.with_file_name("spare");
    let fork = parent.with_file_name("fork");

    // Refused before anything moves: a taken fork folder, a bad branch, a missing commit.
    r.add_spare(&spare, &a).unwrap();
    write_in(&fork, "there.txt", "x\n");
    let taken = r.claim_spare(&spare, &spec(&b, &fork, "forkhost/f"));
    assert!(
        matches!(taken, Err(WorktreeError::PathTaken(_))),
        "{taken:?}"
    );
    std::fs::remove_dir_all(&fork).unwrap();
    let bad = r.claim_spare(&spare, &spec(&b, &fork, "forkhost/../x"));
    assert!(matches!(bad, Err(WorktreeError::InvalidName(_))), "{bad:?}");
    let missing: Oid = "1".repeat(40).parse().unwrap();
    let gone = r.claim_spare(&spare, &spec(&missing, &fork, "forkhost/f"));
    assert!(
        matches!(gone, Err(WorktreeError::CheckpointNotFound(_))),
        "{gone:?}"
    );
    assert!(r.spare_ready(&spare), "still a usable spare");

    // A failure after the move (the branch's ref is locked): the moved spare goes, and no
    // branch is left.
    let lock = repo.path.join(".git/refs/heads/forkhost/f.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let failed = r.claim_spare(&spare, &spec(&b, &fork, "forkhost/f"));
    assert!(failed.is_err());
    assert!(!spare.exists() && !fork.exists(), "nothing left");
    assert_eq!(worktrees(&repo).matches("worktree ").count(), 1);
    std::fs::remove_file(&lock).unwrap();
    assert!(!branches(&repo).contains("forkhost/f"));
    // A failure after the branch was made (the spare's HEAD is locked): the branch goes too.
    r.add_spare(&spare, &a).unwrap();
    let head_lock = git_dir(&repo, &spare).join("HEAD.lock");
    std::fs::write(&head_lock, "").unwrap();
    let failed = r.claim_spare(&spare, &spec(&b, &fork, "forkhost/f"));
    assert!(failed.is_err());
    assert!(!spare.exists() && !fork.exists(), "nothing left");
    assert!(
        !branches(&repo).contains("forkhost/f"),
        "{}",
        branches(&repo)
    );
    assert_eq!(worktrees(&repo).matches("worktree ").count(), 1);
    let _ = std::fs::remove_file(&head_lock);
    // A branch taken already gets a free name, as add_worktree picks.
    repo.git(&["branch", "forkhost/f"]);
    r.add_spare(&spare, &a).unwrap();
    let claimed = r
        .claim_spare(&spare, &spec(&b, &fork, "forkhost/f"))
        .unwrap();
    assert_eq!(claimed.branch, "forkhost/f-2");
    assert_eq!(
        repo.git(&["rev-parse", "forkhost/f-2"]).trim(),
        b.as_str(),
        "at the fork's commit"
    );

    // A spare whose files cannot be written leaves nothing; a taken folder is refused.
    repo.write(".gitattributes", "*.dat filter=broken\n");
    repo.git(&["config", "--global", "filter.broken.clean", "cat"]);
    repo.git(&["config", "--global", "filter.broken.smudge", "false"]);
    repo.git(&["config", "--global", "filter.broken.required", "true"]);
    repo.write("x.dat", "data\n");
    repo.commit_all("with a filtered file");
    let head = r.head().unwrap().unwrap();
    let broken = parent.with_file_name("broken");
    assert!(r.add_spare(&broken, &head).is_err());
    assert!(!broken.exists());
    assert_eq!(worktrees(&repo).matches("worktree ").count(), 2);
    let taken = r.add_spare(&fork, &a);
    assert!(
        matches!(taken, Err(WorktreeError::PathTaken(_))),
        "{taken:?}"
    );
    let nothing = r.add_spare(&broken, &missing);
    assert!(matches!(nothing, Err(WorktreeError::CheckpointNotFound(_))));
}
