//! The first-run view's commands: look for the harnesses again (one installed or signed in
//! since), and use a binary the user chose (Choose its file…) at once, saved like the path in
//! Settings, without a restart.

use tauri::{AppHandle, State};

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::event_list::{channel, emit_all};
use crate::state::AppState;
use forkhost_core::{HarnessKind, HarnessReport};

/// Every harness's report after forgetting what was found (Check again).
#[tauri::command(rename_all = "snake_case")]
pub async fn doctor_again(state: State<'_, AppState>) -> CmdResult<Vec<HarnessReport>> {
    Ok(state.host.doctor_again().await)
}

/// Checks the binary at `path` like Settings does, then uses it for `harness` from now on and
/// saves it as that harness's path; answers its report. Nothing is saved when the check fails.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_harness_path(
    app: AppHandle,
    state: State<'_, AppState>,
    harness: String,
    path: String,
) -> CmdResult<HarnessReport> {
    let kind: HarnessKind = harness
        .parse()
        .map_err(|e| CommandError::new(ErrorCode::InvalidInput, format!("{e}")))?;
    let report = state.host.choose_harness_path(kind, &path).await?;
    let settings = {
        let mut settings = state.settings.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match kind {
            HarnessKind::Claude => &mut settings.harness_paths.claude,
            HarnessKind::Codex => &mut settings.harness_paths.codex,
            HarnessKind::Pi => &mut settings.harness_paths.pi,
            HarnessKind::Opencode => &mut settings.harness_paths.opencode,
        };
        *slot = Some(path.trim().to_owned());
        settings.clone()
    };
    crate::settings::save(&state.data_dir, &settings)?;
    tracing::info!(harness = %kind, "harness path chosen in the first-run view");
    emit_all::<channel::SettingsChanged>(&app, &settings);
    Ok(report)
}
