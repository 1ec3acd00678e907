//! The app's windows: building the main one and the others, closing one, quitting. Every new or
//! moved window cascades from the window it came from the same way ([`cascade_from`]).

use tauri::{AppHandle, LogicalPosition, Manager, WebviewUrl, WebviewWindow};

use crate::layout::MAIN_WINDOW;
use crate::origin::stay_on_app_origin;
use crate::state::AppState;

/// How far a new window sits from the one it came from, right and down (logical pixels).
const CASCADE: f64 = 36.0;

/// Where a window being built appears.
#[derive(Clone, Copy)]
pub enum Placement<'a> {
    /// Hidden: a spare.
    Hidden,
    /// Shown where the window-state plugin remembers it (a window of the saved layout).
    Remembered,
    /// Shown and focused, cascaded from this window.
    Near(&'a WebviewWindow),
}

/// Builds the main window from its config (here rather than from the config at start, so that
/// its UI never calls a command before the app's state exists).
pub fn build_main_window(app: &AppHandle) -> anyhow::Result<()> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN_WINDOW)
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("tauri.conf.json has no main window"))?;
    stay_on_app_origin(tauri::WebviewWindowBuilder::from_config(app, &config)?, app).build()?;
    Ok(())
}

/// Where a window cascaded from `near` goes: a little right of and below it.
fn cascade_from(near: &WebviewWindow) -> Option<LogicalPosition<f64>> {
    let (pos, scale) = (near.outer_position().ok()?, near.scale_factor().ok()?);
    let pos = pos.to_logical::<f64>(scale);
    Some(LogicalPosition::new(pos.x + CASCADE, pos.y + CASCADE))
}

/// Moves an existing window (a spare) to cascade from `near`.
pub fn place_near(window: &WebviewWindow, near: &WebviewWindow) {
    if let Some(pos) = cascade_from(near) {
        let _ = window.set_position(pos);
    }
}

/// Builds a secondary window, placed as `placement` says. On Linux it shares the web process
/// of a window that exists already ([`build_sharing_process`]).
pub fn build_window(
    app: &AppHandle,
    label: &str,
    placement: Placement<'_>,
) -> tauri::Result<WebviewWindow> {
    let visible = !matches!(placement, Placement::Hidden);
    let position = match placement {
        Placement::Near(near) => cascade_from(near),
        _ => None,
    };
    let (app_handle, label) = (app.clone(), label.to_owned());
    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    let build = move |related: Related| {
        let mut builder = tauri::WebviewWindowBuilder::new(
            &app_handle,
            &label,
            WebviewUrl::App("index.html".into()),
        )
        .title("Forkhost")
        .inner_size(1100.0, 760.0)
        .min_inner_size(720.0, 480.0)
        .visible(visible)
        .disable_drag_drop_handler();
        builder = stay_on_app_origin(builder, &app_handle);
        if let Some(pos) = position {
            builder = builder.position(pos.x, pos.y);
        }
        #[cfg(target_os = "linux")]
        if let Some(view) = related {
            builder = builder.with_related_view(view);
        }
        builder.build()
    };
    #[cfg(target_os = "linux")]
    let window = build_sharing_process(app, build)?;
    #[cfg(not(target_os = "linux"))]
    let window = build(())?;
    if visible {
        let _ = window.set_focus();
    }
    Ok(window)
}

/// The web view whose web process a new window shares (Linux), if any.
#[cfg(target_os = "linux")]
type Related = Option<webkit2gtk::WebView>;
#[cfg(not(target_os = "linux"))]
type Related = ();

/// WebKitGTK starts a web process per web view unless a view is built "related" to another:
/// each window then cost a process of its own (about 90 MB PSS idle, the spare window's
/// included) and its own cold JavaScript engine. Built related to an open window, the new one
/// shares that window's process. The other window's web view is reachable only on the main
/// thread, so the build runs there; without another window it is built on its own.
#[cfg(target_os = "linux")]
fn build_sharing_process(
    app: &AppHandle,
    build: impl FnOnce(Related) -> tauri::Result<WebviewWindow> + Send + 'static,
) -> tauri::Result<WebviewWindow> {
    let other = {
        let windows = app.webview_windows();
        windows
            .get(MAIN_WINDOW)
            .or_else(|| windows.values().next())
            .cloned()
    };
    let Some(other) = other else {
        return build(None);
    };
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    other.with_webview(move |view| {
        let _ = tx.send(build(Some(view.inner())));
    })?;
    match rx.recv() {
        Ok(built) => built,
        // The other window went away before its turn on the main thread came.
        Err(_) => Err(tauri::Error::WindowNotFound),
    }
}

/// A window closed. While other windows remain it leaves the layout (and its threads are
/// closed); the last window, or any window while quitting, stays in it for the next start.
/// Spare windows are not part of the layout, and don't keep the app running.
pub fn window_closed(app: &AppHandle, label: &str) {
    let Some(state) = app.try_state::<AppState>() else {
        return;
    };
    if state.windows().is_spare(label) {
        state.windows().remove_window(label);
        return;
    }
    if state.is_exiting() {
        return;
    }
    let others = {
        let windows = state.windows();
        app.webview_windows()
            .keys()
            .filter(|l| l.as_str() != label && !windows.is_spare(l))
            .count()
    };
    if others == 0 {
        // The last window: it stays for the next start, and the app quits (a spare window
        // would keep the process alive otherwise).
        quit(app);
        return;
    }
    tracing::info!(window = %label, "window closed");
    state.update_layout(|w| w.remove_window(label));
}

/// The app is quitting (a quit asked for, or the event loop exiting): from now on windows that
/// close stay in the layout.
pub fn mark_exiting(app: &AppHandle) {
    if let Some(state) = app.try_state::<AppState>() {
        state.mark_exiting();
    }
}

/// Quits: every window stays in the layout.
pub fn quit(app: &AppHandle) {
    mark_exiting(app);
    app.exit(0);
}

/// Brings the main window (else any window) to the front: a second launch of the app.
pub fn focus_main_window(app: &AppHandle) {
    let windows = app.webview_windows();
    let window = windows.get(MAIN_WINDOW).or_else(|| windows.values().next());
    if let Some(window) = window {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}
