//! Filling a fork's worktree after the fork returns: the fork opens at once, whatever the
//! repository's size, while git writes the files (`Repo::fill_worktree`: parallel checkout,
//! progress as `FilesProgress` events and in `FilesView::preparing`). A Send meanwhile waits on
//! the thread's [`FilesGate`](crate::base::thread_handle::FilesGate) and goes out when the files are
//! there; Stop drops that waiting Send; Close works as ever (the fill goes on). A fill that
//! fails removes the half-made worktree (`Repo::discard_worktree`) and says why
//! (`FilesPrepared { error }`); one cut short by the app ending is finished at the next Send.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use forkhost_harness::TurnOutcome;
use forkhost_worktree::{FillProgress, Oid, Repo, Worktree};
use tokio::sync::oneshot;

use super::error::blocking;
use super::worktree_fork::Prepared;
use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::thread_handle::{FilesState, FolderWatch, ThreadHandle};
use crate::host::Host;

/// How often progress is sent at most (the header redraws no faster than this helps).
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

impl Host {
    /// Fills a fork's worktree in the background; the thread's Sends wait until it is done.
    pub(crate) fn fill_fork_files(&self, thread_id: &str, prepared: Prepared) {
        let slot = self.handle(thread_id);
        slot.files.set(FilesState::Filling { done: 0, total: 0 });
        let (host, thread_id) = (self.clone(), thread_id.to_owned());
        tokio::spawn(async move { host.fill(&slot, &thread_id, prepared).await });
    }

    async fn fill(&self, slot: &Arc<ThreadHandle>, thread_id: &str, prepared: Prepared) {
        let started = Instant::now();
        let (tx, mut counted) = tokio::sync::mpsc::unbounded_channel::<FillProgress>();
        let Prepared {
            repo, made, cwd, ..
        } = prepared;
        let root = crate::files::main_root(&repo);
        // The repository and the base commit, for what follows a fill: the fork's folder watch
        // and the repository's next spare.
        let (filled_in, base) = (repo.clone(), made.base.clone());
        let mut filling = tokio::spawn(fill_or_discard(repo, made, tx));
        // None until the first progress is sent (subtracting from `Instant::now()` may underflow
        // on a machine just booted).
        let mut sent: Option<Instant> = None;
        let outcome = loop {
            tokio::select! {
                done = &mut filling => break done.unwrap_or_else(|e| Err(format!("the fill stopped: {e}"))),
                Some(progress) = counted.recv() => {
                    slot.files.set(FilesState::Filling { done: progress.done, total: progress.total });
                    let due = sent.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY);
                    if due || progress.done == progress.total {
                        sent = Some(Instant::now());
                        self.emit(HostEvent::FilesProgress {
                            thread_id: thread_id.to_owned(),
                            done: progress.done,
                            total: progress.total,
                        });
                    }
                }
            }
        };
        let ms = started.elapsed().as_millis() as u64;
        match outcome {
            Ok(()) => {
                tracing::info!(thread = %thread_id, ms, "fork's files ready");
                // Before anything can run in it (a waiting Send, the setup command): the
                // folder is exactly the base commit now, so its first checkpoint reads nothing.
                watch_filled(slot, filled_in.clone(), &cwd, base.clone()).await;
                slot.files.set(FilesState::Ready);
                self.emit(HostEvent::FilesPrepared {
                    thread_id: thread_id.to_owned(),
                    error: None,
                });
                // Only now, so the spare's checkout never competes with the fork's.
                self.keep_spare(&filled_in, base);
                self.run_setup(thread_id, &root, cwd).await;
            }
            Err(why) => {
                tracing::warn!(thread = %thread_id, ms, "fork's files could not be written");
                let message = format!(
                    "The fork's files could not be written ({why}). Its half-made worktree was \
                     removed; the conversation is kept. Fork again, or fork in the same folder."
                );
                slot.files.set(FilesState::Failed(message.clone()));
                self.emit(HostEvent::FilesPrepared {
                    thread_id: thread_id.to_owned(),
                    error: Some(message),
                });
            }
        }
        self.thread_changed(thread_id).await;
    }

    /// Waits until the thread's files are there (a fork's worktree being filled), as a Send
    /// does. `invalid_input` with the reason when they could not be written.
    pub async fn files_ready(&self, thread_id: &str) -> HostResult<()> {
        self.resume_fill(thread_id).await;
        let slot = self.handle(thread_id);
        slot.files.ready().await.map_err(HostError::InvalidInput)
    }

    /// For a Send: `None` once the files are there (at once, mostly); a turn already
    /// `Interrupted` when Stop was pressed while it waited.
    pub(crate) async fn wait_for_files(
        &self,
        slot: &ThreadHandle,
    ) -> HostResult<Option<oneshot::Receiver<TurnOutcome>>> {
        self.resume_fill(&slot.thread_id).await;
        match slot.files.state() {
            FilesState::Ready => return Ok(None),
            FilesState::Failed(why) => return Err(HostError::InvalidInput(why)),
            FilesState::Filling { .. } => {}
        }
        tracing::info!(thread = %slot.thread_id, "send waits for the fork's files");
        tokio::select! {
            ready = slot.files.ready() => ready.map(|()| None).map_err(HostError::InvalidInput),
            () = slot.stop_waiting_send.notified() => {
                tracing::info!(thread = %slot.thread_id, "a send waiting for the files was stopped");
                let outcome = TurnOutcome::Interrupted;
                self.emit(HostEvent::TurnEnded {
                    thread_id: slot.thread_id.clone(),
                    outcome: (&outcome).into(),
                    message: Some("Stopped before it was sent: the fork's files were not ready yet".into()),
                    usage: None,
                });
                let (tx, rx) = oneshot::channel();
                let _ = tx.send(outcome);
                Ok(Some(rx))
            }
        }
    }

    /// Stop while the files are being written: a Send waiting for them goes out no more.
    pub(crate) fn stop_waiting_send(&self, slot: &ThreadHandle) {
        if matches!(slot.files.state(), FilesState::Filling { .. }) {
            slot.stop_waiting_send.notify_waiters();
        }
    }

    /// A worktree whose fill an earlier run of the app did not finish (it ended meanwhile) is
    /// filled again, once per thread and run, before its files are used.
    pub(crate) async fn resume_fill(&self, thread_id: &str) {
        let slot = self.handle(thread_id);
        if slot.fill_checked.swap(true, Ordering::SeqCst) || slot.files.state() != FilesState::Ready
        {
            return;
        }
        let Ok(Some(row)) = self.store().worktree(thread_id).await else {
            return;
        };
        let Ok(thread) = self.store().thread(thread_id).await else {
            return;
        };
        let path = std::path::PathBuf::from(&row.path);
        let Some(repo) = super::repo::repo_of(std::path::Path::new(&row.repo_root)).await else {
            return;
        };
        let check = repo.clone();
        let checked = path.clone();
        if !blocking(move || check.worktree_needs_fill(&checked))
            .await
            .unwrap_or(false)
        {
            return;
        }
        let Ok(base) = row.base_commit.parse() else {
            return;
        };
        tracing::info!(thread = %thread_id, "a fork's fill was cut short: filling it again");
        let made = Worktree {
            path,
            branch: row.branch,
            base,
            included: Vec::new(),
        };
        self.fill_fork_files(
            thread_id,
            Prepared::resumed(repo, made, std::path::PathBuf::from(thread.cwd)),
        );
    }
}

/// Starts the thread's folder watch from the commit its worktree was just filled with
/// (`Repo::watch_checkout`). Best effort: without it the first checkpoint starts a watch and
/// reads the whole folder, as for any thread.
async fn watch_filled(slot: &Arc<ThreadHandle>, repo: Repo, cwd: &std::path::Path, base: Oid) {
    let folder = cwd.to_owned();
    match blocking(move || repo.watch_checkout(&folder, &base)).await {
        Ok(watch) => slot.set_folder_watch(FolderWatch::Running(Arc::new(watch))),
        Err(err) => tracing::info!(
            thread = %slot.thread_id,
            error = %err,
            "the fork's folder is watched from its first checkpoint"
        ),
    }
}

/// Fills the worktree; on failure removes it again. The failure in words.
async fn fill_or_discard(
    repo: Repo,
    made: Worktree,
    progress: tokio::sync::mpsc::UnboundedSender<FillProgress>,
) -> Result<(), String> {
    let filled = blocking(move || {
        let mut made = made;
        match repo.fill_worktree(&mut made, move |p| {
            let _ = progress.send(p);
        }) {
            Ok(()) => Ok(Ok(())),
            Err(err) => {
                if let Err(left) = repo.discard_worktree(&made) {
                    tracing::warn!(error = %left, "could not remove a half-made worktree");
                }
                Ok(Err(err.to_string()))
            }
        }
    })
    .await;
    match filled {
        Ok(result) => result,
        Err(err) => Err(err.to_string()),
    }
}
