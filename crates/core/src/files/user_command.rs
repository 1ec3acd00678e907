//! A command the user saved for a repository (the setup command, a race's check) run in a
//! folder: its output line by line, its end, and no process of it left behind.
//!
//! Its processes never outlive the app, nor the command (review L5): on Unix the shell leads a
//! process group of its own, watched like a harness's (`forkhost_harness::process::Tree`), so
//! an app that quits or is killed takes `npm` and its children along; when the shell ends (or
//! its time is up), whatever it left running in the background is killed too (it would hold
//! the output pipes open and the command would never be seen to end). On Windows the shell
//! dies with the app's handle (`kill_on_drop`) only.

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Runs `command` in `folder` through the platform's shell, each output line (stdout and
/// stderr, without its newline) to `on_line`. The shell's exit status, or `None` when `limit`
/// passed first (its group is then killed); `Err` with words naming `what` (e.g. "the setup
/// command") when it could not be started or waited for.
pub(super) async fn run_in(
    command: &str,
    folder: &Path,
    what: &str,
    limit: Option<Duration>,
    on_line: &(dyn Fn(String) + Sync),
) -> Result<Option<ExitStatus>, String> {
    let mut sh = shell(command);
    sh.current_dir(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    sh.process_group(0);
    let mut child = sh
        .spawn()
        .map_err(|e| format!("could not start {what}: {e}"))?;
    let tree = watch_tree(&child);
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let pid = child.id();
    let work = async {
        let ended = async {
            #[cfg(unix)]
            if let (Some(tree), Some(pid)) = (&tree, pid) {
                // Exited but not reaped yet, so its group id is still its own to signal.
                let waited = tokio::task::spawn_blocking(move || {
                    forkhost_harness::process::wait_exited(pid)
                })
                .await;
                if !matches!(waited, Ok(Ok(()))) {
                    tracing::warn!("could not wait for the shell of {what}");
                }
                tree.kill();
            }
            #[cfg(not(unix))]
            let _ = (&tree, pid);
        };
        tokio::join!(read(out, on_line), read(err, on_line), ended);
        child.wait().await
    };
    let status = match limit {
        Some(limit) => tokio::time::timeout(limit, work).await.ok(),
        None => Some(work.await),
    };
    #[cfg(unix)]
    if let Some(tree) = &tree {
        tree.kill();
        tree.release();
    }
    match status {
        Some(Ok(status)) => Ok(Some(status)),
        Some(Err(e)) => Err(format!("{what} could not be waited for: {e}")),
        None => {
            let _ = child.start_kill();
            let _ = child.wait().await;
            Ok(None)
        }
    }
}

async fn read(pipe: Option<impl AsyncRead + Unpin>, on_line: &(dyn Fn(String) + Sync)) {
    let Some(pipe) = pipe else {
        return;
    };
    let mut lines = BufReader::new(pipe).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        on_line(line);
    }
}

/// The shell's process group under the harness crate's watchdog (Unix), so the app's end ends
/// it; `None` where that is not available (the shell then dies with the app's handle only).
#[cfg(unix)]
fn watch_tree(child: &tokio::process::Child) -> Option<forkhost_harness::process::Tree> {
    let pid = child.id()?;
    match forkhost_harness::process::Tree::adopt(pid, None) {
        Ok(tree) => Some(tree),
        Err(err) => {
            tracing::warn!(error = %err, "no watchdog for a user's command");
            None
        }
    }
}

#[cfg(not(unix))]
fn watch_tree(_child: &tokio::process::Child) -> Option<()> {
    None
}

#[cfg(unix)]
fn shell(command: &str) -> tokio::process::Command {
    let mut shell = tokio::process::Command::new("sh");
    shell.arg("-c").arg(command);
    shell
}

#[cfg(windows)]
fn shell(command: &str) -> tokio::process::Command {
    use windows_sys::Win32::System::Threading::CREATE_NO_WINDOW;
    let mut shell = tokio::process::Command::new("cmd");
    shell.arg("/C").arg(command);
    // No console window flashing up for a GUI app.
    shell.creation_flags(CREATE_NO_WINDOW);
    shell
}

#[cfg(all(test, unix))]
mod tests {
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use super::run_in;

    #[tokio::test]
    async fn a_command_that_leaves_a_process_in_the_background_ends_with_its_shell() {
        let folder = tempfile::tempdir().unwrap();
        let lines = Mutex::new(Vec::new());
        let on_line = |line: String| lines.lock().unwrap().push(line);
        let started = Instant::now();
        // The background `sleep` holds the output pipes open: without its group killed when
        // the shell ends, the command would be seen to end only at its limit.
        let status = run_in(
            "sleep 30 & echo started",
            folder.path(),
            "the check",
            Some(Duration::from_secs(20)),
            &on_line,
        )
        .await
        .unwrap();
        assert!(
            status.is_some_and(|s| s.success()),
            "ended with its shell, not at the limit: {status:?} after {:?}",
            started.elapsed()
        );
        assert_eq!(*lines.lock().unwrap(), ["started"]);
    }
}
