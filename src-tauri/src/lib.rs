//! The Forkhost desktop app: a thin Tauri 2 shell over the Forkhost Host (`forkhost-core`).
//!
//! Commands ([`commands`]) parse input, call the Host, and turn results or typed errors into
//! JSON for the UI (`ui/src/ipc.ts` is the UI's only door to them). A thread id goes to the
//! Host as the UI sent it: the Host is the one judge of ids, and answers `thread_not_found` for
//! any it does not hold, empty ones included. Host events reach every window as one
//! `host-event` Tauri event ([`event_bridge`]). The shell itself only manages its state
//! ([`state`]), windows ([`windows`], [`spare_window`], [`origin`]), tabs ([`layout`]), menus
//! ([`menu`]), terminals ([`terminal`]) and its own settings ([`settings`]); no decisions about
//! threads are made here. This file starts it all.

pub mod agents;
pub mod approvals;
pub mod attention;
pub mod cli_tool;
#[cfg(test)]
mod command_bindings;
pub mod command_list;
pub mod commands;
pub mod error;
pub mod event_bridge;
pub mod event_list;
pub mod event_payloads;
pub mod files;
pub mod first_run;
pub mod fork_preview;
pub mod layout;
pub mod menu;
pub mod open_window;
pub mod origin;
pub mod platform;
pub mod race;
pub mod relaunch;
pub mod remote;
pub mod rewind;
pub mod search;
pub mod settings;
pub mod spare_window;
pub mod state;
pub mod terminal;
pub mod trust;
pub mod update;
pub mod windows;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use forkhost_core::{Host, HostOptions};
use tauri::{Manager, RunEvent, WindowEvent};

use crate::layout::{LayoutView, WindowRegistry};
use crate::platform::{data_dir_overridden, init_logging, instance_id, LogGuard};
use crate::settings::Settings;
use crate::spare_window::schedule_spare;
use crate::state::{follow, AppState, BuildingSpare};
use crate::windows::{build_window, focus_main_window, Placement};

pub use crate::layout::{MAIN_WINDOW, WINDOW_PREFIX};

/// File (inside the data folder) where the window-state plugin keeps sizes and positions.
const WINDOW_STATE_FILE: &str = "window-state.json";

/// Starts the app and returns its exit code once the last window closed.
pub fn run() -> i32 {
    platform::limit_malloc_arenas();
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
    platform::software_rendering_defaults();

    // Harness binaries chosen in Settings go to the Host in its options (setup), not into this
    // process's environment, which other threads read.
    let initial_settings = data_dir.as_deref().map(settings::load).unwrap_or_default();
    // The login shell's PATH (a Finder/Dock/.desktop launch has a bare one) is read on a thread
    // of its own while the window opens.
    forkhost_core::harnesses::warm_up_search_path();

    // The log guard must outlive the event loop, or buffered lines are lost at exit.
    let log_guard: Arc<Mutex<Option<LogGuard>>> = Arc::new(Mutex::new(None));
    if let Some(dir) = &data_dir {
        *log_guard.lock().unwrap() = init_logging(dir);
    }

    // The plugin shows every window it has no saved state for: spare windows must stay hidden,
    // so it leaves them alone (a fork window that was a spare gets its geometry remembered
    // from the next start on).
    let building_spare = BuildingSpare::default();
    let filter_spare = building_spare.clone();
    let mut window_state = tauri_plugin_window_state::Builder::default()
        .with_filter(move |label| !filter_spare.is(label));
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
    let relaunch = relaunch::Relaunch::default();
    let app = tauri::Builder::default()
        // single-instance must be the first plugin: a second launch exits before anything else.
        .plugin(single_instance.build())
        .plugin(window_state.build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .plugin(tauri_plugin_updater::Builder::new().build())
        .plugin(tauri_plugin_notification::init())
        .manage(relaunch.clone())
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
            setup(app, dir, initial_settings, building_spare)?;
            Ok(())
        })
        .on_window_event(|window, event| match event {
            WindowEvent::Destroyed => windows::window_closed(window.app_handle(), window.label()),
            WindowEvent::Focused(true) => attention::focused(window.app_handle(), window.label()),
            _ => {}
        })
        .invoke_handler(command_list::handler())
        .build(tauri::generate_context!())
        .expect("failed to build the Forkhost app");

    let code = app.run_return(|app, event| match event {
        RunEvent::ExitRequested { .. } => windows::mark_exiting(app),
        RunEvent::Exit => {
            tracing::info!("forkhost app exiting");
            windows::mark_exiting(app);
            if let Some(state) = app.try_state::<AppState>() {
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
    // An installed update starts again here, after the Host has stopped (relaunch.rs).
    relaunch.start_if_requested();
    // Flush the log file before the process ends.
    drop(log_guard.lock().unwrap().take());
    code
}

/// Opens the Host, restores the layout, starts the event bridge, builds the menu and windows.
fn setup(
    app: &mut tauri::App,
    dir: PathBuf,
    settings: Settings,
    building_spare: BuildingSpare,
) -> anyhow::Result<()> {
    let rt = tauri::async_runtime::block_on(async {
        // The app lives long: a lazy fork's harness starts at fork time (HostOptions docs).
        let options = HostOptions {
            warm_forks: true,
            harness_paths: settings.harness_paths.chosen(),
            ..HostOptions::default()
        };
        let (host, report) = Host::open_with(&dir, options).await?;
        if let Some(recovered) = &report.recovered {
            tracing::warn!(?recovered, rebuilt = report.rebuilt, "store was rebuilt");
        }
        let known = layout::known_threads(&host).await?;
        let layout = match host.layout().await {
            Ok(layout) => layout,
            Err(err) => {
                tracing::warn!(code = err.code(), "saved layout unreadable; starting empty");
                LayoutView::default()
            }
        };
        Ok::<_, forkhost_core::HostError>((host, layout::sanitized(layout, &known)))
    });
    let (host, layout) = rt?;
    files::prune_in_background(host.clone(), settings.prune_checkpoints_days);

    let restored: Vec<String> = layout.windows.iter().map(|w| w.id.clone()).collect();
    let shown = WindowRegistry::new(layout.clone()).threads();
    app.manage(update::Updates::default());
    app.manage(attention::Attention::default());
    let remote = remote::link::RemoteLinks::new(app.handle().clone(), dir.clone());
    tauri::async_runtime::spawn(event_bridge::attend_remote_requests(
        app.handle().clone(),
        remote.clone(),
    ));
    app.manage(AppState::new(
        dir,
        host.clone(),
        layout,
        settings,
        building_spare,
        remote,
    ));
    tauri::async_runtime::spawn(event_bridge::forward_events(
        app.handle().clone(),
        host.clone(),
    ));
    // This machine's threads; a remote host's are followed through its link when their tab
    // opens.
    for thread in shown {
        if matches!(
            forkhost_core::ThreadAddress::of(&thread),
            forkhost_core::ThreadAddress::Here(_)
        ) {
            follow(&host, thread);
        }
    }

    let handle = app.handle().clone();
    app.set_menu(menu::build(&handle)?)?;
    app.on_menu_event(|app, event| menu::dispatch(app, event.id().as_ref()));

    // The main window, then the other windows of the saved layout.
    windows::build_main_window(&handle)?;
    schedule_spare(&handle, Duration::from_secs(3));
    for label in restored.iter().filter(|l| l.as_str() != MAIN_WINDOW) {
        if let Err(err) = build_window(&handle, label, Placement::Remembered) {
            tracing::warn!(window = %label, error = %err, "could not reopen a window");
        }
    }
    Ok(())
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
}
