//! A thread's life in the Host: the Host opened on its data folder (with what it recovered),
//! the thread list, a thread shown with its turns, created, renamed, archived, and everything
//! stopped at quit.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use forkhost_harness::{HarnessKind, PermissionMode};
use forkhost_store::{Recovery, Store, ThreadState};
use tokio::sync::broadcast;

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::harnesses::Harnesses;
use crate::base::runtimes::SHUTDOWN_GRACE;
use crate::base::thread::Thread;
use crate::base::view::{ThreadDetail, ThreadView};
use crate::data_dir::STORE_FILE;
use crate::host::{new_id, Host, HostOptions, Inner, EVENT_BUFFER};

/// What happened while the Host opened, for the shells to tell the user.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// The store file was unusable and was moved aside; a fresh one took its place and was
    /// rebuilt from the native sessions on disk.
    pub recovered: Option<Recovery>,
    /// Threads re-imported from native sessions after a recovery.
    pub rebuilt: usize,
    /// Interrupted forks removed at open.
    pub removed_creating: u64,
    /// Threads whose native session has vanished (now `missing`).
    pub missing: Vec<String>,
}

/// How long an idle runtime lives by default.
const IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// What `new` needs.
#[derive(Debug, Clone)]
pub struct NewThreadSpec {
    pub harness: HarnessKind,
    pub cwd: PathBuf,
    pub title: Option<String>,
    /// How much its harness may do without asking; the default leaves the harness's own.
    pub permissions: PermissionMode,
}

impl Host {
    /// Opens the Host on a data folder, creating it and its store as needed.
    pub async fn open(data_dir: impl AsRef<Path>) -> HostResult<(Host, OpenReport)> {
        Self::open_with(data_dir, HostOptions::default()).await
    }

    pub async fn open_with(
        data_dir: impl AsRef<Path>,
        options: HostOptions,
    ) -> HostResult<(Host, OpenReport)> {
        let data_dir = data_dir.as_ref().to_owned();
        let options_idle = options.idle_timeout;
        let opened = Store::open(data_dir.join(STORE_FILE)).await?;
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let host = Host {
            inner: Arc::new(Inner {
                store: opened.store,
                data_dir,
                harnesses: Harnesses::with_chosen(options.harness_paths),
                events,
                runtimes: Arc::default(),
                harness_env: options.harness_env,
                warm_forks: options.warm_forks,
                hand_off_spares: options.hand_off_spares,
                idle_timeout: options_idle.unwrap_or(IDLE_TIMEOUT),
                warm: Default::default(),
                worktree_claims: Default::default(),
                session_grants: std::sync::atomic::AtomicBool::new(true),
                texts: crate::base::text::TextCache::default(),
                views: Default::default(),
            }),
        };
        let mut report = OpenReport {
            recovered: opened.recovered,
            removed_creating: opened.removed_creating.len() as u64,
            ..OpenReport::default()
        };
        if !opened.removed_creating.is_empty() {
            // The interrupted forks' sessions, where their harness had derived one.
            let kept = host.store().threads().await?;
            crate::base::derived_session::remove_interrupted(&opened.removed_creating, &kept);
        }
        if report.recovered.is_some() {
            report.rebuilt = host.rebuild_from_native().await;
        }
        report.missing = host.mark_missing_sessions().await?;
        let events = host.inner.events.clone();
        host.inner
            .runtimes
            .reap_idle(options_idle.unwrap_or(IDLE_TIMEOUT), move |thread_id| {
                let _ = events.send(HostEvent::RuntimeStopped {
                    thread_id: thread_id.to_owned(),
                });
            });
        Ok((host, report))
    }

    /// All threads, oldest first, without their turns.
    pub async fn threads(&self) -> HostResult<Vec<ThreadView>> {
        let rows = self.store().threads().await?;
        self.learn_titles(&rows).await;
        Ok(rows
            .iter()
            .filter_map(|row| match self.view_of(row) {
                Ok(view) => Some(view),
                Err(err) => {
                    // Left out rather than failing the list: it could not be opened anyway.
                    tracing::warn!(thread = %row.id, error = %err, "thread of an unknown harness");
                    None
                }
            })
            .collect())
    }

    /// A thread with its turns and messages read from the native session. Turns another
    /// writer appended since the last look are recorded first.
    pub async fn show(&self, thread_id: &str) -> HostResult<ThreadDetail> {
        let thread = self.thread(thread_id).await?;
        thread.usable()?;
        if thread.native_path().is_some() && !self.is_streaming(thread_id).await {
            if let Err(err) = self.sync_thread(thread_id).await {
                // The conversation is still worth showing; the conflict is reported.
                self.report(thread_id, &err, "sync before show failed");
            }
        }
        self.detail(&self.thread(thread_id).await?).await
    }

    /// Registers a new thread. Its native session is created with the first prompt.
    pub async fn create(&self, spec: NewThreadSpec) -> HostResult<ThreadDetail> {
        let cwd = checked_cwd(&spec.cwd)?;
        self.require_trust_decision(&cwd).await?;
        let permissions = crate::base::modes::sorted(spec.harness, spec.permissions);
        crate::base::modes::checked_permissions(spec.harness, &permissions)?;
        // Fail early and in words when the harness isn't installed.
        self.inner.harnesses.binary(spec.harness).await?;
        let title = match spec.title {
            Some(t) if !t.trim().is_empty() => clean_title(&t)?,
            _ => default_title(&cwd),
        };
        let row = self
            .store()
            .insert_thread(&forkhost_store::NewThread {
                id: new_id(),
                harness: spec.harness.to_string(),
                cwd: cwd.display().to_string(),
                title,
                state: ThreadState::Pending,
                native_session_id: None,
                native_path: None,
                fork: None,
                pending_fork: None,
                permission_mode: permissions.mode,
                permission_sandbox: permissions.sandbox,
            })
            .await?;
        tracing::info!(thread = %row.id, harness = %row.harness, "thread created");
        self.row_changed(&row);
        self.detail(&Thread::parse(row)?).await
    }

    pub async fn rename(&self, thread_id: &str, title: &str) -> HostResult<ThreadView> {
        self.rename_if(thread_id, title, None).await
    }

    /// Renames a thread only if it is still at `expected_revision` (when given): a script that
    /// read a thread can change it without overwriting someone else's change.
    pub async fn rename_if(
        &self,
        thread_id: &str,
        title: &str,
        expected_revision: Option<i64>,
    ) -> HostResult<ThreadView> {
        let title = clean_title(title)?;
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let mut row = self.store().thread(thread_id).await?;
        if let Some(expected) = expected_revision {
            row.revision = expected;
        }
        row.title = title;
        row.title_custom = true;
        let row = self.store().update_thread(&row).await?;
        self.row_changed(&row);
        self.view_of(&row)
    }

    /// Archives a thread (hidden from the default list; its native session is kept), or brings
    /// it back.
    pub async fn archive(&self, thread_id: &str, archived: bool) -> HostResult<ThreadView> {
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        let mut row = thread.row.clone();
        if archived {
            self.stop_runtime(&slot).await;
            row.state = ThreadState::Archived;
        } else if row.state == ThreadState::Archived {
            row.state = if thread.native.is_some() && thread.pending.is_none() {
                ThreadState::Ready
            } else {
                ThreadState::Pending
            };
        }
        let row = self.store().update_thread(&row).await?;
        self.row_changed(&row);
        self.view_of(&row)
    }

    /// Stops every runtime (all at once, killed if not closed within a short grace, so quitting
    /// takes at most ~3 s however many are stuck) and closes the store.
    pub async fn shutdown(&self) {
        self.close_spares().await;
        self.inner.runtimes.stop_all(SHUTDOWN_GRACE).await;
        self.store().close().await;
    }

    /// Marks `ready` threads whose native file is gone as `missing`; returns their ids.
    async fn mark_missing_sessions(&self) -> HostResult<Vec<String>> {
        let mut missing = Vec::new();
        for mut row in self.store().threads().await? {
            let present = |p: &str| match row.harness.parse::<forkhost_harness::HarnessKind>() {
                Ok(kind) => forkhost_harness::session_present(kind, p),
                Err(_) => Path::new(p).exists(),
            };
            let gone = row.state == ThreadState::Ready
                && row.native_path.as_deref().is_some_and(|p| !present(p));
            if gone {
                row.state = ThreadState::Missing;
                match self.store().update_thread(&row).await {
                    Ok(_) | Err(forkhost_store::StoreError::Conflict { .. }) => {}
                    Err(err) => return Err(err.into()),
                }
                tracing::warn!(thread = %row.id, "native session vanished");
                missing.push(row.id);
            }
        }
        Ok(missing)
    }
}

pub(crate) fn checked_cwd(cwd: &Path) -> HostResult<PathBuf> {
    // dunce: no `\\?\` prefix on Windows, which Claude's project folder name and `.cmd` shims
    // cannot take.
    let abs = dunce::canonicalize(cwd).map_err(|err| {
        HostError::InvalidInput(format!("folder {} is not usable: {err}", cwd.display()))
    })?;
    if !abs.is_dir() {
        return Err(HostError::InvalidInput(format!(
            "{} is not a folder",
            cwd.display()
        )));
    }
    Ok(abs)
}

fn clean_title(title: &str) -> HostResult<String> {
    let title = title.trim();
    if title.is_empty() {
        return Err(HostError::InvalidInput("a title cannot be empty".into()));
    }
    if title.chars().count() > 200 || title.chars().any(char::is_control) {
        return Err(HostError::InvalidInput(
            "a title is one line of at most 200 characters".into(),
        ));
    }
    Ok(title.to_owned())
}

fn default_title(cwd: &Path) -> String {
    cwd.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "New thread".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn event(rx: &mut broadcast::Receiver<HostEvent>) -> HostEvent {
        tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
            .await
            .expect("no event")
            .unwrap()
    }

    #[tokio::test]
    async fn thread_changed_carries_the_row_as_it_is_now() {
        let data = tempfile::tempdir().unwrap();
        let (host, _) = Host::open(data.path()).await.unwrap();
        let row = host
            .store()
            .insert_thread(&forkhost_store::NewThread {
                id: new_id(),
                harness: "codex".into(),
                cwd: data.path().display().to_string(),
                title: "Before".into(),
                state: ThreadState::Ready,
                native_session_id: None,
                native_path: None,
                fork: None,
                pending_fork: None,
                permission_mode: None,
                permission_sandbox: None,
            })
            .await
            .unwrap();
        let mut rx = host.subscribe();

        let renamed = host.rename(&row.id, "After").await.unwrap();
        let HostEvent::ThreadChanged { thread_id, thread } = event(&mut rx).await else {
            panic!("not a thread change");
        };
        assert_eq!(thread_id, row.id);
        assert_eq!(thread.as_deref(), Some(&renamed));
        assert_eq!(renamed.title, "After");
        assert_eq!(renamed.harness, HarnessKind::Codex);

        host.archive(&row.id, true).await.unwrap();
        let HostEvent::ThreadChanged { thread, .. } = event(&mut rx).await else {
            panic!("not a thread change");
        };
        assert_eq!(thread.map(|t| t.state), Some(ThreadState::Archived));

        // Read for the event; a thread that is gone has no row to carry.
        host.thread_changed(&row.id).await;
        let HostEvent::ThreadChanged { thread, .. } = event(&mut rx).await else {
            panic!("not a thread change");
        };
        assert_eq!(thread.map(|t| t.title), Some("After".to_owned()));
        host.thread_changed("no-such-thread").await;
        let HostEvent::ThreadChanged { thread, .. } = event(&mut rx).await else {
            panic!("not a thread change");
        };
        assert_eq!(thread, None);
        let json = serde_json::to_value(HostEvent::ThreadChanged {
            thread_id: "t".into(),
            thread: None,
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "thread_changed", "thread_id": "t", "thread": null})
        );
    }

    /// The shells hand a thread id over as the UI or the user sent it, unchecked: the Host is
    /// the one judge of ids, so an empty or padded one must be `thread_not_found` everywhere,
    /// as any id it does not hold.
    #[tokio::test]
    async fn an_empty_or_padded_thread_id_is_not_found_as_any_id_the_host_does_not_hold() {
        use crate::rewind::RewindKind;
        use crate::test_host::{claude_thread, committed_repo, ClaudeProgram};
        let t = claude_thread(1, ClaudeProgram::None).await;
        // In git, so that the known side of a two-thread call gets past its own checks.
        committed_repo(t.folder());
        let (h, to) = (&t.host, crate::base::fork_point::TurnRef::Number(1));
        let all = RewindKind::ConversationAndFiles;
        let padded = format!(" {} ", t.thread);
        for id in ["", " ", padded.as_str()] {
            let codes = [
                h.show(id).await.err().map(|e| e.code()),
                h.files(id).await.err().map(|e| e.code()),
                h.changes(id, None).await.err().map(|e| e.code()),
                h.bring_back(id, &t.thread).await.err().map(|e| e.code()),
                h.bring_back(&t.thread, id).await.err().map(|e| e.code()),
                h.worktree_loss(id).await.err().map(|e| e.code()),
                h.remove_worktree(id, None).await.err().map(|e| e.code()),
                h.models(id).await.err().map(|e| e.code()),
                h.keep_plan(id).await.err().map(|e| e.code()),
                h.keep(id, None).await.err().map(|e| e.code()),
                h.rewind_plan(id, &to, all).await.err().map(|e| e.code()),
                h.rewind(id, &to, all, None).await.err().map(|e| e.code()),
                h.undo_rewind(id).await.err().map(|e| e.code()),
                h.rewinds(id).await.err().map(|e| e.code()),
            ];
            assert!(
                codes.iter().all(|c| *c == Some("thread_not_found")),
                "{id:?}: {codes:?}"
            );
        }
    }
}
