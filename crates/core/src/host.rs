//! [`Host`]: the one API over the store and the harnesses.
//!
//! Per-thread operations are serialized by the thread's [`ThreadHandle`]; different threads run in
//! parallel. At most one live harness process (runtime) exists per thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use forkhost_harness::HarnessKind;
use forkhost_store::{Store, ThreadRow};
use tokio::sync::broadcast;

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::harnesses::{HarnessReport, Harnesses};
use crate::base::pending::Resolution;
use crate::base::runtimes::Runtimes;
use crate::base::thread::Thread;
use crate::base::thread_handle::{ThreadHandle, TurnState};
use crate::base::thread_views::ThreadViews;
use crate::base::view::ThreadView;

/// How many events a slow subscriber may fall behind before it misses some.
pub(crate) const EVENT_BUFFER: usize = 4096;

/// The Host. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Host {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub store: Store,
    pub data_dir: PathBuf,
    pub harnesses: Harnesses,
    pub events: broadcast::Sender<HostEvent>,
    pub runtimes: Arc<Runtimes>,
    /// Extra environment for harness processes (tests point them at a fake model this way;
    /// normally empty: harnesses inherit the Host's environment).
    pub harness_env: Vec<(String, String)>,
    pub warm_forks: bool,
    /// Spare worktrees are listed for the caller (`Host::spare_jobs`), not filled here.
    pub hand_off_spares: bool,
    /// How long a harness process (a runtime, a warm spare) may sit unused.
    pub idle_timeout: std::time::Duration,
    /// Warm harness processes, one per harness, that a fork or a new thread takes.
    pub warm: crate::base::warm_pool::WarmPool,
    /// Spare worktrees being filled, and the forks that claimed one.
    pub worktree_claims: crate::base::worktree_claims::WorktreeClaims,
    /// Whether requests are answered by the user's session grants (crate::requests::grants).
    pub session_grants: std::sync::atomic::AtomicBool,
    pub texts: crate::base::text::TextCache,
    /// What thread views need beyond the rows, learned once (a fork's name, its source turn).
    pub views: ThreadViews,
}

/// Options for [`Host::open_with`].
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    pub harness_env: Vec<(String, String)>,
    /// Stop a thread's harness process after this long without a turn (default 10 minutes);
    /// the next send starts it again on the same session.
    pub idle_timeout: Option<std::time::Duration>,
    /// Start a lazy fork's harness process right after the fork (in the background), so the
    /// first Send goes straight to the model. For a long-lived Host (the app); a one-shot CLI
    /// would only start a process to kill it.
    pub warm_forks: bool,
    /// Harness binaries to use instead of looking them up (`FORKHOST_*_BIN`, then `PATH`): the
    /// paths saved in the app's Settings. Handed over here rather than as variables: setting
    /// one while other threads read the environment is a data race.
    pub harness_paths: Vec<(HarnessKind, String)>,
    /// A one-shot Host (the CLI): leave each spare worktree a worktree fork asks for
    /// (docs/architecture.md "Files of a thread") to the caller, [`Host::spare_jobs`], who hands
    /// it to a process that outlives this one ([`Host::fill_spare`]); filled here, it would be
    /// cut short when the process ends and the next fork would find no spare.
    pub hand_off_spares: bool,
}

impl Host {
    /// The home folder the harnesses run with: the `HOME` given to them, else this process's
    /// (for what counts as the user's own settings: folder trust, the checkpoint scope).
    pub(crate) fn home_folder(&self) -> Option<PathBuf> {
        let given = self
            .inner
            .harness_env
            .iter()
            .rev()
            .find(|(k, _)| k == "HOME" || (cfg!(windows) && k == "USERPROFILE"))
            .map(|(_, v)| PathBuf::from(v));
        given.or_else(|| {
            std::env::var_os(if cfg!(windows) { "USERPROFILE" } else { "HOME" })
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    pub(crate) fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Subscribes to every thread's events.
    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    pub(crate) fn emit(&self, event: HostEvent) {
        // No subscriber is fine: the CLI often has none.
        let _ = self.inner.events.send(event);
    }

    /// Logs `err` (its code, never its words: they may quote the user) and tells the
    /// thread's views, for a failure that no caller hears of (a background sync).
    pub(crate) fn report(&self, thread_id: &str, err: &HostError, what: &'static str) {
        tracing::warn!(thread = %thread_id, code = err.code(), "{what}");
        self.emit(HostEvent::Error {
            thread_id: thread_id.to_owned(),
            code: err.error_code(),
            message: err.to_string(),
        });
    }

    /// `ThreadChanged` for the row the store just returned: the event carries its view, so a
    /// thread list takes it in without reading every thread again.
    pub(crate) fn row_changed(&self, row: &ThreadRow) {
        self.emit(HostEvent::ThreadChanged {
            thread_id: row.id.clone(),
            thread: self.view_of(row).ok().map(Box::new),
        });
    }

    /// `ThreadChanged` where the emitter has no row at hand: the row is read for the event
    /// (none when the thread is gone, and then the UI re-reads its list).
    pub(crate) async fn thread_changed(&self, thread_id: &str) {
        match self.store().thread(thread_id).await {
            Ok(row) => self.row_changed(&row),
            Err(_) => self.emit(HostEvent::ThreadChanged {
                thread_id: thread_id.to_owned(),
                thread: None,
            }),
        }
    }

    /// The live handle of a thread (made on first use): its op lock, runtime and pending list.
    pub(crate) fn handle(&self, thread_id: &str) -> Arc<ThreadHandle> {
        self.inner.runtimes.slot(thread_id)
    }

    /// A thread's view, with what the row alone does not say ([`ThreadViews`]).
    pub(crate) fn view_of(&self, row: &ThreadRow) -> HostResult<ThreadView> {
        self.inner.views.view_of(row, &self.inner.harness_env)
    }

    /// Learns what the views of `rows` need beyond the rows (forks' names and source turns).
    pub(crate) async fn learn_titles(&self, rows: &[ThreadRow]) {
        self.inner.views.learn(self.store(), rows).await
    }

    /// A thread's row, read and parsed.
    pub(crate) async fn thread(&self, thread_id: &str) -> HostResult<Thread> {
        Thread::parse(self.store().thread(thread_id).await?)
    }

    /// Harnesses found on this machine, with versions and capabilities.
    pub async fn doctor(&self) -> Vec<HarnessReport> {
        self.inner.harnesses.report().await
    }

    /// [`Host::doctor`] after forgetting what was found: a harness installed or signed in
    /// since is seen (the first-run view's Check again).
    pub async fn doctor_again(&self) -> Vec<HarnessReport> {
        self.inner.harnesses.forget().await;
        self.inner.harnesses.report().await
    }

    /// Uses the binary at `path` for `kind` from now on, checked first like a Settings path;
    /// answers its report (sign-in included).
    pub async fn choose_harness_path(
        &self,
        kind: forkhost_harness::HarnessKind,
        path: &str,
    ) -> HostResult<HarnessReport> {
        self.inner.harnesses.choose(kind, path).await
    }
}

pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A thread's live state as the Host reads and ends it: used by every wing that stops a
/// runtime (archive, permissions, the terminal, a worktree's removal, a race's keep, rewind).
impl Host {
    /// Whether a turn is running in the thread (in this process).
    pub async fn is_streaming(&self, thread_id: &str) -> bool {
        let slot = self.handle(thread_id);
        let live = slot.live.lock().await;
        live.as_ref().is_some_and(|l| l.turn.is_streaming())
    }

    /// Stops the thread's runtime (it starts again on the next send).
    pub(crate) async fn stop_runtime(&self, slot: &ThreadHandle) {
        if let Some(live) = slot.live.lock().await.as_ref() {
            // Its process ends with it: nothing it asked can be answered any more.
            self.drop_pending(&slot.thread_id, &live.turn);
        }
        if slot.take_and_close().await {
            self.emit(HostEvent::RuntimeStopped {
                thread_id: slot.thread_id.clone(),
            });
        }
    }

    /// Reports every pending request of a runtime as gone (its turn or process ended);
    /// dropping their replies tells the harness nobody will answer.
    pub(crate) fn drop_pending(&self, thread_id: &str, turn: &TurnState) {
        let gone = self
            .handle(thread_id)
            .pending()
            .drain_runtime(turn.generation());
        for (request, _) in gone {
            self.resolved(thread_id, &request.id, Resolution::Gone);
        }
    }

    pub(crate) fn resolved(&self, thread_id: &str, id: &str, how: Resolution) {
        tracing::info!(thread = %thread_id, request = %id, how = how.name(), "approval resolved");
        self.emit(HostEvent::ApprovalResolved {
            thread_id: thread_id.to_owned(),
            id: id.to_owned(),
            how: how.into(),
        });
    }
}
