//! A fork window's history before the fork exists: while the harness forks, the spare window
//! shown beside it ([`crate::spare_window::show_spare`]) gets the source's turns up to the cut
//! ([`forkhost_core::Host::fork_preview`], read from the store and the text cache), shown
//! read-only until the fork's own detail (`window-assign`) replaces it. A window asks for it
//! with [`fork_preview`] when told by the `fork-preview` event: a command reply carries the
//! detail as a raw body, far faster than an event's payload.

use forkhost_core::{ForkAt, HarnessKind};
use serde::Serialize;
use tauri::async_runtime::JoinHandle;
use tauri::{AppHandle, Manager, State, WebviewWindow};

use crate::error::CmdResult;
use crate::event_list::{channel, emit_to};
use crate::layout::Seed;
use crate::state::AppState;

/// The `fork_preview` reply: the inherited history, or null (none yet, or no longer: the fork
/// failed and the window is hidden again).
#[derive(Debug, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkPreview {
    /// The source's detail cut at the fork point (its thread is the source's).
    #[ts(type = "import(\"./ThreadDetail\").ThreadDetail | null")]
    pub detail: Option<Seed>,
}

/// Takes the spare window and shows it near `near` (as [`crate::spare_window::show_spare`]);
/// beside that, reads the history a fork of `thread_id` at `at` (into `into`'s harness)
/// inherits and hands it to that window. Resolves to the window's label once it is shown; the preview may
/// come later (it never delays the fork).
pub fn show_with_preview(
    app: &AppHandle,
    near: &WebviewWindow,
    thread_id: &str,
    at: &ForkAt,
    into: Option<HarnessKind>,
) -> JoinHandle<Option<String>> {
    let (label_tx, label_rx) = tokio::sync::oneshot::channel::<Option<String>>();
    let (preview_app, thread_id, at) = (app.clone(), thread_id.to_owned(), at.clone());
    tauri::async_runtime::spawn(async move {
        let state = preview_app.state::<AppState>();
        let detail = state.host.fork_preview(&thread_id, &at, into).await;
        let Ok(Some(label)) = label_rx.await else {
            return;
        };
        let seed = match detail.map(|d| d.map(|d| serde_json::value::to_raw_value(&d))) {
            Ok(Some(Ok(seed))) => seed,
            // The fork answers at once: its own detail shows.
            Ok(None) => return,
            Ok(Some(Err(err))) => {
                return tracing::debug!(error = %err, "fork preview not serialized")
            }
            // The fork itself will say what is wrong.
            Err(err) => return tracing::debug!(error = %err, "no fork preview"),
        };
        // A window is waiting only between being shown and the fork's end: a preview that is
        // late (the fork already answered) finds none and is dropped.
        let offered = match state.fork_previews().get_mut(&label) {
            Some(slot) => {
                *slot = Some(seed);
                true
            }
            None => false,
        };
        if offered {
            emit_to::<channel::ForkPreview>(&preview_app, &label, &());
        }
    });
    // The spare is taken here (no round trip), so that the preview can go to it while it is
    // being shown.
    let state = app.state::<AppState>();
    let taken = state.windows().take_spare();
    if let Some(label) = &taken {
        state.fork_previews().insert(label.clone(), None);
    }
    let _ = label_tx.send(taken.clone());
    let (app, near) = (app.clone(), near.clone());
    tauri::async_runtime::spawn_blocking(move || {
        let label = taken?;
        let shown = crate::spare_window::show_taken(&app, label.clone(), &near);
        if shown.is_none() {
            app.state::<AppState>().fork_previews().remove(&label);
        }
        shown
    })
}

/// The fork shown in `label` answered: no preview goes there any more. A `failed` fork's
/// window is told too (it drops the preview it shows, and is hidden again).
pub fn fork_answered(app: &AppHandle, state: &AppState, label: &str, failed: bool) {
    state.fork_previews().remove(label);
    if failed {
        emit_to::<channel::ForkPreview>(app, label, &());
    }
}

/// The calling window's preview of the fork it is about to show (taken: asked once).
#[tauri::command(rename_all = "snake_case")]
pub async fn fork_preview(
    window: WebviewWindow,
    state: State<'_, AppState>,
) -> CmdResult<ForkPreview> {
    let detail = state
        .fork_previews()
        .get_mut(window.label())
        .and_then(Option::take);
    Ok(ForkPreview { detail })
}
