//! A commit's files carried to another machine as a git bundle: the source writes the commit
//! with the history the target's clone lacks ([`Repo::create_bundle`], told what the target
//! holds by [`Repo::tips`]); the target fetches it into its clone of the same repository, found
//! by root commits ([`Repo::roots_of`], [`Repo::fetch_bundle`]), or makes a new repository from
//! it ([`clone_bundle`]). Only `refs/forkhost/` refs are written on either side (and, in a new
//! repository, the branch it checks out): the user's branches, tags and index are untouched.

use std::path::Path;
use std::time::Duration;

use crate::error::{Result, WorktreeError};
use crate::git::Git;
use crate::names;
use crate::oid::Oid;
use crate::repo::Repo;
use crate::REF_PREFIX;

/// A bundle may carry a whole repository's history: more time than a local call needs.
const BUNDLE_TIMEOUT: Duration = Duration::from_secs(1800);

/// What [`Repo::create_bundle`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleMade {
    /// The bundle's size in bytes.
    pub bytes: u64,
    /// The commits it leaves out because the target holds them (its prerequisites): 0 for a
    /// complete bundle.
    pub prerequisites: usize,
}

impl Repo {
    /// The root commits of `commit`'s history, sorted: the same in every clone of a repository,
    /// so they say whether another checkout holds the same one.
    pub fn roots_of(&self, commit: &Oid) -> Result<Vec<Oid>> {
        let out = self
            .git
            .call(&self.root)
            .args([
                "rev-list",
                "--max-parents=0",
                "--end-of-options",
                commit.as_str(),
            ])
            .run()?;
        let mut roots: Vec<Oid> = String::from_utf8_lossy(&out)
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        roots.sort();
        Ok(roots)
    }

    /// The commits this clone's branches, tags and remote branches point at, newest first, at
    /// most `limit`: what a bundle sent here may leave out.
    pub fn tips(&self, limit: usize) -> Result<Vec<Oid>> {
        let out = self
            .git
            .call(&self.root)
            .args([
                "for-each-ref",
                "--sort=-committerdate",
                "--format=%(objectname) %(objecttype)",
                "refs/heads",
                "refs/tags",
                "refs/remotes",
            ])
            .run()?;
        let mut tips: Vec<Oid> = Vec::new();
        for line in String::from_utf8_lossy(&out).lines() {
            let Some((oid, "commit")) = line.split_once(' ') else {
                continue;
            };
            let Ok(oid) = oid.parse::<Oid>() else {
                continue;
            };
            if !tips.contains(&oid) {
                tips.push(oid);
            }
            if tips.len() == limit {
                break;
            }
        }
        Ok(tips)
    }

    /// Writes to `file` a bundle of `commit` without what the commits of `known` this clone
    /// holds (and their history) hold; commits it does not know are passed over. The bundle
    /// names the commit by a ref of this repository made for the moment and deleted after
    /// (git bundles refs, not bare commits).
    pub fn create_bundle(&self, commit: &Oid, known: &[Oid], file: &Path) -> Result<BundleMade> {
        let commit = self.commit(commit)?;
        let held = self.held(known)?;
        let name = format!("{REF_PREFIX}outgoing/{}", moment_name());
        self.git
            .call(&self.root)
            .args(["update-ref", "--no-deref", &name, commit.as_str()])
            .run()?;
        let git = self.git.clone().timeout(BUNDLE_TIMEOUT);
        let mut call = git
            .call(&self.root)
            .args(["bundle", "create", "-q"])
            .arg(file)
            .arg(&name);
        if !held.is_empty() {
            call = call.arg("--not").args(held.iter().map(Oid::as_str));
        }
        let made = call.run();
        let deleted = self
            .git
            .call(&self.root)
            .args(["update-ref", "-d", &name])
            .run();
        made?;
        deleted?;
        let bytes = std::fs::metadata(file)?.len();
        let prerequisites = bundle_prerequisites(file)?;
        Ok(BundleMade {
            bytes,
            prerequisites,
        })
    }

    /// Fetches the one commit of the bundle `file` into `refs/forkhost/incoming/<name>` (which
    /// keeps it from git's garbage collection until [`Repo::drop_incoming`]): that commit.
    /// A bundle whose prerequisites this clone lacks is refused by git, in its words.
    pub fn fetch_bundle(&self, file: &Path, name: &str) -> Result<Oid> {
        let name = names::component(name)?;
        let head = bundle_head(&self.git, &self.root, file)?;
        let local = format!("{REF_PREFIX}incoming/{name}");
        let git = self.git.clone().timeout(BUNDLE_TIMEOUT);
        git.call(&self.root)
            .args(["fetch", "-q", "--no-tags", "--no-write-fetch-head"])
            .arg(file)
            .arg(format!("+{head}:{local}"))
            .run()?;
        self.resolve_commit(&local)?
            .ok_or(WorktreeError::CheckpointNotFound(local))
    }

    /// Deletes `refs/forkhost/incoming/<name>` once something else keeps its commit.
    pub fn drop_incoming(&self, name: &str) -> Result<()> {
        let name = names::component(name)?;
        self.git
            .call(&self.root)
            .args(["update-ref", "-d", &format!("{REF_PREFIX}incoming/{name}")])
            .run()?;
        Ok(())
    }

    /// The commits of `known` this repository holds.
    fn held(&self, known: &[Oid]) -> Result<Vec<Oid>> {
        let mut asked = String::new();
        for oid in known {
            asked.push_str(oid.as_str());
            asked.push('\n');
        }
        let out = self
            .git
            .call(&self.root)
            .args(["cat-file", "--batch-check=%(objectname) %(objecttype)"])
            .stdin(asked.into_bytes())
            .run()?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|line| match line.split_once(' ') {
                Some((oid, "commit")) => oid.parse().ok(),
                _ => None,
            })
            .collect())
    }
}

/// A new repository in `folder` (absent or empty) from the complete bundle `file`, its
/// commit checked out on a new branch `branch`.
pub fn clone_bundle(git: &Git, file: &Path, folder: &Path, branch: &str) -> Result<Repo> {
    let empty = !folder.exists() || std::fs::read_dir(folder)?.next().is_none();
    if !empty {
        return Err(WorktreeError::PathTaken(folder.to_owned()));
    }
    std::fs::create_dir_all(folder)?;
    let head = bundle_head(git, folder, file)?;
    git.call(folder).args(["init", "-q"]).run()?;
    let slow = git.clone().timeout(BUNDLE_TIMEOUT);
    slow.call(folder)
        .args(["fetch", "-q", "--no-tags", "--no-write-fetch-head"])
        .arg(file)
        .arg(format!("{head}:refs/heads/{branch}"))
        .run()?;
    git.call(folder).args(["checkout", "-q", branch]).run()?;
    Repo::discover(git, folder)?.ok_or_else(|| WorktreeError::NotARepository(folder.to_owned()))
}

/// The ref the bundle `file` carries (it carries one).
fn bundle_head(git: &Git, cwd: &Path, file: &Path) -> Result<String> {
    let out = git
        .call(cwd)
        .args(["bundle", "list-heads"])
        .arg(file)
        .run()?;
    String::from_utf8_lossy(&out)
        .lines()
        .find_map(|line| {
            let (_, name) = line.split_once(' ')?;
            name.starts_with("refs/").then(|| name.to_owned())
        })
        .ok_or_else(|| WorktreeError::GitFailed {
            command: "git bundle list-heads".into(),
            stderr_tail: "the bundle names no ref".into(),
        })
}

/// How many prerequisites (`-<oid>` lines of its header) the bundle `file` names.
pub fn bundle_prerequisites(file: &Path) -> Result<usize> {
    use std::io::BufRead;
    let reader = std::io::BufReader::new(std::fs::File::open(file)?);
    let mut count = 0;
    // The header ends at its first empty line; the pack follows.
    for line in reader.split(b'\n').skip(1) {
        let line = line?;
        if line.is_empty() {
            break;
        }
        if line.first() == Some(&b'-') {
            count += 1;
        }
    }
    Ok(count)
}

/// A name no other call of this process or another uses at the same time.
fn moment_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}", std::process::id())
}
