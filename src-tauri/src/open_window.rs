//! Opening a window with tabs: the spare when there is one (it shows at once), else a new one
//! cascaded from the window it came from.

use std::time::Duration;

use tauri::{AppHandle, Manager, WebviewWindow};

use crate::error::CommandError;
use crate::event_list::{channel, emit_to};
use crate::layout::{self, NewTab, Prefill, Seed};
use crate::spare_window::schedule_spare;
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
