//! Opening a window with tabs: the spare when there is one (it shows at once), else a new one
//! cascaded from the window it came from.

use std::time::Duration;

use forkhost_core::{ForkResult, HostResult, TabKind};
use tauri::async_runtime::JoinHandle;
use tauri::{AppHandle, Manager, WebviewWindow};

use crate::error::CommandError;
use crate::event_list::{channel, emit_to};
use crate::layout::{self, NewTab, Prefill, Seed};
use crate::spare_window::{return_spare, schedule_spare};
use crate::state::AppState;
use crate::windows::{build_window, place_near, Placement};

/// What a window being opened holds when its UI first loads.
#[derive(Debug, Default)]
pub struct WindowContents {
    pub tabs: Vec<NewTab>,
    /// Text for a thread's composer (a fork `before` a turn).
    pub prefill: Option<Prefill>,
    /// Put the keyboard in the active tab's composer at once (a fork window).
    pub focus_composer: bool,
    /// The detail of a thread it shows (a fork's), serialized.
    pub seed: Option<Seed>,
}

/// Opens a window holding `contents` near `near`: `shown` (a spare
/// [`crate::spare_window::show_spare`] showed), else the ready spare window when there is one
/// (it shows at once), else a new one. Returns its label.
pub fn open_window(
    app: &AppHandle,
    state: &AppState,
    near: &WebviewWindow,
    contents: WindowContents,
    shown: Option<String>,
) -> Result<String, CommandError> {
    let (spare, was_shown) = match shown.and_then(|label| app.get_webview_window(&label)) {
        Some(window) => (Some(window), true),
        None => (
            state
                .windows()
                .take_spare()
                .and_then(|label| app.get_webview_window(&label)),
            false,
        ),
    };
    let label = spare
        .as_ref()
        .map_or_else(layout::new_window_label, |w| w.label().to_owned());
    let WindowContents {
        tabs,
        prefill,
        focus_composer,
        seed,
    } = contents;
    state.update_layout(|w| {
        w.add_window(&label, tabs, prefill, focus_composer, seed);
    });
    let result = match spare {
        Some(window) => {
            if !was_shown {
                place_near(&window, near);
            }
            // The event only wakes the window: it asks `window_init` for its state, whose reply
            // (a command reply, a raw body) carries the seed far faster than an event, which
            // is delivered by evaluating a script holding the whole payload.
            emit_to::<channel::WindowAssign>(app, &label, &());
            if !was_shown {
                let _ = window.show();
                let _ = window.set_focus();
            }
            tracing::info!(window = %label, "spare window assigned");
            Ok(label)
        }
        None => match build_window(app, &label, Placement::Near(near)) {
            Ok(_) => Ok(label),
            Err(err) => {
                state.update_layout(|w| w.remove_window(&label));
                Err(err.into())
            }
        },
    };
    schedule_spare(app, Duration::from_millis(1500));
    result
}

/// Puts a fork asked `for_window` in its window. `showing` is the spare
/// [`crate::fork_preview::show_with_preview`] began to show beside the fork; `forked` is the
/// Host's answer. A failed fork hides that spare again and is returned as it is. The fork's
/// detail goes to its window serialized once (in the window's `window_init` reply), so the
/// fork comes back without turns then. Returns the fork and the label of its window (`None`:
/// no window could be opened; the turns are there then, and the UI may open one).
pub async fn open_fork_window(
    app: &AppHandle,
    state: &AppState,
    near: &WebviewWindow,
    showing: JoinHandle<Option<String>>,
    forked: HostResult<ForkResult>,
) -> HostResult<(ForkResult, Option<String>)> {
    let shown = showing.await.ok().flatten();
    if let Some(label) = &shown {
        crate::fork_preview::fork_answered(app, state, label, forked.is_err());
    }
    let mut result = match forked {
        Ok(result) => result,
        Err(err) => {
            if let Some(label) = shown {
                return_spare(app, state, &label);
            }
            return Err(err);
        }
    };
    let fork_id = result.thread.thread.id.clone();
    let seed = match serde_json::value::to_raw_value(&result.thread) {
        Ok(seed) => Some(seed),
        Err(err) => {
            // The window reads the thread itself.
            tracing::warn!(error = %err, "could not serialize a fork's detail");
            None
        }
    };
    let seeded = seed.is_some();
    let contents = WindowContents {
        tabs: vec![NewTab {
            thread_id: fork_id.clone(),
            kind: TabKind::Conversation,
        }],
        prefill: result.prefill.clone().map(|text| Prefill {
            thread_id: fork_id,
            text,
        }),
        focus_composer: true,
        seed,
    };
    match open_window(app, state, near, contents, shown) {
        Ok(label) => {
            if seeded {
                result.thread.turns = Vec::new();
            }
            Ok((result, Some(label)))
        }
        Err(err) => {
            tracing::warn!(error = ?err, "could not open a fork's window");
            Ok((result, None))
        }
    }
}
