//! The spare window: one hidden window, loaded ahead, that the next fork or new window takes so
//! it shows at once instead of loading from scratch.

use std::time::Duration;

use tauri::{AppHandle, Manager, WebviewWindow};

use crate::layout;
use crate::state::AppState;
use crate::windows::{build_window, place_near, Placement};

/// Whether forks may use a hidden, preloaded window (`FORKHOST_SPARE_WINDOW=0` turns it off:
/// every fork window then loads from scratch, and the app holds one web view less).
fn spares_enabled() -> bool {
    std::env::var("FORKHOST_SPARE_WINDOW").map_or(true, |v| v != "0")
}

/// Takes the ready spare window and shows it near `near` at once, before it holds anything:
/// a fork that opens in a window shows it while the harness forks, so that the window's first
/// frame (costly for a window never shown) is drawn meanwhile. Its UI, still a spare, says a
/// fork is on its way. Then [`crate::open_window::open_window`] (`shown`) gives it its tabs, or
/// [`return_spare`] hides it again.
pub fn show_spare(app: &AppHandle, state: &AppState, near: &WebviewWindow) -> Option<String> {
    let label = state.windows().take_spare()?;
    show_taken(app, label, near)
}

/// [`show_spare`] of a spare already taken (its label known before the round trips of showing
/// it: a fork's preview goes there meanwhile, `crate::fork_preview`).
pub fn show_taken(app: &AppHandle, label: String, near: &WebviewWindow) -> Option<String> {
    let window = app.get_webview_window(&label)?;
    place_near(&window, near);
    let _ = window.show();
    let _ = window.set_focus();
    Some(label)
}

/// A spare shown by [`show_spare`] is not needed after all (the fork failed): hidden, it is the
/// spare again.
pub fn return_spare(app: &AppHandle, state: &AppState, label: &str) {
    if let Some(window) = app.get_webview_window(label) {
        let _ = window.hide();
        state.windows().put_back_spare(label);
    }
}

/// Builds a hidden spare window after `delay`, unless one exists.
pub fn schedule_spare(app: &AppHandle, delay: Duration) {
    if !spares_enabled() {
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(delay).await;
        let Some(state) = app.try_state::<AppState>() else {
            return;
        };
        if state.is_exiting() {
            return;
        }
        let label = {
            let mut windows = state.windows();
            if windows.has_spare() {
                return;
            }
            let label = layout::new_window_label();
            windows.add_spare(&label);
            label
        };
        state.building_spare.set(&label);
        if let Err(err) = build_window(&app, &label, Placement::Hidden) {
            tracing::warn!(error = %err, "could not build a spare window");
            state.windows().remove_window(&label);
        }
    });
}
