//! Git's errors in the Host's words.

use forkhost_worktree::WorktreeError;

use crate::base::error::HostError;

impl From<WorktreeError> for HostError {
    fn from(err: WorktreeError) -> Self {
        let text = err.to_string();
        match err {
            WorktreeError::NotARepository(_) => HostError::Unsupported(text),
            WorktreeError::CheckpointNotFound(_) => HostError::CheckpointNotFound(text),
            WorktreeError::Conflict { .. }
            | WorktreeError::Dirty { .. }
            | WorktreeError::PathTaken(_)
            | WorktreeError::SpareBusy(_) => HostError::Conflict(text),
            WorktreeError::InvalidName(_)
            | WorktreeError::NotAWorktree(_)
            | WorktreeError::NotASpare(_) => HostError::InvalidInput(text),
            WorktreeError::GitMissing(_) => {
                HostError::Unsupported(format!("{text}: install git to fork with files"))
            }
            WorktreeError::GitFailed { .. } | WorktreeError::GitTimedOut { .. } => {
                HostError::HarnessFailed(text)
            }
            WorktreeError::Io(_) => HostError::InvalidInput(text),
        }
    }
}

/// Runs blocking git work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, WorktreeError> + Send + 'static,
) -> Result<T, HostError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(HostError::from),
        Err(err) => Err(HostError::Internal(format!("git task failed: {err}"))),
    }
}
