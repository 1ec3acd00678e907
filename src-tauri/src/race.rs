//! The race commands (docs/architecture.md "Race"): the models a lane may choose from, the
//! repository's check command and its approval, starting a race (it runs in the background;
//! its lanes come as `race-lane` events, its end as `race-ended`), and keeping one lane after
//! its loss was shown. Each checks its input and calls the Host.

use std::sync::Arc;

use forkhost_core::{
    Call, CheckCommandView, ForkAt, HarnessKind, HostError, KeepPlan, KeptView, LaneSpec, RaceCall,
    RaceLane, RaceSpec, Returned,
};
use serde::Deserialize;
use tauri::{AppHandle, State};

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::event_list::{channel, emit_all};
use crate::event_payloads::{RaceEnded, RaceLaneEvent};
use crate::remote::thread::{out_of_turn, remote};
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
    if let Some((host, id)) = remote(&thread_id) {
        let call = Call::Models { thread: id.into() };
        return match state.remote.call(host, call).await? {
            Returned::Models { models } => Ok(models),
            other => Err(out_of_turn(&other).into()),
        };
    }
    Ok(state.host.models(&thread_id).await?)
}

/// A remote host's answer about a check command.
fn remote_check(answer: Returned) -> CmdResult<CheckCommandView> {
    match answer {
        Returned::CheckCommand { check } => Ok(*check),
        other => Err(out_of_turn(&other).into()),
    }
}

/// The check command of the thread's repository and whether exactly it was approved.
#[tauri::command(rename_all = "snake_case")]
pub async fn race_check(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<CheckCommandView> {
    if let Some((host, id)) = remote(&thread_id) {
        let call = Call::CheckCommand { thread: id.into() };
        return remote_check(state.remote.call(host, call).await?);
    }
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
    if let Some((host, id)) = remote(&thread_id) {
        let call = Call::SetCheckCommand {
            thread: id.into(),
            command,
        };
        return remote_check(state.remote.call(host, call).await?);
    }
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
    if let Some((host, id)) = remote(&thread_id) {
        return start_there(&state, host, id, spec).await;
    }
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

/// A race from a remote thread runs on its host: its lanes and end come over the host's link
/// as that machine journals them (`remote::link`), named as the windows name that host's
/// threads, under the run this returns. The host's link follows the source thread, so they
/// arrive (and come again after a dropped connection) as its turns' events do.
async fn start_there(
    state: &AppState,
    host: &str,
    source: &str,
    spec: RaceSpec,
) -> CmdResult<String> {
    // Named apart from any other client's race on that host (another laptop's on the same
    // source thread comes through the same journal).
    let unique = uuid::Uuid::new_v4().simple().to_string();
    let run = format!("race-{}-{}", state.next_race_run(), &unique[..8]);
    state.remote.follow(host, source).await?;
    let race = RaceCall {
        source: source.to_owned(),
        ..RaceCall::from(spec)
    };
    let call = Call::StartRace {
        run: run.clone(),
        race: Box::new(race),
    };
    match state.remote.call(host, call).await {
        Ok(_) => Ok(run),
        // In the dialog's words, as a local race's refusal.
        Err(err) if err.error_code() == forkhost_core::ErrorCode::InvalidInput => Err(invalid(
            err.to_string().trim_start_matches("invalid input: "),
        )),
        Err(err) => Err(err.into()),
    }
}

/// What keeping `lane` would bring back and discard, to be shown first.
#[tauri::command(rename_all = "snake_case")]
pub async fn keep_plan(state: State<'_, AppState>, lane: String) -> CmdResult<KeepPlan> {
    if let Some((host, id)) = remote(&lane) {
        let call = Call::KeepPlan { lane: id.into() };
        return match state.remote.call(host, call).await? {
            Returned::KeepPlan { plan } => Ok(plan.on_host(host)),
            other => Err(out_of_turn(&other).into()),
        };
    }
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
    if let Some((host, id)) = remote(&lane) {
        let accepted = accepted
            .off_host(host)
            .ok_or_else(|| invalid(format!("the plan shown is not of {host}'s threads")))?;
        let call = Call::Keep {
            lane: id.into(),
            accepted: Box::new(accepted),
        };
        return match state.remote.call(host, call).await? {
            Returned::Kept { kept } => Ok(kept.on_host(host)),
            other => Err(out_of_turn(&other).into()),
        };
    }
    Ok(state.host.keep(&lane, Some(&accepted)).await?)
}
