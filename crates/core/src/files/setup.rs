//! A repository's setup command: run once in each new fork worktree (dependencies, build
//! caches: what a fresh checkout lacks), in the background, its output streamed as
//! `worktree_setup` events and its end as `worktree_setup_ended`. The fork is usable at once;
//! the command's output is the user's to read, never logged.
//!
//! Its processes never outlive the app, nor the command (review L5): on Unix the shell leads a
//! process group of its own, watched like a harness's (`forkhost_harness::process::Tree`), so
//! an app that quits or is killed takes `npm` and its children along; when the shell ends,
//! whatever it left running in the background is killed too (it would hold the output pipes
//! open and the command would never be seen to end). On Windows the shell dies with the app's
//! handle (`kill_on_drop`) only.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::error::blocking;
use super::repo::{main_root, repo_of};
use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::host::Host;

impl Host {
    /// The setup command of the repository holding `folder`.
    pub async fn setup_command(&self, folder: &Path) -> HostResult<Option<String>> {
        let root = self.repository_root(folder).await?;
        Ok(self.store().setup_command(&root).await?)
    }

    /// Sets (or with `None` or blank, removes) the setup command of the repository holding
    /// `folder`.
    pub async fn set_setup_command(
        &self,
        folder: &Path,
        command: Option<&str>,
    ) -> HostResult<Option<String>> {
        if command.is_some_and(|c| c.contains('\0') || c.len() > 4096) {
            return Err(HostError::InvalidInput(
                "a setup command is one line of at most 4096 characters".into(),
            ));
        }
        let root = self.repository_root(folder).await?;
        let identity = identity_of(folder).await;
        self.store()
            .set_setup_command(&root, command, identity.as_deref())
            .await?;
        Ok(self.store().setup_command(&root).await?)
    }

    async fn repository_root(&self, folder: &Path) -> HostResult<String> {
        if !folder.is_dir() {
            return Err(HostError::InvalidInput(format!(
                "{} is not a folder",
                folder.display()
            )));
        }
        match repo_of(folder).await {
            Some(repo) => Ok(main_root(&repo).display().to_string()),
            None => Err(HostError::Unsupported(format!(
                "{} is not in a git repository",
                folder.display()
            ))),
        }
    }

    /// Starts the repository's setup command in a new worktree, if it has one.
    pub(crate) async fn run_setup(&self, thread_id: &str, repo_root: &Path, worktree: PathBuf) {
        let (command, saved_for) = match self
            .store()
            .setup_with_identity(&repo_root.display().to_string())
            .await
        {
            Ok(Some(found)) => found,
            _ => return,
        };
        // Only in the repository it was saved for: another one cloned at the same path later
        // (or one saved before Forkhost recorded which) does not run it unasked (review L5).
        let current = identity_of(repo_root).await;
        if saved_for.is_none() || saved_for != current {
            tracing::warn!(thread = %thread_id, "setup command not run: saved for another repository");
            self.emit(HostEvent::WorktreeSetupEnded {
                thread_id: thread_id.to_owned(),
                success: false,
                message: Some(format!(
                    "the setup command `{command}` was not run: it was saved for {} at this \
                     path, and this may be another repository. Save it again (Setup…, or \
                     `forkhost setup-command`) to run it in new forks.",
                    match saved_for {
                        Some(_) => "a different repository",
                        None => "a repository Forkhost did not record",
                    }
                )),
            });
            return;
        }
        let (host, thread) = (self.clone(), thread_id.to_owned());
        tokio::spawn(async move {
            let ended = host.setup_in(&thread, &command, &worktree).await;
            let (success, message) = match ended {
                Ok(()) => (true, None),
                Err(why) => (false, Some(why)),
            };
            tracing::info!(thread = %thread, success, "worktree setup ended");
            host.emit(HostEvent::WorktreeSetupEnded {
                thread_id: thread,
                success,
                message,
            });
        });
    }

    async fn setup_in(&self, thread: &str, command: &str, folder: &Path) -> Result<(), String> {
        let mut shell = shell(command);
        shell
            .current_dir(folder)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        shell.process_group(0);
        let mut child = shell
            .spawn()
            .map_err(|e| format!("could not start the setup command: {e}"))?;
        let tree = watch_tree(&child);
        let (out, err) = (child.stdout.take(), child.stderr.take());
        let pid = child.id();
        let ended = async {
            #[cfg(unix)]
            if let (Some(tree), Some(pid)) = (&tree, pid) {
                // Exited but not reaped yet, so its group id is still its own to signal.
                let waited = tokio::task::spawn_blocking(move || {
                    forkhost_harness::process::wait_exited(pid)
                })
                .await;
                if !matches!(waited, Ok(Ok(()))) {
                    tracing::warn!("could not wait for the setup command's shell");
                }
                tree.kill();
                tree.release();
            }
            #[cfg(not(unix))]
            let _ = (&tree, pid);
        };
        tokio::join!(self.stream(thread, out), self.stream(thread, err), ended);
        let status = child.wait().await.map_err(|e| e.to_string())?;
        match status.success() {
            true => Ok(()),
            false => Err(format!("the setup command {status}")),
        }
    }

    /// Forwards a pipe's lines as `worktree_setup` events.
    async fn stream(&self, thread: &str, pipe: Option<impl AsyncRead + Unpin>) {
        let Some(pipe) = pipe else {
            return;
        };
        let mut lines = BufReader::new(pipe).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            self.emit(HostEvent::WorktreeSetup {
                thread_id: thread.to_owned(),
                output: format!("{line}\n"),
            });
        }
    }
}

/// The shell's process group under the harness crate's watchdog (Unix), so the app's end ends
/// it; `None` where that is not available (the shell then dies with the app's handle only).
#[cfg(unix)]
pub(super) fn watch_tree(child: &tokio::process::Child) -> Option<forkhost_harness::process::Tree> {
    let pid = child.id()?;
    match forkhost_harness::process::Tree::adopt(pid, None) {
        Ok(tree) => Some(tree),
        Err(err) => {
            tracing::warn!(error = %err, "no watchdog for the setup command");
            None
        }
    }
}

#[cfg(not(unix))]
pub(super) fn watch_tree(_child: &tokio::process::Child) -> Option<()> {
    None
}

#[cfg(unix)]
pub(super) fn shell(command: &str) -> tokio::process::Command {
    let mut shell = tokio::process::Command::new("sh");
    shell.arg("-c").arg(command);
    shell
}

#[cfg(windows)]
pub(super) fn shell(command: &str) -> tokio::process::Command {
    use windows_sys::Win32::System::Threading::CREATE_NO_WINDOW;
    let mut shell = tokio::process::Command::new("cmd");
    shell.arg("/C").arg(command);
    // No console window flashing up for a GUI app.
    shell.creation_flags(CREATE_NO_WINDOW);
    shell
}

/// The identity of the repository holding `folder` (its root commits), `None` when it has no
/// commits or git cannot tell.
pub(super) async fn identity_of(folder: &Path) -> Option<String> {
    let repo = repo_of(folder).await?;
    blocking(move || repo.identity()).await.ok().flatten()
}
