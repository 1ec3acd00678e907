//! The Forkhost desktop app: a thin Tauri 2 shell over the Forkhost Host (`forkhost-core`).
//!
//! Commands parse input, call the core, and turn results or typed errors into JSON for the UI
//! (`ui/src/ipc.ts` is the UI's only door to them). No decisions are made here.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tauri::{Manager, RunEvent};

/// Keeps the log writer alive; dropping it flushes buffered lines. (The core's `WorkerGuard`,
/// held opaquely so this crate needs no logging crates of its own.)
type LogGuard = Box<dyn std::any::Any + Send>;

/// Label of the main window (tauri.conf.json `app.windows[0].label`).
pub const MAIN_WINDOW: &str = "main";

/// File (inside the data folder) where the window-state plugin keeps sizes and positions.
const WINDOW_STATE_FILE: &str = "window-state.json";

/// What the app knows about itself; managed state, read by commands.
struct AppState {
    data_dir: PathBuf,
}

/// Reply of [`app_info`]; mirrored by `AppInfo` in `ui/src/ipc.ts`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AppInfo {
    /// The app's version (its Cargo package version).
    pub version: String,
    /// The data folder holding the store and the logs.
    pub data_dir: String,
}

#[tauri::command]
fn app_info(app: tauri::AppHandle, state: tauri::State<'_, AppState>) -> AppInfo {
    AppInfo {
        version: app.package_info().version.to_string(),
        data_dir: state.data_dir.display().to_string(),
    }
}

/// Starts the app and returns its exit code once the last window closed.
pub fn run() -> i32 {
    // The data folder: FORKHOST_DATA_DIR, else the OS app-data folder (the same one Tauri's
    // app_data_dir() resolves to). Only when neither can be found is it left to Tauri (setup).
    let data_dir = forkhost_core::data_dir::default_data_dir();

    // The log guard must outlive the event loop, or buffered lines are lost at exit.
    let log_guard: Arc<Mutex<Option<LogGuard>>> = Arc::new(Mutex::new(None));
    if let Some(dir) = &data_dir {
        *log_guard.lock().unwrap() = init_logging(dir);
    }

    let mut window_state = tauri_plugin_window_state::Builder::default();
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
        .setup(move |app| {
            let dir = match data_dir {
                Some(dir) => dir,
                None => app.path().app_data_dir()?,
            };
            std::fs::create_dir_all(&dir)?;
            let mut guard = setup_guard.lock().unwrap();
            if guard.is_none() {
                *guard = init_logging(&dir);
            }
            tracing::info!(
                version = %app.package_info().version,
                data_dir = %dir.display(),
                "forkhost app started"
            );
            app.manage(AppState { data_dir: dir });
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![app_info])
        .build(tauri::generate_context!())
        .expect("failed to build the Forkhost app");

    let code = app.run_return(|_app, event| {
        if let RunEvent::Exit = event {
            tracing::info!("forkhost app exiting");
        }
    });
    // Flush the log file before the process ends.
    drop(log_guard.lock().unwrap().take());
    code
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

fn focus_main_window(app: &tauri::AppHandle) {
    if let Some(window) = app.get_webview_window(MAIN_WINDOW) {
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
