//! A spare worktree per repository, kept filled in the background (docs/architecture.md
//! "Files of a thread"): on a file system without copy-on-write clones a fork's checkout costs
//! what the repository weighs, so after every worktree fork the Host fills a spare at that
//! fork's base, and the next fork in the repository claims it (`Repo::claim_spare`): its fill
//! then writes only the paths that differ. Any trouble with a spare (none, half made, not
//! clean, another process filling it) falls back to a plain `git worktree add`; a spare cut
//! short is finished or discarded at the next claim, and one whose repository is gone is
//! removed when checkpoints are pruned.

use std::path::{Path, PathBuf};

use forkhost_worktree::{Oid, Repo, Worktree, WorktreeError, WorktreeSpec};

use super::error::blocking;
use super::repo::repo_of;
use crate::base::error::{HostError, HostResult};
use crate::base::worktree_claims::SpareJob;
use crate::host::Host;

/// The spare's folder name beside the forks' (`<data>/worktrees/<repo>/<fork id>`): fork ids
/// are UUIDs, never this.
const SPARE_NAME: &str = "spare";

impl Host {
    /// The fork's worktree, added and not yet filled: the repository's spare claimed when one
    /// is there and not being filled by this process, else `git worktree add`.
    pub(crate) async fn add_fork_worktree(
        &self,
        repo: &Repo,
        spec: WorktreeSpec,
        child_id: &str,
    ) -> HostResult<Worktree> {
        let spare = self.spare_folder(repo);
        let spares = &self.inner.worktree_claims;
        if spare.exists() && !spares.filling(&spare) {
            let (claim_in, from, wanted) = (repo.clone(), spare.clone(), spec.clone());
            match blocking(move || claim_in.claim_spare(&from, &wanted)).await {
                Ok(made) => {
                    spares.claimed(child_id);
                    tracing::info!(fork = %child_id, "fork worktree claimed from the spare");
                    return Ok(made);
                }
                Err(err) => {
                    tracing::info!(fork = %child_id, code = err.code(), "spare worktree not claimed");
                    let (discard_in, gone) = (repo.clone(), spare.clone());
                    if let Err(err) = blocking(move || discard_in.discard_spare(&gone)).await {
                        tracing::info!(code = err.code(), "spare worktree left as it is");
                    }
                }
            }
        }
        let made_in = repo.clone();
        blocking(move || made_in.add_worktree(&spec)).await
    }

    /// After a worktree fork: a spare for its repository at `at`, filled in the background,
    /// unless there is one (ready, or being filled). Cut short (the process ends), it is
    /// finished or discarded at the next claim.
    pub(crate) fn keep_spare(&self, repo: &Repo, at: Oid) {
        let spare = self.spare_folder(repo);
        let spares = &self.inner.worktree_claims;
        if spare.exists() {
            return;
        }
        if self.inner.hand_off_spares {
            spares.hand_off(SpareJob {
                repository: repo.root().to_path_buf(),
                at: at.as_str().to_owned(),
            });
            return;
        }
        if !spares.begin_fill(&spare) {
            return;
        }
        let host = self.clone();
        let repo = repo.clone();
        tokio::spawn(async move {
            if let Err(err) = host.fill_spare_of(repo, spare, at).await {
                tracing::warn!(code = err.code(), "could not fill a spare worktree");
            }
        });
    }

    /// The spares this Host left to its caller (`HostOptions::hand_off_spares`), each once.
    pub fn spare_jobs(&self) -> Vec<SpareJob> {
        self.inner.worktree_claims.take_handed()
    }

    /// Fills the spare worktree of the repository holding `repository` at commit `at`, and
    /// returns when it is ready (a full checkout's time; `forkhost spare-fill`, the process a
    /// CLI hands a [`SpareJob`] to). Nothing when the repository has a spare already.
    pub async fn fill_spare(&self, job: &SpareJob) -> HostResult<()> {
        let repo = repo_of(&job.repository).await.ok_or_else(|| {
            HostError::InvalidInput(format!(
                "{} is not in a git repository",
                job.repository.display()
            ))
        })?;
        let at: Oid = job
            .at
            .parse()
            .map_err(|_| HostError::InvalidInput(format!("{:?} is not a commit id", job.at)))?;
        let spare = self.spare_folder(&repo);
        if spare.exists() || !self.inner.worktree_claims.begin_fill(&spare) {
            return Ok(());
        }
        self.fill_spare_of(repo, spare, at).await
    }

    async fn fill_spare_of(&self, repo: Repo, spare: PathBuf, at: Oid) -> HostResult<()> {
        let into = spare.clone();
        let filled = blocking(move || repo.add_spare(&into, &at)).await;
        if filled.is_ok() {
            tracing::info!("spare worktree ready");
        }
        self.inner.worktree_claims.end_fill(&spare);
        filled
    }

    /// The folder of the ready spare worktree of the repository holding `folder`, if there is
    /// one (for tests and diagnostics; nothing the user sees).
    pub async fn spare_worktree(&self, folder: &Path) -> Option<PathBuf> {
        let repo = repo_of(folder).await?;
        let spare = self.spare_folder(&repo);
        if self.inner.worktree_claims.filling(&spare) {
            return None;
        }
        let found = spare.clone();
        blocking(move || Ok::<_, WorktreeError>(repo.spare_ready(&found)))
            .await
            .ok()?
            .then_some(spare)
    }

    /// Whether the fork `thread_id`'s worktree was a claimed spare (made by this Host; for
    /// tests and diagnostics).
    pub fn fork_claimed_spare(&self, thread_id: &str) -> bool {
        self.inner.worktree_claims.was_claimed(thread_id)
    }

    /// Removes the spares whose repository is gone (their `.git` link names a git folder that
    /// is no more) and the empty folders a spare's add left; returns how many went.
    pub(crate) async fn drop_orphan_spares(&self) -> usize {
        let worktrees = self.inner.data_dir.join("worktrees");
        tokio::task::spawn_blocking(move || orphan_spares(&worktrees))
            .await
            .unwrap_or(0)
    }

    /// `<data>/worktrees/<repository's folder>/spare`, beside the repository's forks.
    fn spare_folder(&self, repo: &Repo) -> PathBuf {
        self.worktree_folder(repo, SPARE_NAME)
    }
}

fn orphan_spares(worktrees: &Path) -> usize {
    let Ok(repos) = std::fs::read_dir(worktrees) else {
        return 0;
    };
    let mut dropped = 0;
    for spare in repos.flatten().map(|e| e.path().join(SPARE_NAME)) {
        if !spare.is_dir() || !orphaned(&spare) {
            continue;
        }
        match std::fs::remove_dir_all(&spare) {
            Ok(()) => dropped += 1,
            Err(err) => tracing::warn!(error = %err.kind(), "could not remove an orphan spare"),
        }
    }
    if dropped > 0 {
        tracing::info!(
            dropped,
            "spare worktrees of repositories that are gone removed"
        );
    }
    dropped
}

/// A spare folder no repository has: its `.git` link names a git folder that does not exist,
/// or it has no link and no file at all (its `git worktree add` never finished).
fn orphaned(spare: &Path) -> bool {
    match std::fs::read_to_string(spare.join(".git")) {
        Ok(link) => link
            .strip_prefix("gitdir:")
            // Relative with `worktree.useRelativePaths`: from the spare's folder.
            .is_some_and(|dir| !spare.join(dir.trim()).exists()),
        Err(_) => std::fs::read_dir(spare).is_ok_and(|mut e| e.next().is_none()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spare_in(worktrees: &Path, repo: &str, link: Option<String>) -> PathBuf {
        let spare = worktrees.join(repo).join(SPARE_NAME);
        std::fs::create_dir_all(&spare).unwrap();
        if let Some(link) = link {
            std::fs::write(spare.join(".git"), link).unwrap();
            std::fs::write(spare.join("file.txt"), "x").unwrap();
        }
        spare
    }

    #[test]
    fn only_spares_whose_repository_is_gone_are_removed() {
        let data = tempfile::tempdir().unwrap();
        let worktrees = data.path().join("worktrees");
        let alive = data.path().join("repo/.git/worktrees/spare");
        std::fs::create_dir_all(&alive).unwrap();
        let gone = data.path().join("gone/.git/worktrees/spare");
        let kept = spare_in(
            &worktrees,
            "a",
            Some(format!("gitdir: {}\n", alive.display())),
        );
        let relative = spare_in(
            &worktrees,
            "b",
            Some("gitdir: ../../../repo/.git/worktrees/spare\n".into()),
        );
        let orphan = spare_in(
            &worktrees,
            "c",
            Some(format!("gitdir: {}\n", gone.display())),
        );
        let empty = spare_in(&worktrees, "d", None);
        let unlinked = spare_in(&worktrees, "e", None);
        std::fs::write(unlinked.join("mine.txt"), "x").unwrap();
        let fork = worktrees.join("c").join("0193ab-cd");
        std::fs::create_dir_all(&fork).unwrap();
        std::fs::write(fork.join(".git"), format!("gitdir: {}\n", gone.display())).unwrap();

        assert_eq!(orphan_spares(&worktrees), 2);
        assert!(kept.exists() && relative.exists() && unlinked.exists() && fork.exists());
        assert!(!orphan.exists() && !empty.exists());
        assert_eq!(orphan_spares(&data.path().join("none")), 0);
    }
}
