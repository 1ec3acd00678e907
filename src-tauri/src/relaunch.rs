//! Starting the app again once it has quit: the last step of an installed update on Linux.
//!
//! Tauri's own restart starts the new binary from inside the event loop's exit, as a child
//! that shares this process's stdio and process group, and ends the process before `run`
//! returns (so buffered log lines are lost). The new copy then lives or dies with whatever
//! started the old one: the terminal it was launched from, or the tool that drove it. Here the
//! event loop ends as on Quit (the Host stops its harnesses, the layout is kept, the
//! single-instance name is released), `run` flushes nothing yet, and the new binary starts in
//! a session of its own with no inherited stdio — its own log file is where it speaks.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use tauri::{AppHandle, Manager, Runtime};

/// A relaunch asked for while the app runs, carried out by [`crate::run`] after the event
/// loop returned. Cloned into the app's managed state; every clone shares one request.
#[derive(Clone, Default)]
pub struct Relaunch(Arc<Mutex<Option<Next>>>);

/// The program to start, with this launch's arguments.
struct Next {
    program: PathBuf,
    args: Vec<OsString>,
}

impl Relaunch {
    /// Records that the app starts again once it has quit, as the binary now installed at
    /// this copy's path (an AppImage's own path for an AppImage), with the same arguments.
    pub fn request<R: Runtime>(&self, app: &AppHandle<R>) -> std::io::Result<()> {
        let env = app.env();
        let program = tauri::process::current_binary(&env)?;
        let args = env.args_os.iter().skip(1).cloned().collect();
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Next { program, args });
        Ok(())
    }

    /// Starts the recorded program, if any, detached from this process. Called after the
    /// event loop returned, before the log is flushed, so its outcome is in the log.
    pub fn start_if_requested(&self) {
        let Some(next) = self.0.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let mut command = Command::new(&next.program);
        command
            .args(&next.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: setsid is async-signal-safe and touches no memory of this process.
            unsafe {
                command.pre_exec(|| {
                    if libc::setsid() == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        match command.spawn() {
            Ok(child) => tracing::info!(
                pid = child.id(),
                program = %next.program.display(),
                "relaunched"
            ),
            Err(err) => tracing::error!(
                program = %next.program.display(),
                "could not start the app again: {err}"
            ),
        }
    }
}
