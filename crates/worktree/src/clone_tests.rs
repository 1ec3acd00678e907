//! The clone path of a fork's fill, on any file system: plain copies stand in for clones
//! ([`FileCopy::Copy`]), so the choice of files, the index written for them and the checkout
//! that follows are what a clone gets. `benches/checkpoint.rs` measures real clones (XFS).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

use crate::clone::unix::{clone_one, Candidate};
use crate::clone::{Cloned, FileCopy};
use crate::{Git, Repo, WorktreeSpec};

/// A repository in a temporary folder, every git call isolated from the user's configuration.
struct Fixture {
    home: TempDir,
    dir: TempDir,
    git: Git,
}

impl Fixture {
    fn new() -> Fixture {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("gitconfig"), "").unwrap();
        let git = Git::new()
            .unwrap()
            .env("HOME", home.path())
            .env("GIT_CONFIG_GLOBAL", home.path().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1");
        let fixture = Fixture {
            home,
            dir: tempfile::tempdir().unwrap(),
            git,
        };
        fixture.run(&["init", "-q", "-b", "main"]);
        fixture
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn run_in(&self, cwd: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(cwd)
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_GLOBAL", self.home.path().join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn run(&self, args: &[&str]) -> String {
        self.run_in(&self.root(), args)
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn repo(&self) -> Repo {
        Repo::discover(&self.git, &self.root()).unwrap().unwrap()
    }

    /// 60 files in 6 folders, one executable and one symlink, committed.
    fn committed(&self) {
        for i in 0..60 {
            self.write(&format!("d{}/f{i}.txt", i % 6), &format!("file {i}\n"));
        }
        self.write("run.sh", "#!/bin/sh\necho hi\n");
        let run = self.root().join("run.sh");
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("d0/f0.txt", self.root().join("link")).unwrap();
        self.run(&["add", "-A"]);
        self.run(&["commit", "-q", "-m", "files"]);
    }

    /// A fork's worktree at HEAD, added and not filled, and the repository it is.
    fn added(&self, parent: &TempDir) -> (Repo, crate::Worktree) {
        let source = self.repo();
        let spec = WorktreeSpec {
            at: source.head().unwrap().unwrap(),
            path: parent.path().canonicalize().unwrap().join("fork"),
            branch: "forkhost/clone".into(),
        };
        let made = source.add_worktree(&spec).unwrap();
        let dest = source.sibling(&made.path).unwrap();
        (dest, made)
    }
}

fn empty_folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            if std::fs::read_dir(&path).unwrap().next().is_none() {
                out.push(path.clone());
            }
            out.extend(empty_folders(&path));
        }
    }
    out
}

fn ino(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).unwrap().ino()
}

#[test]
fn unchanged_files_are_cloned_and_the_checkout_writes_only_the_rest() {
    let f = Fixture::new();
    // The same attributes in the source and at the fork point: they do not stop the clones.
    f.write(".gitattributes", "*.bin binary\n");
    f.committed();
    // Unsaved in the source: an edit, a staged change, a new file.
    f.write("d1/f1.txt", "edited, not saved\n");
    f.write("d2/f2.txt", "staged\n");
    f.run(&["add", "d2/f2.txt"]);
    f.write("new.txt", "untracked\n");
    let parent = tempfile::tempdir().unwrap();
    let (dest, mut made) = f.added(&parent);
    let source = f.repo();

    let mut seen = Vec::new();
    let cloned = source
        .clone_unchanged_files(
            &dest,
            made.base.as_str(),
            FileCopy::Copy,
            &mut |done, total| seen.push((done, total)),
        )
        .unwrap();
    // 63 in the commit; the edited and the staged file differ, the symlink is git's to write.
    assert_eq!(
        cloned,
        Cloned {
            files: 60,
            total: 63
        }
    );
    assert_eq!(seen.last(), Some(&(60, 63)));
    assert!(!made.path.join("d1/f1.txt").exists());
    assert!(!made.path.join("new.txt").exists());
    let kept = made.path.join("d3/f3.txt");
    let before = ino(&kept);
    // Each clone has the mode git would give it: the source's, executable where the commit is.
    let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
    assert_eq!(mode(&kept), mode(&f.root().join("d3/f3.txt")));
    let run = made.path.join("run.sh");
    assert_eq!(mode(&run), mode(&f.root().join("run.sh")));
    assert_eq!(mode(&run) & 0o111, 0o111);
    let run_before = ino(&run);

    source
        .fill_worktree_by(&mut made, |_| {}, FileCopy::Copy)
        .unwrap();
    assert_eq!(ino(&kept), before, "the checkout left the clone alone");
    assert_eq!(ino(&run), run_before, "and the executable one");
    assert_eq!(
        std::fs::read_to_string(made.path.join("d1/f1.txt")).unwrap(),
        "file 1\n"
    );
    assert_eq!(
        std::fs::read_to_string(made.path.join("d2/f2.txt")).unwrap(),
        "file 2\n"
    );
    assert!(!made.path.join("new.txt").exists());
    let mode = std::fs::metadata(made.path.join("run.sh")).unwrap().mode();
    assert_eq!(mode & 0o111, 0o111, "still executable");
    assert_eq!(
        std::fs::read_link(made.path.join("link")).unwrap(),
        Path::new("d0/f0.txt")
    );
    // No folder but the commit's (each holds a file).
    assert_eq!(empty_folders(&made.path), Vec::<PathBuf>::new());
    // Git sees the fork's files exactly as its commit: the index holds the truth.
    assert_eq!(f.run_in(&made.path, &["status", "--porcelain"]), "");
    assert_eq!(f.run_in(&made.path, &["diff", "--stat", "HEAD"]), "");
}

#[test]
fn a_fill_through_clones_reports_every_file_once() {
    let f = Fixture::new();
    f.committed();
    f.write("d1/f1.txt", "edited\n");
    let parent = tempfile::tempdir().unwrap();
    let (_dest, mut made) = f.added(&parent);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = std::sync::Arc::clone(&seen);
    f.repo()
        .fill_worktree_by(
            &mut made,
            move |p| into.lock().unwrap().push(p),
            FileCopy::Copy,
        )
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    let last = seen.last().copied().unwrap();
    assert_eq!((last.done, last.total), (62, 62));
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));
    assert_eq!(f.run_in(&made.path, &["status", "--porcelain"]), "");
}

#[test]
fn different_attributes_clone_nothing() {
    let f = Fixture::new();
    f.write(".gitattributes", "*.txt text\n");
    f.write("d0/.gitattributes", "*.txt text\n");
    f.committed();
    // Both differ (one would be enough).
    f.write(".gitattributes", "*.txt text eol=crlf\n");
    f.write("d0/.gitattributes", "*.txt text eol=crlf\n");
    let parent = tempfile::tempdir().unwrap();
    let (dest, made) = f.added(&parent);
    let cloned = f
        .repo()
        .clone_unchanged_files(&dest, made.base.as_str(), FileCopy::Copy, &mut |_, _| {})
        .unwrap();
    assert_eq!(cloned.files, 0);
    assert!(!dest.git_dir.join("index").exists());
}

#[test]
fn a_source_changed_after_the_mark_is_not_kept() {
    let f = Fixture::new();
    f.committed();
    let parent = tempfile::tempdir().unwrap();
    let (dest, made) = f.added(&parent);
    let candidate = Candidate {
        path: b"d0/f0.txt".to_vec(),
        mode: 0o100644,
        blob: [0; 20],
    };
    let source = f.repo();
    std::fs::create_dir_all(made.path.join("d0")).unwrap();
    // Marked before the file's last change: it may have changed after git looked.
    let old = (0, 0);
    assert!(clone_one(&source, &dest, &candidate, FileCopy::Copy, old).is_none());
    assert!(!made.path.join("d0/f0.txt").exists(), "no clone left");
    // Changed in the very tick of the mark: not older, so not kept either.
    let was = std::fs::metadata(f.root().join("d0/f0.txt")).unwrap();
    let same = (was.ctime(), was.ctime_nsec());
    assert!(clone_one(&source, &dest, &candidate, FileCopy::Copy, same).is_none());
    assert!(!made.path.join("d0/f0.txt").exists(), "no clone left");
    let now = (i64::MAX, 0);
    let entry = clone_one(&source, &dest, &candidate, FileCopy::Copy, now).unwrap();
    assert_eq!(entry.stat.ino(), ino(&made.path.join("d0/f0.txt")));
}

#[test]
fn a_worktree_with_an_index_gets_no_clones() {
    let f = Fixture::new();
    f.committed();
    let parent = tempfile::tempdir().unwrap();
    let (dest, made) = f.added(&parent);
    std::fs::write(dest.git_dir.join("index"), b"").unwrap();
    let cloned = f
        .repo()
        .clone_unchanged_files(&dest, made.base.as_str(), FileCopy::Copy, &mut |_, _| {})
        .unwrap();
    assert_eq!(cloned, Cloned::default());
}
