//! Folder trust as Settings lists it (docs/architecture.md "Folder trust"): the recorded
//! decisions, and forgetting one (the next thread there asks again). Asking and deciding for
//! one folder are `files::folder_trust` and `files::set_folder_trust`.

use forkhost_core::TrustDecision;
use tauri::State;

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::state::AppState;

/// Every folder-trust decision, by folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn trusted_folders(state: State<'_, AppState>) -> CmdResult<Vec<TrustDecision>> {
    Ok(state.host.trusted_folders().await?)
}

/// Forgets the decision kept for `folder` (a trust root as listed).
#[tauri::command(rename_all = "snake_case")]
pub async fn revoke_folder_trust(state: State<'_, AppState>, folder: String) -> CmdResult<()> {
    let folder = folder.trim();
    if folder.is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "a folder is needed",
        ));
    }
    Ok(state.host.revoke_folder_trust(folder).await?)
}
