//! A remote thread's files and a remote folder's trust (docs/architecture.md "Remote hosts"):
//! Bring back between two threads of one host, a worktree's loss and its removal, and the
//! trust of a folder there — each one call of the host's daemon over its link, judged on that
//! machine's files, never on this one's.

use forkhost_core::{Call, ChangesView, HostError, HostResult, Returned, TrustView, WorktreeLoss};

use super::thread::{out_of_turn, remote};
use crate::state::AppState;

/// Bring back on `host`: `fork`'s changes applied to `target`, both threads of that host (a
/// target of another machine is refused: its files are not where the fork's patch applies).
pub async fn bring_back(
    state: &AppState,
    host: &str,
    fork: &str,
    target_id: &str,
) -> HostResult<ChangesView> {
    let target = match remote(target_id) {
        Some((h, target)) if h == host => target,
        _ => {
            return Err(HostError::InvalidInput(format!(
                "Bring back takes a fork and a thread of one machine; this fork is on {host}"
            )))
        }
    };
    let call = Call::BringBack {
        fork: fork.to_owned(),
        target: target.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::Changes { changes } => Ok(*changes),
        other => Err(out_of_turn(&other)),
    }
}

/// What removing the thread's worktree there would lose now.
pub async fn worktree_loss(state: &AppState, host: &str, thread: &str) -> HostResult<WorktreeLoss> {
    let call = Call::WorktreeLoss {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::WorktreeLoss { loss } => Ok(*loss),
        other => Err(out_of_turn(&other)),
    }
}

/// Removes the thread's worktree there, for exactly the loss the user accepted.
pub async fn remove_worktree(
    state: &AppState,
    host: &str,
    thread: &str,
    accepted: Option<WorktreeLoss>,
) -> HostResult<()> {
    let call = Call::RemoveWorktree {
        thread: thread.to_owned(),
        accepted,
    };
    match state.remote.call(host, call).await? {
        Returned::Done => Ok(()),
        other => Err(out_of_turn(&other)),
    }
}

/// A folder's trust on `host` (`~/…` that user's home): its config as found there.
pub async fn folder_trust(state: &AppState, host: &str, folder: &str) -> HostResult<TrustView> {
    let call = Call::FolderTrust {
        folder: folder.to_owned(),
    };
    trust(state.remote.call(host, call).await?)
}

/// Records the user's decision on `host` for the config the dialog showed (`shown`).
pub async fn set_folder_trust(
    state: &AppState,
    host: &str,
    folder: &str,
    trusted: bool,
    shown: Option<String>,
) -> HostResult<TrustView> {
    let call = Call::SetFolderTrust {
        folder: folder.to_owned(),
        trusted,
        shown,
    };
    trust(state.remote.call(host, call).await?)
}

fn trust(answer: Returned) -> HostResult<TrustView> {
    match answer {
        Returned::Trust { trust } => Ok(*trust),
        other => Err(out_of_turn(&other)),
    }
}
