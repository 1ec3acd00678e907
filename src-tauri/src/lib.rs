//! The Forkhost desktop app: a thin Tauri 2 shell over the Forkhost Host (`forkhost-core`).
//!
//! Commands ([`commands`]) parse input, call the Host, and turn results or typed errors into
//! JSON for the UI (`ui/src/ipc.ts` is the UI's only door to them). Host events reach every
//! window as one `host-event` Tauri event. The shell itself only manages windows, tabs
//! ([`layout`]), menus ([`menu`]), terminals ([`terminal`]) and its own settings
//! ([`settings`]); no decisions about threads are made here.

pub mod cli_tool;
pub mod commands;
pub mod error;
pub mod layout;
pub mod menu;
pub mod settings;
pub mod terminal;
pub mod update;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use forkhost_core::{Host, HostEvent, HostOptions};
use tauri::{AppHandle, Emitter, Manager, RunEvent, WebviewUrl, WebviewWindow, WindowEvent};
use tokio::sync::{broadcast, mpsc};

use crate::layout::{Layout, Windows};
use crate::settings::Settings;
use crate::terminal::Terminals;

/// Keeps the log writer alive; dropping it flushes buffered lines. (The core's `WorkerGuard`,
/// held opaquely so this crate needs no logging crates of its own.)
type LogGuard = Box<dyn std::any::Any + Send>;

/// Label of the main window (tauri.conf.json `app.windows[0].label`).
pub const MAIN_WINDOW: &str = "main";

/// Prefix of the labels of the other windows (capabilities/default.json lists `w-*`).
pub const WINDOW_PREFIX: &str = "w-";

/// File (inside the data folder) where the window-state plugin keeps sizes and positions.
const WINDOW_STATE_FILE: &str = "window-state.json";

/// The one Tauri event carrying every [`HostEvent`] to the windows.
pub const HOST_EVENT: &str = "host-event";

/// The app's state, managed by Tauri and read by commands.
pub struct AppState {
    pub data_dir: PathBuf,
    pub host: Host,
    windows: Mutex<Windows>,
    pub settings: Mutex<Settings>,
    pub terminals: Terminals,
    /// Set once the app is quitting: closing windows then keeps them in the layout.
    pub exiting: AtomicBool,
    save_layout: mpsc::UnboundedSender<Layout>,
}

impl AppState {
    pub fn windows(&self) -> MutexGuard<'_, Windows> {
        self.windows.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the layout, saves it, and keeps the Host in step: threads that gained a tab are
    /// followed (live sync), threads that lost their last tab are closed (runtime stopped).
    pub fn update_layout<R>(&self, change: impl FnOnce(&mut Windows) -> R) -> R {
        let mut windows = self.windows();
        let before = windows.threads();
        let out = change(&mut windows);
        let after = windows.threads();
        let _ = self.save_layout.send(windows.layout.clone());
        drop(windows);
        for gone in before.difference(&after) {
            let (host, id) = (self.host.clone(), gone.clone());
            tauri::async_runtime::spawn(async move {
                if let Err(err) = host.close(&id).await {
                    tracing::debug!(thread = %id, code = err.code(), "close after last tab");
                }
            });
        }
        for new in after.difference(&before) {
            follow(&self.host, new.clone());
        }
        out
    }
}

fn follow(host: &Host, thread_id: String) {
    let host = host.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(err) = host.follow(&thread_id).await {
            tracing::debug!(thread = %thread_id, code = err.code(), "follow failed");
        }
    });
}

/// Starts the app and returns its exit code once the last window closed.
pub fn run() -> i32 {
    // The data folder: FORKHOST_DATA_DIR, else the OS's local app-data folder (the same one
    // Tauri's app_local_data_dir() resolves to). Only when neither can be found is it left to
    // Tauri (setup).
    let data_dir = forkhost_core::data_dir::default_data_dir();
    if let Some(dir) = &data_dir {
        // Private before anything is written into it (settings, logs, the store).
        if let Err(err) = forkhost_core::data_dir::prepare(dir) {
            eprintln!("forkhost: cannot prepare {}: {err}", dir.display());
        }
    }

    #[cfg(target_os = "linux")]
    software_rendering_defaults();

    // Harness binaries chosen in Settings are handed to the Host the way it reads them (its
    // `FORKHOST_*_BIN` variables), before any thread exists.
    let initial_settings = data_dir.as_deref().map(settings::load).unwrap_or_default();
    for (var, path) in initial_settings.harness_paths.env() {
        std::env::set_var(var, path);
    }
    // The login shell's PATH (a Finder/Dock/.desktop launch has a bare one) is read on a thread
    // of its own while the window opens; only after the last set_var, which would race with it.
    forkhost_core::harnesses::warm_up_search_path();

    // The log guard must outlive the event loop, or buffered lines are lost at exit.
    let log_guard: Arc<Mutex<Option<LogGuard>>> = Arc::new(Mutex::new(None));
    if let Some(dir) = &data_dir {
        *log_guard.lock().unwrap() = init_logging(dir);
    }

    // The plugin shows every window it has no saved state for: spare windows must stay hidden,
    // so it leaves them alone (a fork window that was a spare gets its geometry remembered
    // from the next start on).
    let mut window_state =
        tauri_plugin_window_state::Builder::default().with_filter(|label| !is_spare_label(label));
    if let Some(dir) = &data_dir {
        // An absolute file name replaces the plugin's default folder (app_config_dir), so each
        // data folder — the user's, or a test's — remembers its own window geometry.
        window_state = window_state.with_filename(dir.join(WINDOW_STATE_FILE).to_string_lossy());
    }

    let mut single_instance =
        tauri_plugin_single_instance::Builder::new().callback(|app, _argv, _cwd| {
            tracing::info!("second launch: focusing the main window");
            focus_main_window(app);
        });
    if let Some(dir) = data_dir.as_deref().filter(|_| data_dir_overridden()) {
        // One instance per data folder: an app pointed at another store (a test, a second
        // profile) is a different instance and must not hand over to the user's running app.
        single_instance = single_instance.dbus_id(instance_id(dir));
    }

    let setup_guard = Arc::clone(&log_guard);
    let app = tauri::Builder::default()
        // single-instance must be the first plugin: a second launch exits before anything else.
        .plugin(single_instance.build())
        .plugin(window_state.build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(move |app| {
            let dir = match data_dir {
                Some(dir) => dir,
                None => {
                    let dir = app.path().app_local_data_dir()?;
                    forkhost_core::data_dir::prepare(&dir)?;
                    dir
                }
            };
            let mut guard = setup_guard.lock().unwrap();
            if guard.is_none() {
                *guard = init_logging(&dir);
            }
            drop(guard);
            tracing::info!(
                version = %app.package_info().version,
                data_dir = %dir.display(),
                "forkhost app started"
            );
            setup(app, dir, initial_settings)?;
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::Destroyed = event {
                window_closed(window.app_handle(), window.label());
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::threads,
            commands::show,
            commands::create,
            commands::start_turn,
            commands::interrupt,
            commands::close,
            commands::is_streaming,
            commands::rename,
            commands::archive,
            commands::fork,
            commands::discover,
            commands::import,
            commands::follow,
            commands::unfollow,
            commands::doctor,
            commands::window_init,
            commands::set_window_tabs,
            commands::open_window,
            commands::move_tab_to_new_window,
            commands::close_window,
            commands::get_settings,
            commands::save_settings,
            settings::check_harness_path,
            commands::terminal_open,
            commands::terminal_write,
            commands::terminal_resize,
            commands::terminal_close,
            cli_tool::cli_tool_status,
            cli_tool::cli_tool_install,
            cli_tool::cli_tool_uninstall,
            update::update_check,
            update::update_install,
        ])
        .build(tauri::generate_context!())
        .expect("failed to build the Forkhost app");

    let code = app.run_return(|app, event| match event {
        RunEvent::ExitRequested { .. } => {
            if let Some(state) = app.try_state::<AppState>() {
                state.exiting.store(true, Ordering::SeqCst);
            }
        }
        RunEvent::Exit => {
            tracing::info!("forkhost app exiting");
            if let Some(state) = app.try_state::<AppState>() {
                state.exiting.store(true, Ordering::SeqCst);
                // Side by side, so quit's deadline is the Host's (≤ 3 s), not the two summed.
                let host = state.host.clone();
                std::thread::scope(|scope| {
                    scope.spawn(|| state.terminals.kill_all());
                    tauri::async_runtime::block_on(host.shutdown());
                });
            }
        }
        _ => {}
    });
    // Flush the log file before the process ends.
    drop(log_guard.lock().unwrap().take());
    code
}

/// Opens the Host, restores the layout, starts the event bridge, builds the menu and windows.
fn setup(app: &mut tauri::App, dir: PathBuf, settings: Settings) -> anyhow::Result<()> {
    let rt = tauri::async_runtime::block_on(async {
        let (host, report) = Host::open_with(&dir, HostOptions::default()).await?;
        if let Some(recovered) = &report.recovered {
            tracing::warn!(?recovered, rebuilt = report.rebuilt, "store was rebuilt");
        }
        let known: BTreeSet<String> = host.threads().await?.into_iter().map(|t| t.id).collect();
        let layout = match host.layout().await {
            Ok(layout) => layout,
            Err(err) => {
                tracing::warn!(code = err.code(), "saved layout unreadable; starting empty");
                Layout::default()
            }
        };
        Ok::<_, forkhost_core::HostError>((host, layout::sanitized(layout, &known)))
    });
    let (host, layout) = rt?;

    let (save_tx, save_rx) = mpsc::unbounded_channel();
    let restored: Vec<String> = layout.windows.iter().map(|w| w.id.clone()).collect();
    let shown = Windows::new(layout.clone()).threads();
    app.manage(update::Updates::default());
    app.manage(AppState {
        data_dir: dir,
        host: host.clone(),
        windows: Mutex::new(Windows::new(layout)),
        settings: Mutex::new(settings),
        terminals: Terminals::default(),
        exiting: AtomicBool::new(false),
        save_layout: save_tx,
    });
    tauri::async_runtime::spawn(save_layouts(host.clone(), save_rx));
    tauri::async_runtime::spawn(forward_events(app.handle().clone(), host.clone()));
    for thread in shown {
        follow(&host, thread);
    }

    let handle = app.handle().clone();
    app.set_menu(menu::build(&handle)?)?;
    app.on_menu_event(|app, event| menu::dispatch(app, event.id().as_ref()));

    // The main window (created here rather than from the config, so that its UI never calls
    // a command before the state above exists), then the other windows of the saved layout.
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == MAIN_WINDOW)
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("tauri.conf.json has no main window"))?;
    stay_on_app_origin(
        tauri::WebviewWindowBuilder::from_config(&handle, &config)?,
        &handle,
    )
    .build()?;
    schedule_spare(&handle, std::time::Duration::from_secs(3));
    for label in restored.iter().filter(|l| l.as_str() != MAIN_WINDOW) {
        if let Err(err) = build_window(&handle, label, None, true) {
            tracing::warn!(window = %label, error = %err, "could not reopen a window");
        }
    }
    Ok(())
}

/// Takes the ready spare window and shows it near `near` at once, before it holds anything:
/// a fork that opens in a window shows it while the harness forks, so that the window's first
/// frame (costly for a window never shown) is drawn meanwhile. Its UI, still a spare, says a
/// fork is on its way. Then [`open_window`] (`shown`) gives it its tabs, or [`return_spare`]
/// hides it again.
pub fn show_spare(app: &AppHandle, state: &AppState, near: &WebviewWindow) -> Option<String> {
    let label = state.windows().take_spare()?;
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

/// Opens a window holding `tabs` near `near`: `shown` (a spare [`show_spare`] showed), else the
/// ready spare window when there is one (it shows at once), else a new one. `seed`: the detail
/// of a thread it shows (a fork's), serialized. Returns its label.
#[allow(clippy::too_many_arguments)]
pub fn open_window(
    app: &AppHandle,
    state: &AppState,
    near: &WebviewWindow,
    tabs: Vec<layout::NewTab>,
    prefill: Option<layout::Prefill>,
    focus_composer: bool,
    seed: Option<layout::Seed>,
    shown: Option<String>,
) -> Result<String, error::CommandError> {
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
    let result = match spare {
        Some(window) => {
            let label = window.label().to_owned();
            state.update_layout(|w| {
                w.add_window(&label, tabs, prefill, focus_composer, seed);
            });
            if !was_shown {
                place_near(&window, near);
            }
            // The event only wakes the window: it asks `window_init` for its state, whose reply
            // (a command reply, a raw body) carries the seed far faster than an event, which
            // is delivered by evaluating a script holding the whole payload.
            let _ = app.emit_to(&label, "window-assign", ());
            if !was_shown {
                let _ = window.show();
                let _ = window.set_focus();
            }
            tracing::info!(window = %label, "spare window assigned");
            Ok(label)
        }
        None => {
            let label = layout::new_window_label();
            state.update_layout(|w| {
                w.add_window(&label, tabs, prefill, focus_composer, seed);
            });
            match build_window(app, &label, Some(near), true) {
                Ok(_) => Ok(label),
                Err(err) => {
                    state.update_layout(|w| w.remove_window(&label));
                    Err(err.into())
                }
            }
        }
    };
    schedule_spare(app, std::time::Duration::from_millis(1500));
    result
}

/// Labels of the spare windows being built (read by the window-state plugin's filter, which
/// has no access to the app state).
static SPARE_LABELS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn is_spare_label(label: &str) -> bool {
    SPARE_LABELS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|l| l == label)
}

/// Whether forks may use a hidden, preloaded window (`FORKHOST_SPARE_WINDOW=0` turns it off:
/// every fork window then loads from scratch, and the app holds one web view less).
fn spares_enabled() -> bool {
    std::env::var("FORKHOST_SPARE_WINDOW").map_or(true, |v| v != "0")
}

/// Builds a hidden spare window after `delay`, unless one exists.
fn schedule_spare(app: &AppHandle, delay: std::time::Duration) {
    if !spares_enabled() {
        return;
    }
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(delay).await;
        let Some(state) = app.try_state::<AppState>() else {
            return;
        };
        if state.exiting.load(Ordering::SeqCst) {
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
        {
            let mut spares = SPARE_LABELS.lock().unwrap_or_else(|e| e.into_inner());
            // Only the newest spare is being built; older labels are windows by now.
            spares.clear();
            spares.push(label.clone());
        }
        if let Err(err) = build_window(&app, &label, None, false) {
            tracing::warn!(error = %err, "could not build a spare window");
            state.windows().remove_window(&label);
        }
    });
}

fn place_near(window: &WebviewWindow, near: &WebviewWindow) {
    if let (Ok(pos), Ok(scale)) = (near.outer_position(), near.scale_factor()) {
        let pos = pos.to_logical::<f64>(scale);
        let _ = window.set_position(tauri::LogicalPosition::new(pos.x + 36.0, pos.y + 36.0));
    }
}

/// Builds a secondary window; `near` cascades it from another window. A hidden one is a spare.
pub fn build_window(
    app: &AppHandle,
    label: &str,
    near: Option<&WebviewWindow>,
    visible: bool,
) -> tauri::Result<WebviewWindow> {
    let mut builder =
        tauri::WebviewWindowBuilder::new(app, label, WebviewUrl::App("index.html".into()))
            .title("Forkhost")
            .inner_size(1100.0, 760.0)
            .min_inner_size(720.0, 480.0)
            .visible(visible)
            .disable_drag_drop_handler();
    builder = stay_on_app_origin(builder, app);
    if let Some(near) = near {
        if let (Ok(pos), Ok(scale)) = (near.outer_position(), near.scale_factor()) {
            let pos = pos.to_logical::<f64>(scale);
            builder = builder.position(pos.x + 36.0, pos.y + 36.0);
        }
    }
    let window = builder.build()?;
    if visible {
        let _ = window.set_focus();
    }
    Ok(window)
}

/// Keeps a window on the app's own pages: a link, a dropped URL or a script can never load a
/// remote page into a web view that can call the app's commands. An http(s)/mailto link goes to
/// the system browser instead (the same opener the UI uses); anything else is refused.
/// `window.open` never makes a web view either: the app opens its own windows from Rust.
fn stay_on_app_origin<'a>(
    builder: tauri::WebviewWindowBuilder<'a, tauri::Wry, AppHandle>,
    app: &AppHandle,
) -> tauri::WebviewWindowBuilder<'a, tauri::Wry, AppHandle> {
    let dev_url = tauri::is_dev()
        .then(|| app.config().build.dev_url.clone())
        .flatten();
    let (nav_app, popup_app) = (app.clone(), app.clone());
    builder
        .on_navigation(move |url| {
            if is_app_url(url, dev_url.as_ref()) {
                return true;
            }
            open_outside(&nav_app, url);
            false
        })
        .on_new_window(move |url, _features| {
            open_outside(&popup_app, &url);
            tauri::webview::NewWindowResponse::Deny
        })
}

/// Whether `url` is one of the app's own pages: `tauri://localhost` (Linux, macOS),
/// `http(s)://tauri.localhost` (Windows), or the dev server in development.
fn is_app_url(url: &tauri::Url, dev_url: Option<&tauri::Url>) -> bool {
    let same_origin = |other: &tauri::Url| {
        url.scheme() == other.scheme()
            && url.host_str() == other.host_str()
            && url.port_or_known_default() == other.port_or_known_default()
    };
    match (url.scheme(), url.host_str()) {
        ("tauri", Some("localhost")) => url.port().is_none(),
        ("http" | "https", Some("tauri.localhost")) => url.port().is_none(),
        // A web view's first document before the app's page loads.
        ("about", _) => url.as_str() == "about:blank",
        _ => dev_url.is_some_and(same_origin),
    }
}

/// The schemes a link may open outside the app (the capability's opener scope).
fn opens_outside(url: &tauri::Url) -> bool {
    matches!(url.scheme(), "http" | "https" | "mailto")
}

fn open_outside(app: &AppHandle, url: &tauri::Url) {
    use tauri_plugin_opener::OpenerExt;
    if !opens_outside(url) {
        tracing::warn!(
            scheme = url.scheme(),
            "navigation away from the app refused"
        );
        return;
    }
    tracing::info!(
        scheme = url.scheme(),
        "link opened in the browser, not in the app"
    );
    if let Err(err) = app.opener().open_url(url.as_str(), None::<&str>) {
        tracing::warn!(error = %err, "could not open a link in the browser");
    }
}

/// A window closed. While other windows remain it leaves the layout (and its threads are
/// closed); the last window, or any window while quitting, stays in it for the next start.
/// Spare windows are not part of the layout, and don't keep the app running.
fn window_closed(app: &AppHandle, label: &str) {
    let Some(state) = app.try_state::<AppState>() else {
        return;
    };
    if state.windows().is_spare(label) {
        state.windows().remove_window(label);
        return;
    }
    if state.exiting.load(Ordering::SeqCst) {
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

/// Quits: every window stays in the layout.
pub fn quit(app: &AppHandle) {
    if let Some(state) = app.try_state::<AppState>() {
        state.exiting.store(true, Ordering::SeqCst);
    }
    app.exit(0);
}

/// Saves layouts in order, skipping to the newest when several queued up.
async fn save_layouts(host: Host, mut rx: mpsc::UnboundedReceiver<Layout>) {
    while let Some(mut layout) = rx.recv().await {
        while let Ok(newer) = rx.try_recv() {
            layout = newer;
        }
        if let Err(err) = host.save_layout(&layout).await {
            if err.code() == "thread_not_found" {
                // A thread vanished under a tab: save what still exists.
                if let Ok(threads) = host.threads().await {
                    let known = threads.into_iter().map(|t| t.id).collect();
                    let _ = host.save_layout(&layout::sanitized(layout, &known)).await;
                }
            } else {
                tracing::warn!(code = err.code(), error = %err, "could not save the layout");
            }
        }
    }
}

/// Forwards every Host event to the windows as one `host-event`. Also follows a shown thread
/// again when it changes (its native file may have just appeared).
async fn forward_events(app: AppHandle, host: Host) {
    let mut rx = host.subscribe();
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let HostEvent::ThreadChanged { thread_id } = &event {
                    let shown = app
                        .try_state::<AppState>()
                        .is_some_and(|s| s.windows().threads().contains(thread_id));
                    if shown {
                        follow(&host, thread_id.clone());
                    }
                }
                let _ = app.emit(HOST_EVENT, &event);
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "UI fell behind the Host's events; asking for a reload"
                );
                let _ = app.emit("host-lagged", missed);
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

/// Without a GPU (no DRM render node: a VM, a remote or virtual display), WebKitGTK composites
/// through software GL (llvmpipe), which cost ~70 MB per window and made scrolling a long thread
/// about three times slower than plain software rendering. Use the latter then, unless the user
/// chose (`WEBKIT_DISABLE_COMPOSITING_MODE` set either way; the WebDriver tests set it to `0`,
/// because WebKitWebDriver's screenshots hang without compositing).
#[cfg(target_os = "linux")]
fn software_rendering_defaults() {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if !has_render_node() && std::env::var_os(VAR).is_none() {
        std::env::set_var(VAR, "1");
    }
}

#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// File logging into `<data dir>/logs`; on failure the app still runs, with stderr logging only.
fn init_logging(data_dir: &Path) -> Option<LogGuard> {
    let log_dir = forkhost_core::data_dir::log_dir(data_dir);
    match forkhost_core::logging::init_app(&log_dir) {
        Ok(guard) => Some(Box::new(guard)),
        Err(err) => {
            forkhost_core::logging::init_stderr("info");
            tracing::warn!(error = %err, log_dir = %log_dir.display(), "cannot write log files");
            None
        }
    }
}

fn data_dir_overridden() -> bool {
    std::env::var_os(forkhost_core::data_dir::DATA_DIR_ENV).is_some_and(|v| !v.is_empty())
}

/// A D-Bus-safe single-instance id for a data folder: the identifier plus a stable hash
/// (FNV-1a, so it does not change between builds) of the folder's path.
fn instance_id(data_dir: &Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in data_dir.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}.d{hash:016x}", forkhost_core::APP_IDENTIFIER)
}

fn focus_main_window(app: &AppHandle) {
    let windows = app.webview_windows();
    let window = windows.get(MAIN_WINDOW).or_else(|| windows.values().next());
    if let Some(window) = window {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_identifier_is_the_core_identifier() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../tauri.conf.json")).unwrap();
        assert_eq!(config["identifier"], forkhost_core::APP_IDENTIFIER);
        assert_eq!(config["productName"], "Forkhost");
        assert_eq!(config["app"]["windows"][0]["label"], MAIN_WINDOW);
        // Built in setup, after the state exists.
        assert_eq!(config["app"]["windows"][0]["create"], false);
    }

    #[test]
    fn capability_covers_every_window_and_grants_exactly_what_the_ui_uses() {
        let cap: serde_json::Value =
            serde_json::from_str(include_str!("../capabilities/default.json")).unwrap();
        let windows: Vec<&str> = cap["windows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(windows, [MAIN_WINDOW, &format!("{WINDOW_PREFIX}*")]);
        assert!(layout::new_window_label().starts_with(WINDOW_PREFIX));
        // Each entry is a call in ui/src/ipc.ts: listen/unlisten (`on`, `onHere` and the
        // functions they return), `setWindowTitle`, `pickFolder`, `openExternal`. A new plugin
        // call needs its permission here, and this list changed on purpose.
        let perms = cap["permissions"].as_array().unwrap();
        let ids: Vec<&str> = perms
            .iter()
            .map(|p| p.as_str().or(p["identifier"].as_str()).unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "core:event:allow-listen",
                "core:event:allow-unlisten",
                "core:window:allow-set-title",
                "dialog:allow-open",
                "opener:allow-open-url",
            ]
        );
        let opener = perms.iter().find(|p| p.is_object()).unwrap();
        assert_eq!(
            opener["allow"],
            serde_json::json!([{"url": "http://*"}, {"url": "https://*"}, {"url": "mailto:*"}])
        );
        assert!(opener.get("deny").is_none());
    }

    #[test]
    fn csp_runs_only_the_apps_own_scripts() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../tauri.conf.json")).unwrap();
        let csp = &config["app"]["security"]["csp"];
        let script_src = csp["script-src"].as_str().expect("script-src is set");
        assert!(
            !script_src.contains("unsafe"),
            "script-src allows unsafe-*: {script_src}"
        );
        assert_eq!(csp["object-src"], "'none'");
        assert_eq!(csp["base-uri"], "'none'");
        for (directive, value) in csp.as_object().unwrap() {
            let value = value.as_str().unwrap();
            assert!(
                !value
                    .split_whitespace()
                    .any(|s| s == "*" || s == "http:" || s == "https:"),
                "{directive} allows any remote origin: {value}"
            );
        }
        // No dev server in the shipped config: only `tauri.dev.conf.json` names one.
        assert!(config["build"].get("devUrl").is_none());
    }

    #[test]
    fn windows_stay_on_the_apps_own_origin() {
        let url = |s: &str| tauri::Url::parse(s).unwrap();
        let dev = url("http://127.0.0.1:1420");
        for own in [
            "tauri://localhost/index.html",
            "tauri://localhost",
            "http://tauri.localhost/index.html",
            "https://tauri.localhost/",
            "about:blank",
        ] {
            assert!(is_app_url(&url(own), None), "{own}");
        }
        assert!(is_app_url(
            &url("http://127.0.0.1:1420/index.html"),
            Some(&dev)
        ));
        for other in [
            "https://example.com/",
            "http://localhost:1420/",
            "http://127.0.0.1:1420/",
            "http://127.0.0.1:1421/",
            "https://tauri.localhost.example.com/",
            "http://tauri.localhost:8080/",
            "tauri://localhost.evil/",
            "file:///etc/passwd",
            "mailto:someone@example.com",
            "javascript:alert(1)",
            "data:text/html,hi",
            "about:srcdoc",
        ] {
            assert!(!is_app_url(&url(other), None), "{other}");
        }
        // The dev server counts only when given (development builds).
        assert!(!is_app_url(&url("http://localhost:1420/"), Some(&dev)));
        assert!(opens_outside(&url("https://example.com/a?b")));
        assert!(opens_outside(&url("mailto:a@example.com")));
        assert!(!opens_outside(&url("file:///etc/passwd")));
        assert!(!opens_outside(&url("javascript:alert(1)")));
    }

    #[test]
    fn instance_ids_are_stable_and_distinct_per_data_dir() {
        let a = instance_id(Path::new("/tmp/a"));
        assert_eq!(a, instance_id(Path::new("/tmp/a")));
        assert_ne!(a, instance_id(Path::new("/tmp/b")));
        assert!(a.starts_with("dev.forkhost.desktop.d"));
        // D-Bus name elements: [A-Za-z0-9_-], not starting with a digit.
        for element in a.split('.') {
            assert!(!element.is_empty());
            assert!(!element.starts_with(|c: char| c.is_ascii_digit()));
            assert!(element
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }
    }
}
