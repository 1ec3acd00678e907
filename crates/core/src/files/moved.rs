//! A branch's files moving with it to another machine (docs/architecture.md "Remote hosts"):
//! the source names the checkpoint of the fork point ([`Host::branch_files`]); the target says
//! what its clone of the repository already holds ([`Host::files_target`]); the source bundles
//! only the rest ([`Host::bundle_branch_files`]); the target fetches the bundle into that
//! clone and checks the commit out as a new worktree, or makes a new repository from it in an
//! empty folder ([`Host::place_files`]). The source's repository keeps no trace; the target's
//! branches, index and files stay as they were.

use std::path::{Component, Path, PathBuf};

use forkhost_store::{Boundary, CheckpointRow, Edge, ThreadRow, WorktreeRow};
use forkhost_worktree::{clone_bundle, BundleMade, Oid, Repo, Worktree, WorktreeSpec};

use super::checkpoints::TurnEdge;
use super::error::blocking;
use super::repo::{git, main_root, repo_of};
use super::scope::NoCheckpoints;
use crate::base::branch::{BranchFiles, FilesTarget};
use crate::base::error::{HostError, HostResult};
use crate::host::{new_id, Host};

/// How many of the target clone's branch and tag tips are offered as already there: enough
/// for any clone that has fetched lately; past it a bundle only grows.
const TIPS_OFFERED: usize = 256;

/// Where a branch's files land: a new repository, or a worktree of this clone.
enum Landing {
    NewRepository,
    Clone(Repo),
}

/// Files placed on the target for a branch before its thread exists: undone when the thread
/// cannot be made, kept with it when it is.
pub(crate) enum Placed {
    /// A new worktree of the target's clone.
    Worktree {
        repo: Repo,
        made: Worktree,
        cwd: PathBuf,
    },
    /// A new repository in a folder that was empty or absent.
    NewRepository {
        repo: Repo,
        folder: PathBuf,
        existed: bool,
        cwd: PathBuf,
    },
}

impl Placed {
    /// The folder the branch's thread works in.
    pub fn cwd(&self) -> &Path {
        match self {
            Placed::Worktree { cwd, .. } | Placed::NewRepository { cwd, .. } => cwd,
        }
    }
}

impl Host {
    /// The files of `source` at `ordinal`'s `boundary`, or why they cannot come.
    pub(crate) async fn branch_files(
        &self,
        source: &ThreadRow,
        ordinal: i64,
        boundary: Boundary,
    ) -> Result<BranchFiles, String> {
        let folder = PathBuf::from(&source.cwd);
        let repo = match self.checkpoint_repo(&folder).await {
            Ok(repo) => repo,
            Err(NoCheckpoints::NotInGit) => {
                return Err(format!(
                    "{} is not in a git repository: only the conversation moves",
                    folder.display()
                ))
            }
            Err(NoCheckpoints::TooWide(why)) => {
                return Err(format!("{why}: only the conversation moves"))
            }
        };
        let edge = match boundary {
            Boundary::Before => TurnEdge::Start,
            Boundary::After | Boundary::Latest => TurnEdge::End,
        };
        let Some(commit) = self.checkpoint_at(&source.id, ordinal, edge).await else {
            return Err(
                "no checkpoint of the files at that message (the turn is from before \
                        Forkhost hosted the thread): only the conversation moves"
                    .into(),
            );
        };
        let subfolder = folder
            .strip_prefix(repo.root())
            .unwrap_or(Path::new(""))
            .components()
            .filter_map(|c| match c {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/");
        let asked = commit.clone();
        let roots = blocking(move || repo.roots_of(&asked))
            .await
            .map_err(|err| {
                format!("the files could not be read ({err}): only the conversation moves")
            })?;
        Ok(BranchFiles {
            commit: commit.to_string(),
            roots: roots.iter().map(ToString::to_string).collect(),
            subfolder,
        })
    }

    /// Where `files` would land in `cwd` on this machine: the clone of their repository that
    /// holds `cwd` (and what it holds already), or a new repository when `cwd` is empty or
    /// absent. A folder of another repository, or one holding files outside any, is
    /// `conflict`: nothing is placed over them.
    pub async fn files_target(&self, cwd: &Path, files: &BranchFiles) -> HostResult<FilesTarget> {
        let Landing::Clone(repo) = self.landing(cwd, files).await? else {
            return Ok(FilesTarget {
                have: Vec::new(),
                new_repository: true,
            });
        };
        let have = blocking(move || repo.tips(TIPS_OFFERED)).await?;
        Ok(FilesTarget {
            have: have.iter().map(ToString::to_string).collect(),
            new_repository: false,
        })
    }

    /// The decision [`Host::files_target`] reports, with the clone it found.
    async fn landing(&self, cwd: &Path, files: &BranchFiles) -> HostResult<Landing> {
        checked_files(files)?;
        if !cwd.is_absolute() {
            return Err(HostError::InvalidInput(format!(
                "{} is not an absolute path",
                cwd.display()
            )));
        }
        // A new folder is made one level deep at most: a mistyped path is not a new tree.
        if !cwd.exists() && !cwd.parent().is_some_and(Path::is_dir) {
            return Err(HostError::InvalidInput(format!(
                "{} is not a folder, and neither is the one above it",
                cwd.display()
            )));
        }
        if folder_is_empty(cwd)? {
            return Ok(Landing::NewRepository);
        }
        let Some(repo) = repo_of(cwd).await else {
            return Err(HostError::Conflict(format!(
                "{} holds files and is not a clone of the branch's repository: give a clone of \
                 it, or an empty folder for a new one",
                cwd.display()
            )));
        };
        let same = {
            let (repo, roots) = (repo.clone(), files.roots.clone());
            blocking(move || {
                let Some(head) = repo.head()? else {
                    return Ok(false);
                };
                let held = repo.roots_of(&head)?;
                Ok(held.iter().any(|r| roots.iter().any(|w| w == r.as_str())))
            })
            .await?
        };
        if !same {
            return Err(HostError::Conflict(format!(
                "{} is a clone of another repository (no root commit in common with the \
                 branch's): give a clone of it, or an empty folder for a new one",
                repo.root().display()
            )));
        }
        Ok(Landing::Clone(repo))
    }

    /// Writes to `file` the bundle of `files` for a target that holds `have`: the commit and
    /// only the history the target lacks. `thread_id` is the source thread.
    pub async fn bundle_branch_files(
        &self,
        thread_id: &str,
        files: &BranchFiles,
        have: &[String],
        file: &Path,
    ) -> HostResult<BundleMade> {
        checked_files(files)?;
        let row = self.store().thread(thread_id).await?;
        let repo = self
            .checkpoint_repo(Path::new(&row.cwd))
            .await
            .map_err(|_| {
                HostError::Unsupported(format!(
                    "thread {thread_id} records no checkpoints: its files cannot move"
                ))
            })?;
        let commit: Oid = files
            .commit
            .parse()
            .map_err(|_| HostError::InvalidInput(format!("{:?} is not a commit", files.commit)))?;
        let have: Vec<Oid> = have.iter().filter_map(|o| o.parse().ok()).collect();
        let file = file.to_owned();
        blocking(move || repo.create_bundle(&commit, &have, &file)).await
    }

    /// Puts the files of the `bundle` for `files` in `cwd` (see [`Host::files_target`]): a new
    /// worktree of the clone there, or a new repository in an empty folder. The caller makes
    /// the thread in [`Placed::cwd`] and keeps the files ([`Host::keep_placed`]) or undoes them
    /// ([`Host::undo_placed`]).
    pub(crate) async fn place_files(
        &self,
        files: &BranchFiles,
        cwd: &Path,
        bundle: &Path,
    ) -> HostResult<Placed> {
        let landing = self.landing(cwd, files).await?;
        let commit: Oid = files
            .commit
            .parse()
            .map_err(|_| HostError::InvalidInput(format!("{:?} is not a commit", files.commit)))?;
        let id = new_id();
        let short: String = id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(8)
            .collect();
        let branch = format!("forkhost/moved-{short}");
        let Landing::Clone(repo) = landing else {
            let existed = cwd.exists();
            let (git, file, folder) = (git()?, bundle.to_owned(), cwd.to_owned());
            let repo = blocking(move || clone_bundle(&git, &file, &folder, &branch)).await?;
            let placed = Placed::NewRepository {
                cwd: cwd.join(&files.subfolder),
                repo,
                folder: cwd.to_owned(),
                existed,
            };
            return self.with_folder(placed).await;
        };
        let (fetch_in, file, name) = (repo.clone(), bundle.to_owned(), id.clone());
        let fetched = blocking(move || fetch_in.fetch_bundle(&file, &name)).await?;
        let made = if fetched == commit {
            let spec = WorktreeSpec {
                at: commit,
                path: self.worktree_folder(&repo, &id),
                branch,
            };
            let add_in = repo.clone();
            blocking(move || add_in.create_worktree(&spec)).await
        } else {
            Err(HostError::InvalidInput(
                "the bundle holds another commit than the branch names".into(),
            ))
        };
        // The worktree's branch keeps the commit now (or nothing needs it).
        let (drop_in, name) = (repo.clone(), id);
        if let Err(err) = blocking(move || drop_in.drop_incoming(&name)).await {
            tracing::warn!(error = %err, "could not drop a moved branch's incoming ref");
        }
        let made = made?;
        let placed = Placed::Worktree {
            cwd: made.path.join(&files.subfolder),
            repo,
            made,
        };
        self.with_folder(placed).await
    }

    /// The thread's folder made where the repository held nothing at it yet.
    async fn with_folder(&self, placed: Placed) -> HostResult<Placed> {
        match std::fs::create_dir_all(placed.cwd()) {
            Ok(()) => Ok(placed),
            Err(err) => {
                let why = format!("could not make {}: {err}", placed.cwd().display());
                self.undo_placed(placed).await;
                Err(HostError::InvalidInput(why))
            }
        }
    }

    /// Keeps placed files with the thread made on them: a worktree is the thread's as a fork's
    /// is, and the commit is its checkpoint at the end of its last moved turn (so the branch
    /// can move on, or fork here, with its files). Both only add detail: a failure is logged.
    pub(crate) async fn keep_placed(&self, thread_id: &str, turns: i64, placed: Placed) {
        let (repo, commit) = match placed {
            Placed::Worktree { repo, made, .. } => {
                let row = WorktreeRow {
                    thread_id: thread_id.to_owned(),
                    path: made.path.display().to_string(),
                    branch: made.branch.clone(),
                    repo_root: main_root(&repo).display().to_string(),
                    base_commit: made.base.to_string(),
                };
                if let Err(err) = self.store().put_worktree(&row).await {
                    tracing::warn!(thread = %thread_id, error = %err, "could not record a moved branch's worktree");
                }
                (repo, made.base)
            }
            Placed::NewRepository { repo, .. } => {
                let head = repo.clone();
                match blocking(move || head.head()).await {
                    Ok(Some(commit)) => (repo, commit),
                    _ => return,
                }
            }
        };
        let label = format!("t{turns}-{}", Edge::End.as_str());
        let (named_in, thread, named) = (repo, thread_id.to_owned(), vec![(label, commit.clone())]);
        if let Err(err) = blocking(move || named_in.name_checkpoints(&thread, &named)).await {
            tracing::warn!(thread = %thread_id, error = %err, "could not name a moved branch's checkpoint");
            return;
        }
        let row = CheckpointRow {
            thread_id: thread_id.to_owned(),
            turn_ordinal: turns,
            edge: Edge::End,
            commit_id: commit.to_string(),
        };
        if let Err(err) = self.store().put_checkpoint(&row).await {
            tracing::warn!(thread = %thread_id, error = %err, "could not store a moved branch's checkpoint");
        }
    }

    /// Removes files placed for a thread that could not be made: the worktree, or the new
    /// repository (its folder left as it was found: empty, or absent).
    pub(crate) async fn undo_placed(&self, placed: Placed) {
        match placed {
            Placed::Worktree { repo, made, .. } => {
                let folder = made.path.clone();
                if let Err(err) = blocking(move || repo.discard_worktree(&made)).await {
                    tracing::warn!(error = %err, folder = %folder.display(), "could not remove a moved branch's worktree");
                }
            }
            Placed::NewRepository {
                folder, existed, ..
            } => {
                let removed = std::fs::remove_dir_all(&folder).and_then(|()| {
                    if existed {
                        std::fs::create_dir(&folder)
                    } else {
                        Ok(())
                    }
                });
                if let Err(err) = removed {
                    tracing::warn!(error = %err, folder = %folder.display(), "could not remove a moved branch's new repository");
                }
            }
        }
    }
}

/// `files` as a target may use them: a commit id, and a subfolder that stays inside the
/// repository (they come from another machine).
fn checked_files(files: &BranchFiles) -> HostResult<()> {
    if files.commit.parse::<Oid>().is_err() {
        return Err(HostError::InvalidInput(format!(
            "{:?} is not a commit",
            files.commit
        )));
    }
    let inside = files.subfolder.is_empty()
        || Path::new(&files.subfolder)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return Err(HostError::InvalidInput(format!(
            "{:?} is not a folder inside a repository",
            files.subfolder
        )));
    }
    Ok(())
}

/// Whether `folder` is absent or holds nothing; a file there is `invalid_input`.
fn folder_is_empty(folder: &Path) -> HostResult<bool> {
    if !folder.exists() {
        return Ok(true);
    }
    if !folder.is_dir() {
        return Err(HostError::InvalidInput(format!(
            "{} is a file, not a folder",
            folder.display()
        )));
    }
    let mut entries = std::fs::read_dir(folder).map_err(|err| {
        HostError::InvalidInput(format!("{} cannot be read: {err}", folder.display()))
    })?;
    Ok(entries.next().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(subfolder: &str) -> BranchFiles {
        BranchFiles {
            commit: "1234567890123456789012345678901234567890".into(),
            roots: vec![],
            subfolder: subfolder.into(),
        }
    }

    #[test]
    fn a_subfolder_from_another_machine_stays_inside_the_repository() {
        assert!(checked_files(&files("")).is_ok());
        assert!(checked_files(&files("crates/core")).is_ok());
        for bad in ["../outside", "/etc", "a/../../b", "./a"] {
            let err = checked_files(&files(bad)).unwrap_err();
            assert_eq!(err.code(), "invalid_input", "{bad}");
        }
        let mut wrong = files("");
        wrong.commit = "HEAD; rm -rf /".into();
        assert_eq!(checked_files(&wrong).unwrap_err().code(), "invalid_input");
    }
}
