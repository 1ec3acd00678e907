//! Test repositories that never read or write the real user's git configuration: every git call
//! (the test's own and the library's) runs with a temporary HOME, an empty global config file and
//! no system config.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use forkhost_worktree::{Git, Repo};
use tempfile::TempDir;

pub struct Sandbox {
    pub home: TempDir,
    pub git: Git,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let home = tempfile::Builder::new()
            .prefix("fh-home-")
            .tempdir()
            .expect("temp home");
        std::fs::write(home.path().join("gitconfig"), "").expect("empty global config");
        let git = Git::new().expect("git runner");
        let git = isolate(git, home.path());
        Sandbox { home, git }
    }

    pub fn global_config(&self) -> PathBuf {
        self.home.path().join("gitconfig")
    }

    /// A fresh repository in a folder whose name has a space and a non-ASCII letter.
    pub fn repo(&self) -> TestRepo {
        let dir = tempfile::Builder::new()
            .prefix("fh repo é-")
            .tempdir()
            .expect("temp repo");
        let path = dir.path().canonicalize().expect("canonical repo path");
        let repo = TestRepo {
            _dir: Some(dir),
            path,
            home: self.home.path().to_owned(),
            global: self.global_config(),
            git: self.git.clone(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// A folder that is not a repository (and has none above it in the temp dir, as far as the
    /// ceiling variable can promise).
    pub fn plain_folder(&self) -> TempDir {
        tempfile::Builder::new()
            .prefix("fh-plain-")
            .tempdir()
            .expect("temp folder")
    }
}

fn isolate(git: Git, home: &Path) -> Git {
    git.env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
}

pub struct TestRepo {
    _dir: Option<TempDir>,
    pub path: PathBuf,
    home: PathBuf,
    global: PathBuf,
    pub git: Git,
}

impl TestRepo {
    pub fn open(&self) -> Repo {
        Repo::discover(&self.git, &self.path)
            .expect("discover")
            .expect("a repository")
    }

    /// The test's own git call in the repository, with a test identity; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.path, args)
    }

    pub fn git_in(&self, cwd: &Path, args: &[&str]) -> String {
        let out = self.command(cwd, args).output().expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    /// Whether a git call succeeds (for checks like `rev-parse --verify`).
    pub fn git_ok(&self, args: &[&str]) -> bool {
        self.command(&self.path, args)
            .output()
            .expect("run git")
            .status
            .success()
    }

    fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(cwd)
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_WORK_TREE")
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.home)
            .env("GIT_CONFIG_GLOBAL", &self.global)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .args([
                "-c",
                "user.name=Test",
                "-c",
                "user.email=test@example.com",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args);
        cmd
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        write_in(&self.path, rel, content)
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path.join(rel)).expect("read file")
    }

    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Every file under the folder except `.git`, with its bytes: the "nothing changed" witness.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        files_in(&self.path)
    }

    pub fn index_bytes(&self) -> Option<Vec<u8>> {
        std::fs::read(self.path.join(".git/index")).ok()
    }
}

pub fn write_in(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("create folders");
    }
    std::fs::write(p, content).expect("write file");
}

pub fn files_in(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let entry = entry.expect("dir entry");
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).expect("under root");
                out.push((
                    rel.to_string_lossy().replace('\\', "/"),
                    std::fs::read(&path).expect("read"),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// A folder next to the repository's temp folder for a worktree (outside the repository).
pub fn outside_folder(name: &str) -> (TempDir, PathBuf) {
    let parent = tempfile::Builder::new()
        .prefix("fh-wt ü-")
        .tempdir()
        .expect("temp parent");
    let path = parent.path().canonicalize().expect("canonical").join(name);
    (parent, path)
}

/// A `git` wrapper for tests of failures: a shell script that runs `before` (shell code that
/// sees the arguments as `"$@"`) and then the real git, isolated as the sandbox's. The folder
/// it lives in goes when the returned `TempDir` drops.
#[cfg(unix)]
pub fn wrapped_git(sb: &Sandbox, before: &str) -> (TempDir, Git) {
    let bin = tempfile::tempdir().expect("wrapper folder");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .expect("sh")
            .stdout,
    )
    .expect("utf-8 path");
    let wrapper = bin.path().join("git");
    forkhost_test_script::write_executable(
        &wrapper,
        &format!("#!/bin/sh\n{before}\nexec '{}' \"$@\"\n", real.trim()),
    )
    .expect("wrapper");
    let git = Git::with_program(&wrapper)
        .expect("runner")
        .env("HOME", sb.home.path())
        .env("GIT_CONFIG_GLOBAL", sb.global_config())
        .env("GIT_CONFIG_NOSYSTEM", "1");
    (bin, git)
}
