//! The commands about a thread's files (docs/architecture.md "Files of a thread") and a
//! folder's trust ("Folder trust"): each checks its input and calls one Host method.

use std::path::PathBuf;

use forkhost_core::{ChangesView, FilesView, TrustView, WorktreeLoss};
use tauri::State;

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::state::AppState;

/// A folder the UI passed: `~` expanded, absolute.
fn folder(path: &str) -> CmdResult<PathBuf> {
    let path = crate::commands::expand_home(path.trim());
    if path.as_os_str().is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "a folder is needed",
        ));
    }
    if !path.is_absolute() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            format!("{} is not an absolute folder path", path.display()),
        ));
    }
    Ok(path)
}

/// The thread's folder kind (worktree or folder), whether it is in git and still exists, and
/// its checkpoints.
#[tauri::command(rename_all = "snake_case")]
pub async fn files(state: State<'_, AppState>, thread_id: String) -> CmdResult<FilesView> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::thread::files(&state, host, thread).await?);
    }
    Ok(state.host.files(&thread_id).await?)
}

/// `other` null: a worktree fork's changes since its fork point; else the two threads'
/// current files.
#[tauri::command(rename_all = "snake_case")]
pub async fn changes(
    state: State<'_, AppState>,
    thread_id: String,
    other: Option<String>,
) -> CmdResult<ChangesView> {
    let other = match other.as_deref() {
        None | Some("") => None,
        Some(o) if o == thread_id => {
            return Err(CommandError::new(
                ErrorCode::InvalidInput,
                "compare a thread with another thread, not itself",
            ))
        }
        Some(o) => Some(o.to_owned()),
    };
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        let changes = crate::remote::thread::changes(&state, host, thread, other.as_deref());
        return Ok(changes.await?);
    }
    if other
        .as_deref()
        .and_then(crate::remote::thread::remote)
        .is_some()
    {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "Compare takes two threads of one machine",
        ));
    }
    Ok(state.host.changes(&thread_id, other.as_deref()).await?)
}

/// Applies the fork's changes since its fork point to the target's folder (uncommitted);
/// `conflict` in words when the target moved on in a file the fork touched.
#[tauri::command(rename_all = "snake_case")]
pub async fn bring_back(
    state: State<'_, AppState>,
    fork_id: String,
    target_id: String,
) -> CmdResult<ChangesView> {
    if fork_id == target_id {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "a fork's changes are brought back to another thread",
        ));
    }
    if let Some((host, fork)) = crate::remote::thread::remote(&fork_id) {
        let brought = crate::remote::files::bring_back(&state, host, fork, &target_id);
        return Ok(brought.await?);
    }
    if crate::remote::thread::remote(&target_id).is_some() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "Bring back takes a fork and a thread of one machine",
        ));
    }
    Ok(state.host.bring_back(&fork_id, &target_id).await?)
}

/// What removing the thread's worktree would lose now.
#[tauri::command(rename_all = "snake_case")]
pub async fn worktree_loss(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<WorktreeLoss> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::files::worktree_loss(&state, host, thread).await?);
    }
    Ok(state.host.worktree_loss(&thread_id).await?)
}

/// Removes the thread's worktree: refused (`conflict`) with something to lose unless
/// `accepted` is exactly what [`worktree_loss`] reported.
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_worktree(
    state: State<'_, AppState>,
    thread_id: String,
    accepted: Option<WorktreeLoss>,
) -> CmdResult<()> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        let removed = crate::remote::files::remove_worktree(&state, host, thread, accepted);
        return Ok(removed.await?);
    }
    Ok(state.host.remove_worktree(&thread_id, accepted).await?)
}

/// A folder's trust: its root, the project agent config there, the user's decision. `host`:
/// a folder of that remote host, judged there.
#[tauri::command(rename_all = "snake_case")]
pub async fn folder_trust(
    state: State<'_, AppState>,
    folder: String,
    host: Option<String>,
) -> CmdResult<TrustView> {
    if let Some(host) = host.as_deref().filter(|h| !h.is_empty()) {
        return Ok(crate::remote::files::folder_trust(&state, host, &folder).await?);
    }
    let path = self::folder(&folder)?;
    Ok(state.host.folder_trust(&path).await?)
}

/// Records the user's trust decision for the folder's repository root, for the config the
/// dialog showed (`shown`: its view's `digest`; config changed since is `conflict`, review
/// L-4); `host`: a folder of that remote host, recorded there.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_folder_trust(
    state: State<'_, AppState>,
    folder: String,
    trusted: bool,
    shown: Option<String>,
    host: Option<String>,
) -> CmdResult<TrustView> {
    if let Some(host) = host.as_deref().filter(|h| !h.is_empty()) {
        let set = crate::remote::files::set_folder_trust(&state, host, &folder, trusted, shown);
        return Ok(set.await?);
    }
    let path = self::folder(&folder)?;
    Ok(match shown {
        Some(shown) => {
            state
                .host
                .set_folder_trust_shown(&path, trusted, &shown)
                .await?
        }
        None => state.host.set_folder_trust(&path, trusted).await?,
    })
}

/// Prunes the checkpoints of threads archived more than `days` days ago, once, in the
/// background (at start); 0 days: never.
pub fn prune_in_background(host: forkhost_core::Host, days: u32) {
    if days == 0 {
        return;
    }
    tauri::async_runtime::spawn(async move {
        match host.prune_checkpoints(days).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(threads = n, days, "pruned checkpoints of archived threads"),
            Err(err) => {
                tracing::warn!(code = err.code(), error = %err, "could not prune checkpoints")
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_checked() {
        assert_eq!(folder("").unwrap_err().code.as_str(), "invalid_input");
        assert_eq!(
            folder("relative/dir").unwrap_err().code.as_str(),
            "invalid_input"
        );
        assert!(folder("/tmp").unwrap().is_absolute());
        assert!(folder("~/x").unwrap().is_absolute());
    }
}

/// The command new worktrees of the repository holding `folder` run once (null: none).
#[tauri::command(rename_all = "snake_case")]
pub async fn setup_command(
    state: State<'_, AppState>,
    folder: String,
) -> CmdResult<Option<String>> {
    let folder = self::folder(&folder)?;
    Ok(state.host.setup_command(&folder).await?)
}

/// Sets the repository's setup command (null or blank: none); returns what is set now.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_setup_command(
    state: State<'_, AppState>,
    folder: String,
    command: Option<String>,
) -> CmdResult<Option<String>> {
    let folder = self::folder(&folder)?;
    let command = command.as_deref().map(str::trim).filter(|c| !c.is_empty());
    Ok(state.host.set_setup_command(&folder, command).await?)
}
