//! "Install command-line tool": puts the `forkhost` CLI that ships beside the app on PATH, tells
//! the user what it did, and takes it away again (docs/release.md, "The in-app "Install
//! command-line tool" action").
//!
//! | how the app runs | what Install does | kind |
//! | --- | --- | --- |
//! | deb / rpm (`/usr/bin/forkhost-app`) | nothing: `/usr/bin/forkhost` is on PATH already | `packaged` |
//! | AppImage (`$APPIMAGE`) | copies `$APPDIR/usr/bin/forkhost` to `~/.local/bin/forkhost` | `copy` |
//! | any other Linux build (dev build, tarball) | links `~/.local/bin/forkhost` → the bundled CLI | `symlink` |
//! | macOS | links `/usr/local/bin/forkhost` → `Forkhost.app/Contents/MacOS/forkhost` (admin prompt if needed) | `symlink` |
//! | Windows | adds the app's folder to the user `Path` (`HKCU\Environment`) | `user_path` |
//!
//! Everything is a plain function over an injected [`CliEnv`] (exe path, HOME, PATH, AppImage
//! variables, OS) and a [`System`] (running `--version`, the macOS admin shell, the Windows user
//! `Path`), so every platform's logic is unit-tested on Linux with temp folders. Only the choice
//! of the real OS in [`CliEnv::from_process`] is `cfg`-gated; the macOS and Windows code is
//! plain std and compiles (and is linted) everywhere.
//!
//! A `forkhost` that is not ours is never replaced unless the user said `replace` (the UI asks
//! first). "Ours" is: a link to this app's CLI, a byte-identical copy of it, what the app
//! itself recorded having put there (`<data dir>/cli-tool.json`), or a link into another
//! Forkhost bundle whose CLI has the same version.

mod env;
mod error;
mod files;
mod install;
mod macos;
mod status;
mod target;
// The tests cover every OS's plan on Linux with Unix permissions and symlinks.
#[cfg(all(test, unix))]
mod cli_tool_tests;
mod version;
mod view;
mod windows;

use tauri::State;

use crate::error::{AppErrorCode, CmdResult, CommandError};
use crate::state::AppState;

pub use env::{CliEnv, Os, RealSystem, System};
pub use error::CliToolError;
pub use install::{install, uninstall};
pub use status::status;
pub use version::run_version;
pub use view::{CliConflict, CliInstallKind, CliToolStatus, CliWarning};

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CliToolError> + Send + 'static,
) -> CmdResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::new(AppErrorCode::CliTool, e.to_string()))?
        .map_err(CommandError::from)
}

/// Where the bundled CLI is and whether it is on PATH.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_status(state: State<'_, AppState>) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || Ok(status(&env, &RealSystem))).await
}

/// Puts the bundled CLI on PATH; `replace` confirms replacing a `forkhost` that is not ours.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_install(
    state: State<'_, AppState>,
    replace: bool,
) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || install(&env, &RealSystem, replace))
        .await
        .inspect_err(|e| tracing::warn!(code = %e.code, "cli tool install failed"))
}

/// Removes what Install added.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_uninstall(state: State<'_, AppState>) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || uninstall(&env, &RealSystem))
        .await
        .inspect_err(|e| tracing::warn!(code = %e.code, "cli tool uninstall failed"))
}
