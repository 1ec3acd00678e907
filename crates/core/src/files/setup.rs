//! A repository's setup command: run once in each new fork worktree (dependencies, build
//! caches: what a fresh checkout lacks), in the background, its output streamed as
//! `worktree_setup` events and its end as `worktree_setup_ended`. The fork is usable at once;
//! the command's output is the user's to read, never logged.
//!
//! Its processes never outlive the app, nor the command (review L5; `user_command.rs`).

use std::path::{Path, PathBuf};

use super::error::blocking;
use super::repo::{main_root, repo_of};
use super::user_command::run_in;
use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
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
        // Each line goes out as a `worktree_setup` event (never to the log: it is the user's).
        let forward = |line: String| {
            self.emit(HostEvent::WorktreeSetup {
                thread_id: thread.to_owned(),
                output: format!("{line}\n"),
            })
        };
        let status = run_in(command, folder, "the setup command", None, &forward)
            .await?
            .ok_or_else(|| "the setup command did not end".to_owned())?;
        match status.success() {
            true => Ok(()),
            false => Err(format!("the setup command {status}")),
        }
    }
}

/// The identity of the repository holding `folder` (its root commits), `None` when it has no
/// commits or git cannot tell.
pub(super) async fn identity_of(folder: &Path) -> Option<String> {
    let repo = repo_of(folder).await?;
    blocking(move || repo.identity()).await.ok().flatten()
}
