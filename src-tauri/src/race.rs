//! The race commands (docs/architecture.md "Race"): the models a lane may choose from, the
//! repository's check command and its approval, starting a race (it runs in the background;
//! its lanes come as `race-lane` events, its end as `race-ended`), and keeping one lane after
//! its loss was shown. Each checks its input and calls the Host.

use std::sync::Arc;

use forkhost_core::{
    CheckCommandView, ForkAt, HarnessKind, HostError, KeepPlan, KeptView, LaneSpec, RaceLane,
    RaceSpec,
};
use serde::Deserialize;
use tauri::{AppHandle, State};

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::event_list::{channel, emit_all};
use crate::event_payloads::{RaceEnded, RaceLaneEvent};
use crate::state::AppState;

/// One lane as the race dialog asks for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct LaneArgs {
    /// null: the source's harness.
    pub harness: Option<HarnessKind>,
    /// null or blank: the harness's own model.
    pub model: Option<String>,
}

fn invalid(message: impl Into<String>) -> CommandError {
    CommandError::new(ErrorCode::InvalidInput, message)
}

/// The source thread's folder (the check command is its repository's).
async fn folder_of(state: &AppState, thread_id: &str) -> CmdResult<std::path::PathBuf> {
    Ok(state.host.show(thread_id).await?.thread.cwd.into())
}

/// The models the thread's harness offers (empty: it names none; any name is tried).
#[tauri::command(rename_all = "snake_case")]
pub async fn race_models(state: State<'_, AppState>, thread_id: String) -> CmdResult<Vec<String>> {
    crate::remote::thread::here(&thread_id, "A race")?;
    Ok(state.host.models(&thread_id).await?)
}

/// The check command of the thread's repository and whether exactly it was approved.
#[tauri::command(rename_all = "snake_case")]
pub async fn race_check(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<CheckCommandView> {
    crate::remote::thread::here(&thread_id, "A race")?;
    let folder = folder_of(&state, &thread_id).await?;
    Ok(state.host.check_command(&folder).await?)
}

/// Saves the repository's check command (it is shown before it first runs).
#[tauri::command(rename_all = "snake_case")]
pub async fn set_race_check(
    state: State<'_, AppState>,
    thread_id: String,
    command: Option<String>,
) -> CmdResult<CheckCommandView> {
    crate::remote::thread::here(&thread_id, "A race")?;
    let folder = folder_of(&state, &thread_id).await?;
    Ok(state
        .host
        .set_check_command(&folder, command.as_deref())
        .await?)
}

/// Starts a race from the thread at `at` and returns its run id at once. `check`: the command
/// text the dialog showed and the user ticked, approved here exactly so. `shared_folder`: the
/// user confirmed that lanes share a folder outside git.
#[allow(clippy::too_many_arguments)]
#[tauri::command(rename_all = "snake_case")]
pub async fn race_start(
    app: AppHandle,
    state: State<'_, AppState>,
    thread_id: String,
    at: ForkAt,
    lanes: Vec<LaneArgs>,
    prompt: String,
    shared_folder: bool,
    check: Option<String>,
    max_parallel: Option<usize>,
    budget_usd: Option<f64>,
) -> CmdResult<String> {
    crate::remote::thread::here(&thread_id, "A race")?;
    // Unless the call says otherwise, Settings' "at most K agents at once".
    let max_parallel = max_parallel.or_else(|| {
        let settings = state.settings.lock().unwrap_or_else(|e| e.into_inner());
        settings.agents_at_once()
    });
    let lanes = lanes
        .into_iter()
        .map(|l| LaneSpec {
            harness: l.harness,
            model: l
                .model
                .map(|m| m.trim().to_owned())
                .filter(|m| !m.is_empty()),
        })
        .collect();
    let spec = RaceSpec {
        source: thread_id.clone(),
        at,
        lanes,
        prompt,
        shared_folder,
        max_parallel,
        approve: None,
        check: check.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
        check_timeout: None,
        budget_usd,
    };
    // The race runs in the background: what it would refuse at once is this call's answer, in
    // the dialog's words (the bare sentence, without the Host error's "invalid input: ").
    if let Err(err) = state.host.check_race(&spec) {
        return Err(match err {
            HostError::InvalidInput(words) => invalid(words),
            other => other.into(),
        });
    }
    if let Some(command) = &spec.check {
        let folder = folder_of(&state, &thread_id).await?;
        state.host.approve_check(&folder, command).await?;
    }
    let run = format!("race-{}", state.next_race_run());
    let (host, told, run_id, source) = (state.host.clone(), app.clone(), run.clone(), thread_id);
    let on_lane = Arc::new(move |lane: &RaceLane| {
        emit_all::<channel::RaceLane>(
            &told,
            &RaceLaneEvent {
                run: run_id.clone(),
                source: source.clone(),
                lane: lane.clone(),
            },
        )
    });
    let (ended_run, ended_source) = (run.clone(), spec.source.clone());
    tauri::async_runtime::spawn(async move {
        let ended = host.race(spec, on_lane).await;
        let (race, error) = match ended {
            Ok(race) => (Some(race), None),
            Err(err) => (None, Some(err.to_string())),
        };
        emit_all::<channel::RaceEnded>(
            &app,
            &RaceEnded {
                run: ended_run,
                source: ended_source,
                race,
                error,
            },
        );
    });
    Ok(run)
}

/// What keeping `lane` would bring back and discard, to be shown first.
#[tauri::command(rename_all = "snake_case")]
pub async fn keep_plan(state: State<'_, AppState>, lane: String) -> CmdResult<KeepPlan> {
    Ok(state.host.keep_plan(&lane).await?)
}

/// Keeps `lane` with the loss the user was shown (`accepted`); a loss that changed since is
/// refused (`conflict`), as is a conflict in the source's folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn keep(
    state: State<'_, AppState>,
    lane: String,
    accepted: KeepPlan,
) -> CmdResult<KeptView> {
    if accepted.kept != lane {
        return Err(invalid("the plan shown is for another lane"));
    }
    Ok(state.host.keep(&lane, Some(&accepted)).await?)
}
