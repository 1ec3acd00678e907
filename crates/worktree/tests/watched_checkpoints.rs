//! Checkpoints through a `TreeWatch`: they re-read only what the watcher saw change, and every
//! one holds exactly the tree a full scan of the same moment would (the witness: a plain
//! `Repo::checkpoint` right after, whose tree must be the same).

mod common;

use common::{Sandbox, TestRepo};
use forkhost_worktree::{
    Checkpoint, CheckpointSpec, Repo, Scanned, SkipReason, TreeWatch, MAX_NEW_FOLDER_FILES,
    MAX_RECORDED,
};

fn tree(repo: &TestRepo, commit: &str) -> String {
    repo.git(&["rev-parse", &format!("{commit}^{{tree}}")])
}

/// The paths that differ between two commits.
fn changed(repo: &TestRepo, from: &str, to: &str) -> Vec<String> {
    let out = repo.git(&["diff", "--name-only", "--no-renames", "-z", from, to]);
    let mut paths: Vec<String> = out
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    paths.sort();
    paths
}

struct Watched {
    repo: TestRepo,
    open: Repo,
    watch: TreeWatch,
    n: usize,
    last: Option<Checkpoint>,
    limit: Option<u64>,
}

impl Watched {
    fn new(repo: TestRepo) -> Watched {
        let open = repo.open();
        let watch = TreeWatch::start(&repo.path).expect("watch");
        Watched {
            repo,
            open,
            watch,
            n: 0,
            last: None,
            limit: None,
        }
    }

    fn spec(&mut self) -> CheckpointSpec {
        self.n += 1;
        let mut spec = CheckpointSpec::new("w", format!("c{}", self.n));
        if let Some(limit) = self.limit {
            spec = spec.size_limit(limit);
        }
        match &self.last {
            Some(last) => spec.parent(last.commit.clone()),
            None => spec,
        }
    }

    /// A checkpoint through the watch, checked against a full scan of the same files.
    fn checkpoint(&mut self) -> Checkpoint {
        let spec = self.spec();
        let cp = self
            .open
            .checkpoint_watched(&spec, &self.watch)
            .expect("watched checkpoint");
        let mut full = CheckpointSpec::new("full", format!("c{}", self.n));
        if let Some(limit) = self.limit {
            full = full.size_limit(limit);
        }
        let full = self.open.checkpoint(&full).expect("full checkpoint");
        assert_eq!(full.scanned, Scanned::Full);
        assert_eq!(
            tree(&self.repo, cp.commit.as_str()),
            tree(&self.repo, full.commit.as_str()),
            "the watched checkpoint ({:?}) holds what a full scan finds",
            cp.scanned
        );
        assert_eq!(cp.skipped, full.skipped);
        if let Some(before) = &self.last {
            assert_eq!(
                cp.files_changed_vs_parent,
                self.since_last(&cp, before).len(),
                "files changed since the last checkpoint"
            );
        }
        self.last = Some(cp.clone());
        cp
    }

    fn since_last(&self, cp: &Checkpoint, before: &Checkpoint) -> Vec<String> {
        changed(&self.repo, before.commit.as_str(), cp.commit.as_str())
    }
}

fn committed_repo(sb: &Sandbox) -> TestRepo {
    let repo = sb.repo();
    repo.write(".gitignore", "ignored/\n");
    for i in 0..20 {
        repo.write(&format!("src/f{i}.txt"), format!("file {i}\n"));
    }
    repo.write("b.txt", "bee\n");
    repo.commit_all("first");
    repo
}

#[test]
fn after_three_changes_a_checkpoint_rereads_those_and_holds_exactly_them() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    assert!(!w.watch.knows_changes(), "a new watch knows nothing yet");
    let first = w.checkpoint();
    assert_eq!(
        first.scanned,
        Scanned::Full,
        "the first one reads everything"
    );
    assert!(w.watch.knows_changes());

    w.repo.write("src/f3.txt", "edited\n");
    w.repo.write("new file.txt", "new\n");
    std::fs::remove_file(w.repo.path.join("b.txt")).unwrap();
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(3));
    assert_eq!(
        w.since_last(&cp, &first),
        vec!["b.txt", "new file.txt", "src/f3.txt"]
    );
    assert_eq!(cp.files_changed_vs_parent, 3);
}

#[test]
fn with_nothing_changed_the_checkpoint_is_the_last_one() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    w.repo.write("src/f1.txt", "edited\n");
    let end = w.checkpoint();
    assert_eq!(end.scanned, Scanned::Changed(1));
    let start = w.checkpoint();
    assert_eq!(start.scanned, Scanned::Unchanged);
    assert_eq!(start.commit, end.commit, "the same commit");
    assert_eq!(start.files_changed_vs_parent, 0);
    // Under its own label too, so it is found by name and kept from garbage collection.
    assert_eq!(
        w.open.checkpoint_commit("w", "c3").expect("label"),
        end.commit
    );
    // A parent other than the last one counts against that parent.
    let spec = CheckpointSpec::new("w", "other").parent(
        w.open
            .checkpoint_commit("w", "c1")
            .expect("the first checkpoint"),
    );
    let other = w.open.checkpoint_watched(&spec, &w.watch).expect("other");
    assert_eq!(other.scanned, Scanned::Unchanged);
    assert_eq!(other.files_changed_vs_parent, 1);
}

#[test]
fn new_folders_deep_files_and_ignored_files_are_read_right() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    let first = w.checkpoint();
    // Made at once, before the watcher can add a watch on the new folders.
    w.repo.write("deep/er/still/x.txt", "x\n");
    w.repo.write("ignored/build.o", "ignored\n");
    w.repo.write("src/f0.txt", "edited\n");
    let cp = w.checkpoint();
    assert!(
        matches!(cp.scanned, Scanned::Changed(_)),
        "{:?}",
        cp.scanned
    );
    assert_eq!(
        w.since_last(&cp, &first),
        vec!["deep/er/still/x.txt", "src/f0.txt"]
    );
    // A folder removed with its files, and one renamed.
    std::fs::remove_dir_all(w.repo.path.join("deep")).unwrap();
    std::fs::rename(w.repo.path.join("src"), w.repo.path.join("lib")).unwrap();
    let after = w.checkpoint();
    assert!(matches!(after.scanned, Scanned::Changed(_)));
    let moved = w.since_last(&after, &cp);
    assert!(moved.contains(&"deep/er/still/x.txt".to_owned()));
    assert!(moved.contains(&"lib/f19.txt".to_owned()) && moved.contains(&"src/f19.txt".to_owned()));
}

#[test]
fn a_changed_gitignore_or_more_than_the_limit_means_a_full_scan_still_exact() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    w.repo.write("ignored/kept.txt", "now seen\n");
    w.repo.write(".gitignore", "other/\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Full, "what is ignored changed");

    // The watcher's own overflow: past MAX_RECORDED paths the list is dropped.
    for i in 0..=MAX_RECORDED {
        w.repo.write(&format!("many/{}/m{i}.txt", i % 7), "m\n");
    }
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Full);
    assert!(
        w.watch.knows_changes(),
        "and the list is kept again after it"
    );
    w.repo.write("many/0/m0.txt", "edited\n");
    assert_eq!(w.checkpoint().scanned, Scanned::Changed(1));
}

#[test]
fn a_forgotten_list_or_a_failed_checkpoint_means_a_full_scan() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    w.repo.write("src/f2.txt", "edited\n");
    w.watch.forget(); // as after the OS queue overflowed
    assert!(!w.watch.knows_changes());
    assert_eq!(w.checkpoint().scanned, Scanned::Full);

    // A checkpoint that fails takes its list with it: the next one reads everything.
    w.repo.write("src/f4.txt", "edited\n");
    let missing = "0123456789abcdef0123456789abcdef01234567".parse().unwrap();
    let failed = w
        .open
        .checkpoint_watched(&CheckpointSpec::new("w", "bad").parent(missing), &w.watch);
    assert!(failed.is_err());
    assert!(!w.watch.knows_changes());
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Full);
}

#[test]
fn an_untracked_file_grown_past_the_size_limit_is_left_out_as_in_a_full_scan() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    let open = repo.open();
    let watch = TreeWatch::start(&repo.path).expect("watch");
    let limit = 64;
    let spec = |label: &str| CheckpointSpec::new("w", label).size_limit(limit);
    repo.write("notes.txt", "small\n");
    let first = open.checkpoint_watched(&spec("a"), &watch).unwrap();
    assert!(changed(&repo, "HEAD", first.commit.as_str()).contains(&"notes.txt".to_owned()));
    repo.write("notes.txt", "x".repeat(limit as usize * 2));
    let grown = open.checkpoint_watched(&spec("b"), &watch).unwrap();
    assert_eq!(grown.scanned, Scanned::Full, "only a fresh index can tell");
    assert_eq!(grown.skipped.len(), 1);
    assert_eq!(grown.skipped[0].path, "notes.txt");
    assert_eq!(grown.skipped[0].reason, SkipReason::TooLarge(limit * 2));
    // A tracked file over the limit is kept, as a full scan keeps it.
    repo.write("src/f5.txt", "y".repeat(limit as usize * 2));
    let tracked = open.checkpoint_watched(&spec("c"), &watch).unwrap();
    let full = open.checkpoint(&spec("c-full")).unwrap();
    assert_eq!(
        tree(&repo, tracked.commit.as_str()),
        tree(&repo, full.commit.as_str())
    );
}

#[test]
fn a_watch_on_a_subfolder_records_that_folder_only() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    let open = repo.open();
    let folder = repo.path.join("src");
    let watch = TreeWatch::start(&folder).expect("watch");
    assert_eq!(watch.folder(), folder);
    let spec = |label: &str| CheckpointSpec::new("w", label).within(&folder);
    let first = open.checkpoint_watched(&spec("a"), &watch).unwrap();
    repo.write("src/f7.txt", "edited\n");
    repo.write("outside.txt", "not this folder's\n");
    let cp = open
        .checkpoint_watched(&spec("b").parent(first.commit.clone()), &watch)
        .unwrap();
    assert_eq!(cp.scanned, Scanned::Changed(1));
    assert_eq!(
        changed(&repo, first.commit.as_str(), cp.commit.as_str()),
        vec!["src/f7.txt"]
    );
    let full = open.checkpoint(&spec("b-full")).unwrap();
    assert_eq!(
        tree(&repo, cp.commit.as_str()),
        tree(&repo, full.commit.as_str())
    );
    // Without the last checkpoint as its parent, a checkpoint is a full scan (an edit
    // continues only that chain).
    repo.write("src/f8.txt", "edited\n");
    let unchained = open.checkpoint_watched(&spec("c"), &watch).unwrap();
    assert_eq!(unchained.scanned, Scanned::Full);
}

#[test]
fn the_users_index_is_never_written() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.repo.write("src/f1.txt", "staged\n");
    w.repo.git(&["add", "src/f1.txt"]);
    let index = w.repo.index_bytes().unwrap();
    w.checkpoint();
    w.repo.write("src/f1.txt", "staged then edited\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(1));
    assert_eq!(w.repo.index_bytes().unwrap(), index);
    assert_eq!(
        w.repo
            .git(&["show", &format!("{}:src/f1.txt", cp.commit.as_str())]),
        "staged then edited\n"
    );
}

#[test]
fn modes_links_nested_repositories_and_large_new_files_match_a_full_scan() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.limit = Some(100);
    w.checkpoint();

    // A new file over the limit is left out and listed; a small one is in.
    w.repo.write("big.bin", "z".repeat(150));
    w.repo.write("small.txt", "s\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(2));
    assert_eq!(cp.skipped.len(), 1);
    assert_eq!(cp.skipped[0].reason, SkipReason::TooLarge(150));
    // Deleted, it is no longer listed.
    std::fs::remove_file(w.repo.path.join("big.bin")).unwrap();
    assert!(w.checkpoint().skipped.is_empty());

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let script = w.repo.path.join("src/f9.txt");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cp = w.checkpoint();
        assert_eq!(cp.scanned, Scanned::Changed(1));
        assert!(w
            .repo
            .git(&["ls-tree", cp.commit.as_str(), "src/f9.txt"])
            .starts_with("100755"));
        std::os::unix::fs::symlink("src/f1.txt", w.repo.path.join("link")).unwrap();
        assert_eq!(w.checkpoint().scanned, Scanned::Full, "a symlink");
    }

    // A nested repository: left out, as a full scan leaves it.
    w.repo
        .write("vendor/lib/.git/HEAD", "ref: refs/heads/main\n");
    w.repo.write("vendor/lib/code.c", "int x;\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Full);

    // A name git's line-based input cannot carry.
    w.repo.write("quote\"d.txt", "q\n");
    assert_eq!(w.checkpoint().scanned, Scanned::Full);
}

#[test]
fn with_untracked_files_hidden_only_known_files_are_recorded() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    repo.git(&["config", "status.showUntrackedFiles", "no"]);
    let mut w = Watched::new(repo);
    w.checkpoint();
    w.repo.write("untracked.txt", "not recorded\n");
    w.repo.write("src/f1.txt", "recorded\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(2));
    assert_eq!(cp.files_changed_vs_parent, 1);
}

#[test]
fn a_file_written_back_as_it_was_changes_nothing() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    let first = w.checkpoint();
    w.repo.write("src/f1.txt", "file 1\n"); // the same bytes again
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(1));
    assert_eq!(cp.commit, first.commit, "no new commit for no change");
    assert_eq!(w.open.checkpoint_commit("w", "c2").unwrap(), first.commit);
    // A deleted folder counts its files.
    std::fs::remove_dir_all(w.repo.path.join("src")).unwrap();
    let gone = w.checkpoint();
    assert_eq!(gone.scanned, Scanned::Changed(21));
    assert_eq!(gone.files_changed_vs_parent, 20);
}

/// A folder whose changes raise no events (here `/proc`, read through statfs; a network mount
/// the same) gets no watch: the caller checkpoints with full scans.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_the_os_cannot_watch_for_us_is_refused() {
    let err = TreeWatch::start(std::path::Path::new("/proc/self")).unwrap_err();
    assert!(err.to_string().contains("proc file system"), "{err}");
}

#[test]
fn a_file_that_became_a_folder_or_the_reverse_is_read_right() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    // Files written into the new folder at once, before the watcher can watch it.
    let was_file = w.repo.path.join("src/f1.txt");
    std::fs::remove_file(&was_file).unwrap();
    std::fs::create_dir(&was_file).unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(was_file.join(name), name).unwrap();
    }
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Full);
    let folder = w.repo.path.join("src");
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::write(&folder, "now a file\n").unwrap();
    let cp = w.checkpoint();
    // A file where the tree had a folder replaces it (and the helper checks it against a
    // full scan).
    assert!(
        matches!(cp.scanned, Scanned::Changed(_)),
        "{:?}",
        cp.scanned
    );
}

/// An event on a folder the last tree has (its mode changed) reads none of its files: the
/// files that changed in it are among the paths themselves.
#[cfg(unix)]
#[test]
fn an_existing_folders_own_event_costs_no_scan() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    let src = w.repo.path.join("src");
    std::fs::set_permissions(&src, std::fs::Permissions::from_mode(0o700)).unwrap();
    w.repo.write("src/f2.txt", "edited\n");
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(2), "the folder and one file");
    assert_eq!(cp.files_changed_vs_parent, 1);
}

/// A repository of its own inside the folder is left out by a full scan; a change made in it
/// later is left to the full scan too (it is no file of this repository).
#[test]
fn a_change_inside_a_nested_repository_is_not_recorded_as_this_ones() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    repo.write("vendor/lib/code.c", "int x;\n");
    repo.git_in(&repo.path.join("vendor/lib"), &["init", "-q"]);
    let mut w = Watched::new(repo);
    let first = w.checkpoint();
    assert_eq!(first.skipped.len(), 1, "{:?}", first.skipped);
    w.repo.write("vendor/lib/code.c", "int y;\n");
    w.repo.write("src/f1.txt", "edited\n");
    assert_eq!(w.checkpoint().scanned, Scanned::Full);
}

/// Behind a symlinked folder lie no files of the repository (git records the link): what lies
/// behind it is not watched, and a path through it is the full scan's to judge.
#[cfg(unix)]
#[test]
fn a_symlinked_folder_is_one_entry() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path.join("linked")).unwrap();
    std::os::unix::fs::symlink(repo.path.join("src"), repo.path.join("src-link")).unwrap();
    let mut w = Watched::new(repo);
    w.checkpoint();
    std::fs::write(outside.path().join("behind.txt"), "not the repository's\n").unwrap();
    w.repo.write("src/f1.txt", "edited\n");
    let cp = w.checkpoint();
    assert_eq!(
        cp.scanned,
        Scanned::Changed(1),
        "nothing behind the link is watched"
    );
    // The same file named through the link (as an OS may report it) goes to the full scan.
    let link_path = w.repo.path.join("src-link/f1.txt");
    let spec = CheckpointSpec::new("w", "through-link").parent(cp.commit.clone());
    std::fs::write(&link_path, "edited again\n").unwrap();
    let through = w.open.checkpoint_watched(&spec, &w.watch).unwrap();
    assert_ne!(through.commit, cp.commit);
}

#[test]
fn files_of_exactly_the_size_limit_are_kept_known_or_new() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.limit = Some(64);
    w.checkpoint();
    w.repo.write("src/f3.txt", "k".repeat(64));
    w.repo.write("new.txt", "n".repeat(64));
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(2));
    assert!(cp.skipped.is_empty());
    assert_eq!(cp.files_changed_vs_parent, 2);
}

#[test]
fn a_new_folder_is_read_up_to_its_limit_then_scanned() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    let root = w.repo.path.clone();
    let write_folder = |name: &str, n: usize| {
        let dir = root.join(name);
        std::fs::create_dir(&dir).unwrap();
        for i in 0..n {
            std::fs::write(dir.join(format!("f{i}")), "x").unwrap();
        }
    };
    write_folder("exactly", MAX_NEW_FOLDER_FILES);
    assert!(matches!(w.checkpoint().scanned, Scanned::Changed(_)));
    write_folder("one-more", MAX_NEW_FOLDER_FILES + 1);
    assert_eq!(w.checkpoint().scanned, Scanned::Full);
}

#[test]
fn exactly_as_many_changes_as_the_watcher_keeps_are_still_read_one_by_one() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    // In a folder already watched: one path each, nothing else.
    for i in 0..MAX_RECORDED {
        w.repo.write(&format!("src/n{i}.txt"), "n");
    }
    assert_eq!(w.checkpoint().scanned, Scanned::Changed(MAX_RECORDED));
}

/// Every change made before a checkpoint is in it, however many the watcher still has to read
/// when the checkpoint starts (its marker waits for them).
#[test]
fn changes_still_in_flight_are_waited_for() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    for i in 0..600 {
        w.repo.write(&format!("src/burst{i}.txt"), format!("{i}"));
    }
    let cp = w.checkpoint();
    assert_eq!(cp.scanned, Scanned::Changed(600));
    assert_eq!(cp.files_changed_vs_parent, 600);
    assert!(format!("{:?}", w.watch).contains("TreeWatch"));
    assert!(format!("{:?}", w.watch).contains(&*w.repo.path.to_string_lossy()));
}

/// With `core.fileMode` off (Windows' default) a file keeps the last tree's mode, and one
/// that replaces a link is a plain file, as git's own scan says.
#[cfg(unix)]
#[test]
fn without_file_modes_a_file_keeps_its_recorded_mode() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    std::os::unix::fs::symlink("b.txt", repo.path.join("link")).unwrap();
    repo.write("tool.sh", "#!/bin/sh\n");
    std::fs::set_permissions(
        repo.path.join("tool.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    repo.commit_all("a link and a tool");
    repo.git(&["config", "core.fileMode", "false"]);
    let mut w = Watched::new(repo);
    w.checkpoint();
    std::fs::set_permissions(
        w.repo.path.join("src/f1.txt"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    w.repo.write("tool.sh", "#!/bin/sh\necho hi\n");
    std::fs::remove_file(w.repo.path.join("link")).unwrap();
    w.repo.write("link", "a file now\n");
    let cp = w.checkpoint();
    assert!(
        matches!(cp.scanned, Scanned::Changed(_)),
        "{:?}",
        cp.scanned
    );
    let mode = |path: &str| w.repo.git(&["ls-tree", cp.commit.as_str(), path]);
    assert!(mode("src/f1.txt").starts_with("100644"));
    assert!(mode("tool.sh").starts_with("100755"));
    assert!(mode("link").starts_with("100644"));
}

/// A folder moved out of the tree raises one event, for the folder: it counts as all its files.
#[test]
fn a_folder_moved_away_counts_as_every_file_it_held() {
    let sb = Sandbox::new();
    let mut w = Watched::new(committed_repo(&sb));
    w.checkpoint();
    let away = tempfile::tempdir().unwrap();
    // Same file system (the rename must be one move, not a copy and delete).
    let beside = w.repo.path.parent().unwrap().join(format!(
        "moved-away-{}",
        away.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::rename(w.repo.path.join("src"), &beside).unwrap();
    let cp = w.checkpoint();
    std::fs::remove_dir_all(&beside).ok();
    assert_eq!(cp.scanned, Scanned::Changed(1), "one event, for the folder");
    assert_eq!(cp.files_changed_vs_parent, 20);
}

/// A fork's worktree just filled: the watch starts from its commit, so its first checkpoint
/// reads nothing (it is that commit), and the next one re-reads only what changed — each the
/// tree a full scan of the worktree finds.
#[test]
fn a_watch_from_a_filled_checkout_needs_no_first_full_scan() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    let open = repo.open();
    let head = open.head().unwrap().unwrap();
    let (_keep, path) = common::outside_folder("fork");
    let spec = forkhost_worktree::WorktreeSpec {
        at: head.clone(),
        path: path.clone(),
        branch: "forkhost/watched".into(),
    };
    let mut made = open.add_worktree(&spec).unwrap();
    open.fill_worktree(&mut made, |_| {}).unwrap();
    let fork = Repo::discover(&repo.git, &path).unwrap().unwrap();
    let watch = fork.watch_checkout(&path, &head).unwrap();
    assert!(
        watch.knows_changes(),
        "the checkout is known: it is the commit"
    );

    let first = fork
        .checkpoint_watched(&CheckpointSpec::new("f", "c1"), &watch)
        .unwrap();
    assert_eq!(first.scanned, Scanned::Unchanged);
    assert_eq!(
        first.commit, head,
        "the first checkpoint is the checkout's commit"
    );
    let full = fork.checkpoint(&CheckpointSpec::new("full", "c1")).unwrap();
    assert_eq!(
        tree(&repo, first.commit.as_str()),
        tree(&repo, full.commit.as_str())
    );

    std::fs::write(path.join("src/f3.txt"), "edited in the fork\n").unwrap();
    std::fs::write(path.join("fresh.txt"), "new\n").unwrap();
    let second = fork
        .checkpoint_watched(
            &CheckpointSpec::new("f", "c2").parent(first.commit.clone()),
            &watch,
        )
        .unwrap();
    assert_eq!(second.scanned, Scanned::Changed(2));
    assert_eq!(
        changed(&repo, head.as_str(), second.commit.as_str()),
        vec!["fresh.txt", "src/f3.txt"]
    );
    let full = fork.checkpoint(&CheckpointSpec::new("full", "c2")).unwrap();
    assert_eq!(
        tree(&repo, second.commit.as_str()),
        tree(&repo, full.commit.as_str())
    );
}

/// A change made between the watch's start and its first checkpoint is in that checkpoint:
/// the start does not forget what it already saw.
#[test]
fn a_change_right_after_a_checkout_watch_starts_is_kept() {
    let sb = Sandbox::new();
    let repo = committed_repo(&sb);
    let open = repo.open();
    let head = open.head().unwrap().unwrap();
    let watch = open.watch_checkout(&repo.path, &head).unwrap();
    repo.write("b.txt", "changed at once\n");
    let cp = open
        .checkpoint_watched(&CheckpointSpec::new("f", "c1"), &watch)
        .unwrap();
    // No parent given: the edit needs the chain's parent, so this one reads the folder — and
    // still holds the change.
    assert_eq!(cp.scanned, Scanned::Full);
    let cp2 = {
        repo.write("b.txt", "changed again\n");
        open.checkpoint_watched(
            &CheckpointSpec::new("f", "c2").parent(cp.commit.clone()),
            &watch,
        )
        .unwrap()
    };
    assert_eq!(cp2.scanned, Scanned::Changed(1));
    assert_eq!(
        changed(&repo, head.as_str(), cp.commit.as_str()),
        vec!["b.txt"]
    );
    // A commit that is not in the repository is refused before any watch starts.
    let missing: forkhost_worktree::Oid =
        "0123456789012345678901234567890123456789".parse().unwrap();
    assert!(open.watch_checkout(&repo.path, &missing).is_err());
}
