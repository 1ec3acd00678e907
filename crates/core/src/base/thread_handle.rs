//! A thread's place in the Host: the lock that serializes its operations, its live runtime,
//! the requests that runtime waits on, its cached reader (for incremental re-reads) and its
//! file watcher. [`TurnState`] owns the runtime's state machine (idle → streaming → idle, or
//! dead); its fields are private, so the only way to move it is through its methods.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};

use forkhost_harness::{Reply, Runtime, SessionReader, TurnOutcome};
use forkhost_worktree::TreeWatch;
use tokio::sync::{oneshot, Mutex};
use tokio::task::JoinHandle;

use crate::base::pending::PendingApprovals;
use crate::base::view::ApprovalView;
use crate::base::watch::FileWatch;

pub(crate) struct ThreadHandle {
    pub thread_id: String,
    /// Serializes operations on the thread (send, rename, archive, close).
    pub ops: Mutex<()>,
    /// Serializes anchor syncs (after a turn, from the watcher, before a fork).
    pub sync: Mutex<()>,
    pub live: Mutex<Option<AttachedRuntime>>,
    /// The native session indexed so far; re-reads continue from its offset.
    pub reader: StdMutex<Option<Box<dyn SessionReader>>>,
    /// The watcher on its native file while a view follows it.
    pub watch: StdMutex<Option<FileWatch>>,
    /// The thread's session is open in a terminal tab (the harness's own TUI).
    pub terminal: AtomicBool,
    /// The model chosen for it in this Host (`Host::set_model`), given to each process start.
    pub model: StdMutex<Option<String>>,
    /// The requests the thread's runtime waits on, each with its reply: the only list of
    /// them (the harnesses keep none). Ids name the runtime that raised them.
    pending: StdMutex<PendingApprovals>,
    /// The watch on the thread's folder that lets its checkpoints re-read only what changed;
    /// started by the first checkpoint of a runtime, stopped with the runtime.
    folder_watch: StdMutex<Option<FolderWatch>>,
    /// Whether the thread's files are there yet (a fork's worktree is filled after the fork
    /// returns); a Send waits on it.
    pub files: FilesGate,
    /// Stop pressed while a Send waits for the files: that Send goes out no more.
    pub stop_waiting_send: tokio::sync::Notify,
    /// Whether a half-made worktree left by an earlier run was looked for already.
    pub fill_checked: AtomicBool,
}

/// Where a thread's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FilesState {
    Ready,
    /// Being written: `done` of `total` files (0 of 0 until git has counted them).
    Filling {
        done: u64,
        total: u64,
    },
    /// The fill failed and the worktree was removed; why, in words.
    Failed(String),
}

impl FilesState {
    /// How far a fill in progress is; `None` when the files are there (or failed).
    pub fn preparing(&self) -> Option<crate::base::view::FillView> {
        match self {
            FilesState::Filling { done, total } => Some(crate::base::view::FillView {
                done: *done,
                total: *total,
            }),
            _ => None,
        }
    }
}

/// The thread's [`FilesState`], and a way to wait until it is not `Filling`.
pub(crate) struct FilesGate {
    state: tokio::sync::watch::Sender<FilesState>,
}

impl Default for FilesGate {
    fn default() -> Self {
        FilesGate {
            state: tokio::sync::watch::Sender::new(FilesState::Ready),
        }
    }
}

impl FilesGate {
    pub fn state(&self) -> FilesState {
        self.state.borrow().clone()
    }

    pub fn set(&self, state: FilesState) {
        self.state.send_replace(state);
    }

    /// Waits while the files are being written; the failure's words if the fill failed.
    pub async fn ready(&self) -> Result<(), String> {
        let mut seen = self.state.subscribe();
        let state = seen
            .wait_for(|s| !matches!(s, FilesState::Filling { .. }))
            .await
            .map(|s| s.clone())
            .unwrap_or(FilesState::Ready);
        match state {
            FilesState::Failed(why) => Err(why),
            _ => Ok(()),
        }
    }
}

/// A thread's watch on its folder, or why it has none.
#[derive(Clone)]
pub(crate) enum FolderWatch {
    Running(Arc<TreeWatch>),
    /// The folder cannot be watched (a network mount, the OS's watch limit): every checkpoint
    /// reads the whole folder, and starting is not tried again until the runtime restarts.
    Refused(PathBuf),
}

impl ThreadHandle {
    pub fn new(thread_id: &str) -> ThreadHandle {
        ThreadHandle {
            thread_id: thread_id.to_owned(),
            ops: Mutex::default(),
            sync: Mutex::default(),
            live: Mutex::default(),
            reader: StdMutex::default(),
            watch: StdMutex::default(),
            terminal: AtomicBool::default(),
            model: StdMutex::default(),
            pending: StdMutex::default(),
            folder_watch: StdMutex::default(),
            files: FilesGate::default(),
            stop_waiting_send: tokio::sync::Notify::new(),
            fill_checked: AtomicBool::default(),
        }
    }

    /// The watch on `folder`, if one was started (or refused) for it.
    pub fn folder_watch(&self, folder: &std::path::Path) -> Option<FolderWatch> {
        let watch = self.folder_watch.lock().unwrap_or_else(|e| e.into_inner());
        watch.clone().filter(|w| match w {
            FolderWatch::Running(w) => w.folder() == folder,
            FolderWatch::Refused(f) => f == folder,
        })
    }

    pub fn set_folder_watch(&self, watch: FolderWatch) {
        *self.folder_watch.lock().unwrap_or_else(|e| e.into_inner()) = Some(watch);
    }

    /// The thread's pending requests. Never held across an await.
    pub fn pending(&self) -> std::sync::MutexGuard<'_, PendingApprovals> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a request the runtime raised, with the reply that answers it.
    pub fn add_pending(&self, request: ApprovalView, reply: Reply) {
        self.pending().add(request, reply);
    }

    /// Stops the thread's runtime, if one is live (it starts again on the next send); returns
    /// whether one was.
    pub async fn take_and_close(&self) -> bool {
        // The next runtime's first checkpoint reads the whole folder again (whatever changed
        // while none ran is caught then); no watcher outlives the thread's use.
        self.folder_watch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(live) = self.live.lock().await.take() else {
            return false;
        };
        live.close().await;
        true
    }
}

/// A live harness process and the task that pumps its events.
pub(crate) struct AttachedRuntime {
    pub runtime: Runtime,
    pub pump: JoinHandle<()>,
    pub turn: Arc<TurnState>,
}

impl AttachedRuntime {
    pub async fn close(self) {
        if let Err(err) = self.runtime.close().await {
            tracing::warn!(error = %err, "runtime did not close cleanly");
        }
        // The pump ends when the runtime's channel closes; don't wait on a stuck one.
        self.pump.abort();
    }
}

/// Numbers runtimes in this Host, so that what one runtime raised is never answered on
/// another (harness request ids repeat across processes).
static RUNTIMES_STARTED: AtomicU64 = AtomicU64::new(0);

/// One runtime's state, shared between the sender of a turn and the pump that sees it end.
#[derive(Default)]
pub(crate) struct TurnState {
    /// This runtime's number in the Host (see [`RUNTIMES_STARTED`]).
    generation: u64,
    /// When the runtime started, in ms since the epoch: session grants made before it are
    /// the ones it may be answered by.
    started_ms: i64,
    /// A session grant was revoked while it ran: the process, which may remember it, ends
    /// when its turn does.
    retire: AtomicBool,
    done: StdMutex<Option<oneshot::Sender<TurnOutcome>>>,
    streaming: AtomicBool,
    dead: AtomicBool,
    /// When the last turn ended (or the runtime started): idle runtimes are stopped.
    last_active: StdMutex<Option<std::time::Instant>>,
    /// Turns sent to this process so far (from 1); names the turn a request belongs to.
    turns_sent: AtomicU64,
    /// The running turn's 1-based position in the thread (not the process), for its end
    /// checkpoint; 0 before the first.
    thread_turn: std::sync::atomic::AtomicI64,
    /// The running turn was sent with session grants off (`--approve none` from a client of
    /// the daemon): its requests are all asked. Per turn, never the Host's, so one client's
    /// choice never changes another's turn.
    grants_off: AtomicBool,
}

impl TurnState {
    /// The state of a runtime starting now.
    pub fn started() -> TurnState {
        TurnState {
            generation: RUNTIMES_STARTED.fetch_add(1, Ordering::SeqCst) + 1,
            started_ms: crate::base::grant_scope::now_ms(),
            ..TurnState::default()
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn started_ms(&self) -> i64 {
        self.started_ms
    }

    /// A turn (the thread's `thread_turn`-th) is being sent: streaming until it ends, and
    /// the receiver hears how it ended. `None` while another turn runs.
    #[cfg(test)]
    pub fn begin(&self, thread_turn: i64) -> Option<oneshot::Receiver<TurnOutcome>> {
        self.begin_with(thread_turn, true)
    }

    /// A turn begins (see `begin`), saying whether session grants may answer its requests.
    pub fn begin_with(
        &self,
        thread_turn: i64,
        session_grants: bool,
    ) -> Option<oneshot::Receiver<TurnOutcome>> {
        if self.streaming.swap(true, Ordering::SeqCst) {
            return None;
        }
        self.grants_off.store(!session_grants, Ordering::SeqCst);
        self.thread_turn.store(thread_turn, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        self.turns_sent.fetch_add(1, Ordering::SeqCst);
        Some(rx)
    }

    /// The harness did not take the turn [`begin`](Self::begin) started; a harness that is
    /// gone (`dead`) is replaced at the next send.
    pub fn send_failed(&self, dead: bool) {
        self.streaming.store(false, Ordering::SeqCst);
        self.done.lock().unwrap_or_else(|e| e.into_inner()).take();
        if dead {
            self.mark_dead();
        }
    }

    /// The running turn ended with `outcome`.
    pub fn finish(&self, outcome: TurnOutcome) {
        self.streaming.store(false, Ordering::SeqCst);
        self.touch();
        if let Some(done) = self.done.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = done.send(outcome);
        }
    }

    /// The process is gone (or must be replaced): the next send starts a new one.
    pub fn mark_dead(&self) {
        self.dead.store(true, Ordering::SeqCst);
    }

    /// Its process should end once its turn is over (a grant it may remember was revoked).
    pub fn retire(&self) {
        self.retire.store(true, Ordering::SeqCst);
    }

    pub fn retiring(&self) -> bool {
        self.retire.load(Ordering::SeqCst)
    }

    /// Turns sent to this process so far.
    pub fn turns_sent(&self) -> u64 {
        self.turns_sent.load(Ordering::SeqCst)
    }

    /// Whether session grants may answer the running turn's requests.
    pub fn session_grants(&self) -> bool {
        !self.grants_off.load(Ordering::SeqCst)
    }

    /// The thread's number for the running (or last) turn; 0 before the first.
    pub fn thread_turn(&self) -> i64 {
        self.thread_turn.load(Ordering::SeqCst)
    }

    pub fn touch(&self) {
        *self.last_active.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(std::time::Instant::now());
    }

    /// Idle for at least `limit` (never while a turn runs).
    pub fn idle_for(&self, limit: std::time::Duration) -> bool {
        !self.is_streaming()
            && self
                .last_active
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|t| t.elapsed() >= limit)
    }

    pub fn is_streaming(&self) -> bool {
        self.streaming.load(Ordering::SeqCst)
    }

    pub fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }
}
