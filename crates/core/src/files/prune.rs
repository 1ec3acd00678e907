//! Pruning: the checkpoint refs of threads archived longer than the user's setting are
//! deleted (only `refs/forkhost/<thread>/*`; nothing else the user owns), unless a fork still
//! uses one of their commits.

use std::path::PathBuf;

use forkhost_store::ThreadState;

use super::error::blocking;
use super::repo::repo_of;
use crate::error::HostResult;
use crate::host::Host;

impl Host {
    /// Prunes the checkpoints of threads archived more than `days` ago; returns how many
    /// threads lost theirs. The spare worktrees of repositories that are gone go too.
    pub async fn prune_checkpoints(&self, days: u32) -> HostResult<usize> {
        self.drop_orphan_spares().await;
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        let cutoff = now_ms - i64::from(days) * 24 * 3600 * 1000;
        let mut pruned = 0;
        for row in self.store().threads().await? {
            if row.state != ThreadState::Archived || row.updated_at > cutoff {
                continue;
            }
            if self.store().checkpoints(&row.id).await?.is_empty()
                || self.store().checkpoints_shared(&row.id).await?
            {
                continue;
            }
            let folder = match self.store().worktree(&row.id).await? {
                Some(worktree) => PathBuf::from(worktree.repo_root),
                None => PathBuf::from(&row.cwd),
            };
            let Some(repo) = repo_of(&folder).await else {
                continue; // the repository is gone: nothing left to prune
            };
            let thread = row.id.clone();
            match blocking(move || repo.prune(&thread)).await {
                Ok(refs) => {
                    self.store().forget_checkpoints(&row.id).await?;
                    tracing::info!(thread = %row.id, refs, "archived thread's checkpoints pruned");
                    pruned += 1;
                }
                Err(err) => {
                    tracing::warn!(thread = %row.id, code = err.code(), "could not prune checkpoints")
                }
            }
        }
        Ok(pruned)
    }
}
