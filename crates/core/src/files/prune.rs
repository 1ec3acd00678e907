//! Pruning: the checkpoint refs of threads archived longer than the user's setting are
//! deleted (only `refs/forkhost/<thread>/*`; nothing else the user owns), unless a fork still
//! uses one of their commits.

use std::path::PathBuf;

use forkhost_store::ThreadState;

use super::error::blocking;
use super::repo::repo_of;
use crate::base::error::HostResult;
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
        let cutoff = archived_before(now_ms, days);
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

/// The newest `updated_at` (unix milliseconds) a thread archived at least `days` days before
/// `now_ms` can have.
fn archived_before(now_ms: i64, days: u32) -> i64 {
    now_ms - i64::from(days) * 24 * 3600 * 1000
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_day_is_86_400_000_milliseconds_back() {
        let now = 1_800_000_000_000;
        assert_eq!(super::archived_before(now, 0), now);
        assert_eq!(super::archived_before(now, 1), now - 86_400_000);
        assert_eq!(super::archived_before(now, 30), now - 2_592_000_000);
    }
}
