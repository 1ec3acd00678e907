//! The commands of the message menu's Rewind to here… (docs/architecture.md "Rewind"): the
//! plan shown before anything is written, the rewind with the loss the user saw, its undo, and a thread's
//! rewinds. Each checks its input and calls one Host method.

use forkhost_core::{RewindKind, RewindPlan, RewindView, RewoundView, TurnRef};
use tauri::State;

use crate::error::CmdResult;
use crate::state::AppState;

/// What rewinding `thread_id` to turn `to` would write back, delete and lose.
#[tauri::command(rename_all = "snake_case")]
pub async fn rewind_plan(
    state: State<'_, AppState>,
    thread_id: String,
    to: TurnRef,
    kind: RewindKind,
) -> CmdResult<RewindPlan> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::thread::rewind_plan(&state, host, thread, to, kind).await?);
    }
    Ok(state.host.rewind_plan(&thread_id, &to, kind).await?)
}

/// Rewinds `thread_id` to turn `to`. `accepted_loss`: the loss the dialog showed and the user
/// accepted (refused as `conflict` when the loss is not exactly that any more).
#[tauri::command(rename_all = "snake_case")]
pub async fn rewind(
    state: State<'_, AppState>,
    thread_id: String,
    to: TurnRef,
    kind: RewindKind,
    accepted_loss: Option<Vec<String>>,
) -> CmdResult<RewoundView> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        let done = crate::remote::thread::rewind(&state, host, thread, to, kind, accepted_loss);
        return Ok(done.await?);
    }
    Ok(state
        .host
        .rewind(&thread_id, &to, kind, accepted_loss.as_deref())
        .await?)
}

/// Undoes the thread's latest rewind: its old line back, and its files as before.
#[tauri::command(rename_all = "snake_case")]
pub async fn undo_rewind(state: State<'_, AppState>, thread_id: String) -> CmdResult<RewoundView> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::thread::undo_rewind(&state, host, thread).await?);
    }
    Ok(state.host.undo_rewind(&thread_id).await?)
}

/// The thread's rewinds and those whose branch it is, newest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn rewinds(state: State<'_, AppState>, thread_id: String) -> CmdResult<Vec<RewindView>> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::thread::rewinds(&state, host, thread).await?);
    }
    Ok(state.host.rewinds(&thread_id).await?)
}

/// Every thread a rewind (or its undo) set aside as a branch (the sidebar's "rewound" mark).
#[tauri::command(rename_all = "snake_case")]
pub async fn rewound_branches(state: State<'_, AppState>) -> CmdResult<Vec<String>> {
    Ok(state.host.rewound_branches().await?)
}
