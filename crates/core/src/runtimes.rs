//! Live runtimes: send, interrupt, close; and the pump that turns a runtime's events into Host
//! events and anchors.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use forkhost_harness::{
    HarnessKind, NativeSession, OpenSpec, PendingFork, Runtime, RuntimeEvent, SessionTarget,
    TurnOutcome,
};
use forkhost_store::{ThreadRow, ThreadState};
use tokio::sync::{mpsc, oneshot};

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::host::Host;
use crate::slot::{Live, Slot, TurnState};
use crate::view::ThreadDetail;

/// Quitting: how long the runtimes get to close on their own, together. Then whatever is left
/// is dropped, which kills its process tree; the whole stays within the 3 s a quit may take.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_millis(2500);

impl Host {
    /// Runs one turn to its end and returns the thread as it then is. The reply streams as
    /// events meanwhile.
    pub async fn send(&self, thread_id: &str, prompt: &str) -> HostResult<ThreadDetail> {
        let done = self.start_turn(thread_id, prompt).await?;
        let outcome = done.await.unwrap_or(TurnOutcome::Failed {
            message: "the harness stopped before the turn ended".into(),
        });
        if let TurnOutcome::Failed { message } = outcome {
            return Err(HostError::HarnessFailed(message));
        }
        self.show(thread_id).await
    }

    /// Starts a turn and returns at once; the receiver yields the turn's outcome.
    pub async fn start_turn(
        &self,
        thread_id: &str,
        prompt: &str,
    ) -> HostResult<oneshot::Receiver<TurnOutcome>> {
        if prompt.trim().is_empty() {
            return Err(HostError::InvalidInput("the prompt is empty".into()));
        }
        let slot = self.slot(thread_id);
        let _op = slot.ops.lock().await;
        let row = self.store().thread(thread_id).await?;
        Host::usable(&row)?;
        if row.state == ThreadState::Archived {
            return Err(HostError::InvalidInput(format!(
                "thread {thread_id} is archived; unarchive it first"
            )));
        }
        if slot.terminal.load(Ordering::SeqCst) {
            return Err(HostError::Busy(format!(
                "thread {thread_id} is open in a terminal tab; close it to send from here"
            )));
        }
        let mut live = slot.live.lock().await;
        if live.as_ref().is_some_and(|l| l.turn.is_dead()) {
            if let Some(dead) = live.take() {
                close_live(dead).await;
            }
        }
        if live.is_none() {
            *live = Some(self.open_runtime(&row).await?);
        }
        let Some(current) = live.as_mut() else {
            return Err(HostError::Internal("no runtime".into()));
        };
        if current.turn.is_streaming() {
            return Err(HostError::Busy(format!(
                "a turn is already running in thread {thread_id}"
            )));
        }
        let (tx, rx) = oneshot::channel();
        *current.turn.done.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        current.turn.streaming.store(true, Ordering::SeqCst);
        tracing::info!(thread = %thread_id, "turn sent");
        if let Err(err) = current.runtime.send(prompt).await {
            current.turn.streaming.store(false, Ordering::SeqCst);
            current
                .turn
                .done
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            if matches!(err, forkhost_harness::HarnessError::HarnessFailed { .. }) {
                current.turn.dead.store(true, Ordering::SeqCst);
            }
            return Err(err.into());
        }
        Ok(rx)
    }

    /// Interrupts the running turn of a thread, if any.
    pub async fn interrupt(&self, thread_id: &str) -> HostResult<()> {
        let slot = self.slot(thread_id);
        self.store().thread(thread_id).await?;
        let mut live = slot.live.lock().await;
        match live.as_mut() {
            Some(l) if l.turn.is_streaming() => Ok(l.runtime.interrupt().await?),
            _ => Ok(()),
        }
    }

    /// Stops the thread's runtime (it starts again on the next send).
    pub async fn close(&self, thread_id: &str) -> HostResult<()> {
        let slot = self.slot(thread_id);
        let _op = slot.ops.lock().await;
        self.store().thread(thread_id).await?;
        self.stop_runtime(&slot).await;
        self.unfollow(thread_id);
        Ok(())
    }

    /// Whether the thread has a live harness process (in this process).
    pub async fn is_live(&self, thread_id: &str) -> bool {
        let slot = self.slot(thread_id);
        let live = slot.live.lock().await;
        live.as_ref().is_some_and(|l| !l.turn.is_dead())
    }

    /// Whether a turn is running in the thread (in this process).
    pub async fn is_streaming(&self, thread_id: &str) -> bool {
        let slot = self.slot(thread_id);
        let live = slot.live.lock().await;
        live.as_ref().is_some_and(|l| l.turn.is_streaming())
    }

    /// Closes every live runtime concurrently. Past `grace` the closes still running are
    /// abandoned: dropping a runtime kills its process tree at once. A runtime whose thread is
    /// held by an operation that outlasts `grace` (a send waiting for the harness) is left to
    /// that operation; when the app exits, its process tree dies with it anyway.
    pub(crate) async fn stop_all_runtimes(&self, grace: Duration) {
        let started = Instant::now();
        let slots: Vec<Arc<Slot>> = {
            let slots = self.inner.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.values().cloned().collect()
        };
        let mut closing = tokio::task::JoinSet::new();
        for slot in slots {
            closing.spawn(async move {
                let live = slot.live.lock().await.take();
                if let Some(live) = live {
                    close_live(live).await;
                }
            });
        }
        let count = closing.len();
        let all_closed = tokio::time::timeout(grace, async {
            while closing.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        if !all_closed {
            tracing::warn!(
                left = closing.len(),
                "runtimes did not close in time; killing them"
            );
            // Aborting drops each close future and with it the runtime it owns.
            closing.shutdown().await;
        }
        tracing::info!(
            slots = count,
            all_closed,
            ms = started.elapsed().as_millis() as u64,
            "runtimes stopped"
        );
    }

    pub(crate) async fn stop_runtime(&self, slot: &Slot) {
        if let Some(live) = slot.live.lock().await.take() {
            close_live(live).await;
        }
    }

    async fn open_runtime(&self, row: &ThreadRow) -> HostResult<Live> {
        let kind: HarnessKind =
            row.harness
                .parse()
                .map_err(|e: forkhost_harness::kind::UnknownHarness| {
                    HostError::Internal(e.to_string())
                })?;
        let binary = self.inner.harnesses.binary(kind).await?;
        let target = session_target(kind, row)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let runtime = Runtime::open(
            OpenSpec {
                binary,
                target,
                env: self.inner.harness_env.clone(),
            },
            tx,
        )
        .await?;
        let turn = Arc::new(TurnState::default());
        turn.touch();
        let pump = tokio::spawn(pump(self.clone(), row.id.clone(), rx, turn.clone()));
        tracing::info!(thread = %row.id, harness = %kind, "runtime started");
        Ok(Live {
            runtime,
            pump,
            turn,
        })
    }
}

/// Which native session a thread's runtime opens. A thread that had a session resumes exactly
/// that one: if its file is gone that is `session_not_found`, never a silent new session.
pub(crate) fn session_target(kind: HarnessKind, row: &ThreadRow) -> HostResult<SessionTarget> {
    if let Some(pending) = &row.pending_fork {
        let pending: PendingFork = serde_json::from_str(pending)
            .map_err(|e| HostError::Internal(format!("bad pending fork record: {e}")))?;
        return Ok(SessionTarget::PendingFork(pending));
    }
    match &row.native_session_id {
        Some(session_id) => {
            let path = row.native_path.as_ref().map(PathBuf::from);
            if path.as_ref().is_some_and(|p| !p.exists()) {
                return Err(HostError::SessionNotFound(format!(
                    "the native session of thread {} is gone",
                    row.id
                )));
            }
            Ok(SessionTarget::Resume(NativeSession {
                kind,
                session_id: session_id.clone(),
                path,
                cwd: PathBuf::from(&row.cwd),
            }))
        }
        None => Ok(SessionTarget::New {
            cwd: PathBuf::from(&row.cwd),
        }),
    }
}

async fn close_live(live: Live) {
    if let Err(err) = live.runtime.close().await {
        tracing::warn!(error = %err, "runtime did not close cleanly");
    }
    // The pump ends when the runtime's channel closes; don't wait on a stuck one.
    live.pump.abort();
}

/// Forwards a runtime's events, records the session once known, and syncs anchors when a turn
/// ends.
async fn pump(
    host: Host,
    thread_id: String,
    mut rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    turn: Arc<TurnState>,
) {
    let id = || thread_id.clone();
    while let Some(event) = rx.recv().await {
        match event {
            RuntimeEvent::Session { session } => {
                if let Err(err) = host.record_session(&thread_id, &session).await {
                    tracing::warn!(thread = %thread_id, error = %err, "could not record session");
                }
            }
            RuntimeEvent::TurnStarted { .. } => {
                host.emit(HostEvent::TurnStarted { thread_id: id() })
            }
            RuntimeEvent::TextDelta { text } => host.emit(HostEvent::TextDelta {
                thread_id: id(),
                text,
            }),
            RuntimeEvent::ToolCall {
                id: call,
                name,
                input,
            } => host.emit(HostEvent::ToolCall {
                thread_id: id(),
                id: call,
                name,
                input,
            }),
            RuntimeEvent::ToolResult {
                id: call,
                output,
                is_error,
            } => host.emit(HostEvent::ToolResult {
                thread_id: id(),
                id: call,
                output,
                is_error,
            }),
            RuntimeEvent::TurnEnded { outcome, .. } => {
                if let Err(err) = host.sync_thread(&thread_id).await {
                    tracing::warn!(thread = %thread_id, code = err.code(), "sync after turn failed");
                    host.emit(HostEvent::Error {
                        thread_id: id(),
                        code: err.code().into(),
                        message: err.to_string(),
                    });
                }
                let (name, message) = outcome_words(&outcome);
                tracing::info!(thread = %thread_id, outcome = name, "turn ended");
                host.emit(HostEvent::TurnEnded {
                    thread_id: id(),
                    outcome: name.into(),
                    message,
                });
                host.emit(HostEvent::ThreadChanged { thread_id: id() });
                turn.finish(outcome);
            }
            RuntimeEvent::Exited { error } => {
                turn.dead.store(true, Ordering::SeqCst);
                if let Some(message) = error {
                    tracing::warn!(thread = %thread_id, "harness exited unexpectedly");
                    host.emit(HostEvent::Error {
                        thread_id: id(),
                        code: "harness_failed".into(),
                        message: message.clone(),
                    });
                    turn.finish(TurnOutcome::Failed { message });
                }
            }
        }
    }
    turn.dead.store(true, Ordering::SeqCst);
    turn.finish(TurnOutcome::Failed {
        message: "the harness process ended".into(),
    });
}

fn outcome_words(outcome: &TurnOutcome) -> (&'static str, Option<String>) {
    match outcome {
        TurnOutcome::Completed => ("completed", None),
        TurnOutcome::Interrupted => ("interrupted", None),
        TurnOutcome::Failed { message } => ("failed", Some(message.clone())),
    }
}

/// Stops runtimes that had no turn for `limit`, checking every so often, for as long as the
/// Host lives.
pub(crate) fn reap_idle(host: &Host, limit: std::time::Duration) {
    let weak = Arc::downgrade(&host.inner);
    let every = (limit / 4).clamp(
        std::time::Duration::from_millis(100),
        std::time::Duration::from_secs(60),
    );
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(inner) = weak.upgrade() else { break };
            let host = Host { inner };
            let slots: Vec<_> = {
                let slots = host.inner.slots.lock().unwrap_or_else(|e| e.into_inner());
                slots
                    .iter()
                    .map(|(id, s)| (id.clone(), s.clone()))
                    .collect()
            };
            for (id, slot) in slots {
                let Ok(_op) = slot.ops.try_lock() else {
                    continue;
                };
                let mut live = slot.live.lock().await;
                if live.as_ref().is_some_and(|l| l.turn.idle_for(limit)) {
                    if let Some(idle) = live.take() {
                        tracing::info!(thread = %id, "idle runtime stopped");
                        close_live(idle).await;
                    }
                }
            }
        }
    });
}
