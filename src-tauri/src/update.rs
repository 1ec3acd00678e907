//! In-app updates, over `tauri-plugin-updater`: check the release manifest (`latest.json`,
//! `plugins.updater.endpoints` of the platform config), show the new version and its notes,
//! download with progress, verify the signature, install, and restart into it.
//!
//! The UI drives it: the main window checks once at start (unless the setting is off), and
//! File ▸ Check for Updates… / Settings check on demand. The [`Update`] found by a check is kept
//! here until it is installed, so the UI never hands back anything that could point the app at
//! another download.
//!
//! What "install" means is the plugin's: the AppImage file is replaced; a deb or rpm goes to
//! `dpkg -i` / `rpm -U` through pkexec (the system's password prompt); the macOS bundle is
//! replaced in place; Windows runs the msi/NSIS installer, which quits the app itself. A copy
//! that was not installed from one of those (a developer build, the bare CLI archive) cannot
//! update itself and says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tauri::{AppHandle, Manager, State, WebviewWindow};
use tauri_plugin_updater::{Update, UpdaterExt};
use tokio::sync::Mutex;

use crate::error::{AppErrorCode, CmdResult, CommandError, ErrorCode};
use crate::event_list::{channel, emit_to};
use crate::event_payloads::UpdateProgress;
use crate::relaunch::Relaunch;
use crate::state::AppState;

/// How long a check or a download may wait on the network before giving up.
const NETWORK_TIMEOUT: Duration = Duration::from_secs(60);

/// Progress events are at most this frequent (a download arrives in many small chunks).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// A newer release than the running one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct UpdateInfo {
    /// The release's version, e.g. `0.2.0`.
    pub version: String,
    /// The running app's version.
    pub current_version: String,
    /// Release notes (Markdown) from the manifest; shown sanitized.
    pub notes: Option<String>,
    /// Publication date (RFC 3339), when the manifest has one.
    pub date: Option<String>,
}

/// The update found by the last check, and whether an install is running.
#[derive(Default)]
pub struct Updates {
    pending: Mutex<Option<Update>>,
    installing: AtomicBool,
}

/// Whether this copy of the app can replace itself: it came from a bundle the updater knows.
fn installable() -> Result<(), CommandError> {
    if cfg!(target_os = "linux") {
        let bundled = tauri::utils::platform::bundle_type().is_some();
        let appimage = std::env::var_os("APPIMAGE").is_some_and(|v| !v.is_empty());
        if !bundled && !appimage {
            return Err(CommandError::new(
                ErrorCode::Unsupported,
                "This copy of Forkhost was not installed from a package (deb, rpm or AppImage), \
                 so it cannot update itself. Update it the way it was installed.",
            ));
        }
    }
    Ok(())
}

/// A deb or rpm install can only take its own kind of package. When the manifest lacks a
/// `linux-<arch>-deb`/`-rpm` entry the plugin falls back to the plain `linux-<arch>` one (the
/// AppImage), which the package tool would refuse after the whole download: say so up front.
fn package_mismatch(update: &Update) -> Option<CommandError> {
    use tauri::utils::config::BundleType;
    let wanted = match tauri::utils::platform::bundle_type() {
        Some(BundleType::Deb) => "deb",
        Some(BundleType::Rpm) => "rpm",
        _ => return None,
    };
    let path = update.download_url.path().to_ascii_lowercase();
    (!path.ends_with(&format!(".{wanted}"))).then(|| {
        CommandError::new(
            ErrorCode::Unsupported,
            format!(
                "Forkhost {} has no .{wanted} package for this system yet; update it with your \
                 package manager when it does.",
                update.version
            ),
        )
    })
}

fn update_error(action: &str, err: tauri_plugin_updater::Error) -> CommandError {
    use tauri_plugin_updater::Error as E;
    let message = match &err {
        E::EmptyEndpoints => "No update server is configured for this build.".to_owned(),
        E::Reqwest(_) | E::Network(_) => {
            format!("Could not reach the update server while {action}: {err}")
        }
        E::ReleaseNotFound => {
            "The update server answered, but with no release Forkhost can read.".to_owned()
        }
        E::TargetNotFound(_) | E::TargetsNotFound(_) => {
            "The newest release has no package for this system.".to_owned()
        }
        E::Minisign(_) | E::Base64(_) | E::SignatureUtf8(_) => format!(
            "The downloaded update is not signed by Forkhost's key, so it was not installed ({err})."
        ),
        // `requireSignedVersion`: the manifest is not signed, the package's signature is; a
        // manifest pairing a new version number with an older (validly signed) package must
        // not install it.
        E::SignedVersionMismatch { signed, announced } => format!(
            "The update server offered version {announced}, but the download is signed as \
             version {signed}, so it was not installed."
        ),
        E::MissingSignedVersion => "The downloaded update's signature does not say which \
             version it is, so it was not installed."
            .to_owned(),
        E::AuthenticationFailed => {
            "Installing needs an administrator's password, and none was given.".to_owned()
        }
        E::PackageInstallFailed | E::DebInstallFailed => {
            "The system's package installer failed; the update was not installed.".to_owned()
        }
        _ => format!("Updating failed while {action}: {err}"),
    };
    CommandError::new(AppErrorCode::Update, message)
}

fn info(update: &Update) -> UpdateInfo {
    UpdateInfo {
        version: update.version.clone(),
        current_version: update.current_version.clone(),
        notes: update
            .body
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned),
        date: update.date.and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        }),
    }
}

/// Asks the update server for a newer release. `manual` is a user's request: failures and
/// "nothing to install here" come back as errors. The start-up check (`manual = false`) stays
/// quiet instead (logged), and skips the version the user chose to skip.
#[tauri::command(rename_all = "snake_case")]
pub async fn update_check(
    app: AppHandle,
    state: State<'_, AppState>,
    updates: State<'_, Updates>,
    manual: bool,
) -> CmdResult<Option<UpdateInfo>> {
    if updates.installing.load(Ordering::SeqCst) {
        return Err(CommandError::new(
            ErrorCode::Busy,
            "An update is being installed.",
        ));
    }
    let started = Instant::now();
    let checked = async {
        installable()?;
        let updater = app
            .updater_builder()
            .timeout(NETWORK_TIMEOUT)
            .build()
            .map_err(|e| update_error("checking", e))?;
        let found = updater
            .check()
            .await
            .map_err(|e| update_error("checking", e))?;
        match found.as_ref().and_then(package_mismatch) {
            Some(err) => Err(err),
            None => Ok(found),
        }
    }
    .await;
    let found = match checked {
        Ok(found) => found,
        Err(err) if !manual => {
            tracing::info!(code = %err.code, error = %err.message, "update check at start failed");
            return Ok(None);
        }
        Err(err) => return Err(err),
    };
    let Some(update) = found else {
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "no update"
        );
        *updates.pending.lock().await = None;
        return Ok(None);
    };
    let skipped = state
        .settings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .skipped_update
        .clone();
    tracing::info!(
        version = %update.version,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "update available"
    );
    if !manual && skipped.as_deref() == Some(update.version.as_str()) {
        return Ok(None);
    }
    let found = info(&update);
    *updates.pending.lock().await = Some(update);
    Ok(Some(found))
}

/// Downloads, verifies and installs the update found by the last check, sending
/// `update-progress` to the calling window, then restarts the app into it. Only returns on
/// failure (or on Windows, where the installer has already taken over).
#[tauri::command(rename_all = "snake_case")]
pub async fn update_install(
    app: AppHandle,
    window: WebviewWindow,
    updates: State<'_, Updates>,
    version: String,
) -> CmdResult<()> {
    let Some(update) = updates.pending.lock().await.clone() else {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "There is no update to install; check for updates first.",
        ));
    };
    if update.version != version {
        // The UI shows one version and the last check found another: install nothing the user
        // has not seen.
        return Err(CommandError::new(
            ErrorCode::Conflict,
            format!(
                "The update found is {}, not {version}; check again.",
                update.version
            ),
        ));
    }
    if updates.installing.swap(true, Ordering::SeqCst) {
        return Err(CommandError::new(
            ErrorCode::Busy,
            "An update is being installed.",
        ));
    }
    let result = install(&app, &window, update).await;
    updates.installing.store(false, Ordering::SeqCst);
    result?;
    emit_to::<channel::UpdateProgress>(&window, window.label(), &UpdateProgress::Restarting);
    tracing::info!(version = %version, "update installed; restarting");
    // Through the event loop, so the Host stops its harness processes and the layout is kept
    // (RunEvent::Exit in `run`), then the new binary starts. On Linux `run` starts it, detached
    // (relaunch.rs); a macOS bundle is relaunched through Tauri, which asks LaunchServices.
    if cfg!(target_os = "linux") {
        match app.state::<Relaunch>().request(&app) {
            Ok(()) => app.exit(0),
            Err(err) => {
                tracing::warn!(
                    "cannot find this app's binary to relaunch ({err}); Tauri restarts it"
                );
                app.request_restart();
            }
        }
    } else {
        app.request_restart();
    }
    Ok(())
}

async fn install(app: &AppHandle, window: &WebviewWindow, update: Update) -> CmdResult<()> {
    let label = window.label().to_owned();
    let emit = {
        let app = app.clone();
        move |progress: UpdateProgress| {
            emit_to::<channel::UpdateProgress>(&app, &label, &progress);
        }
    };
    emit(UpdateProgress::Downloading {
        downloaded: 0,
        total: None,
    });
    let started = Instant::now();
    let mut downloaded: u64 = 0;
    let mut last = Instant::now();
    let bytes = update
        .download(
            |chunk, total| {
                downloaded += chunk as u64;
                if last.elapsed() >= PROGRESS_INTERVAL || total == Some(downloaded) {
                    last = Instant::now();
                    emit(UpdateProgress::Downloading { downloaded, total });
                }
            },
            || {},
        )
        .await
        .map_err(|e| update_error("downloading", e))?;
    tracing::info!(
        bytes = bytes.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "update downloaded and verified"
    );
    emit(UpdateProgress::Installing);

    // Windows' installer quits the app from inside `install`: stop the harness processes
    // first, as a normal quit would.
    let host = app.state::<AppState>().host.clone();
    let installed = tauri::async_runtime::spawn_blocking(move || {
        if cfg!(windows) {
            tauri::async_runtime::block_on(host.shutdown());
        }
        update.install(bytes)
    })
    .await
    .map_err(|e| CommandError::new(AppErrorCode::Update, format!("the installer stopped: {e}")))?;
    installed.map_err(|e| update_error("installing", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_events_have_the_shape_the_ui_reads() {
        let json = serde_json::to_value(UpdateProgress::Downloading {
            downloaded: 10,
            total: Some(20),
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"stage": "downloading", "downloaded": 10, "total": 20})
        );
        assert_eq!(
            serde_json::to_value(UpdateProgress::Installing).unwrap(),
            serde_json::json!({"stage": "installing"})
        );
    }

    #[test]
    fn errors_are_worded_for_people() {
        let err = update_error("checking", tauri_plugin_updater::Error::EmptyEndpoints);
        assert_eq!(err.code.as_str(), "update");
        assert!(err.message.contains("No update server"));
        let err = update_error(
            "installing",
            tauri_plugin_updater::Error::AuthenticationFailed,
        );
        assert!(err.message.contains("password"), "{}", err.message);
    }

    #[test]
    fn every_platform_config_names_an_https_endpoint_and_a_key() {
        for (name, text) in [
            ("linux", include_str!("../tauri.linux.conf.json")),
            ("macos", include_str!("../tauri.macos.conf.json")),
            ("windows", include_str!("../tauri.windows.conf.json")),
        ] {
            let config: serde_json::Value = serde_json::from_str(text).unwrap();
            let updater = &config["plugins"]["updater"];
            let endpoints = updater["endpoints"].as_array().expect(name);
            assert!(!endpoints.is_empty(), "{name}");
            for endpoint in endpoints {
                assert!(
                    endpoint.as_str().unwrap().starts_with("https://"),
                    "{name}: {endpoint}"
                );
            }
            assert!(updater["pubkey"].as_str().is_some_and(|k| !k.is_empty()));
            assert!(
                updater.get("dangerousInsecureTransportProtocol").is_none(),
                "{name}: shipped configs never allow plain http"
            );
            // The Tauri CLI (`tauri build`, `signer sign --app-version`) writes
            // `version:<v>` into each signature's trusted comment; requiring it stops a
            // tampered manifest from offering an older signed release as a new one.
            assert_eq!(updater["requireSignedVersion"], true, "{name}");
            assert!(
                updater.get("allowDowngrades").is_none_or(|v| v == false),
                "{name}: the updater never installs an older release"
            );
        }
    }

    #[test]
    fn windows_installers_refuse_downgrades() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../tauri.windows.conf.json")).unwrap();
        assert_eq!(config["bundle"]["windows"]["allowDowngrades"], false);
    }

    #[test]
    fn a_version_mismatch_is_worded_for_people() {
        let err = update_error(
            "downloading",
            tauri_plugin_updater::Error::SignedVersionMismatch {
                signed: "0.1.0".into(),
                announced: "0.2.0".into(),
            },
        );
        assert!(
            err.message.contains("offered version 0.2.0")
                && err.message.contains("signed as version 0.1.0"),
            "{}",
            err.message
        );
        let err = update_error(
            "downloading",
            tauri_plugin_updater::Error::MissingSignedVersion,
        );
        assert!(err.message.contains("not installed"), "{}", err.message);
        assert!(!err.message.contains("  "), "{}", err.message);
    }
}
