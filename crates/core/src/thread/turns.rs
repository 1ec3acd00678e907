//! Turns: send, interrupt and close a thread's runtime. The harness process opens on the
//! first send and stays until close, archive, idle or shutdown ([`crate::base::runtimes`]); its events
//! go through [`crate::thread::pump`].

use std::sync::atomic::Ordering;
use std::sync::Arc;

use forkhost_harness::{OpenSpec, Runtime, TurnOutcome};
use forkhost_store::ThreadState;
use tokio::sync::{mpsc, oneshot};

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::thread::Thread;
use crate::base::thread_handle::{AttachedRuntime, ThreadHandle, TurnState};
use crate::base::view::ThreadDetail;
use crate::files::TurnEdge;
use crate::host::Host;
use crate::thread::pump::pump;

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
        self.start_turn_with(thread_id, prompt, true).await
    }

    /// [`start_turn`](Self::start_turn) for a client that says whether the user's session
    /// grants may answer this turn's requests (`false`: every one is asked). For this turn
    /// only: a daemon serves many clients and one's `--approve none` is not another's.
    pub async fn start_turn_with(
        &self,
        thread_id: &str,
        prompt: &str,
        session_grants: bool,
    ) -> HostResult<oneshot::Receiver<TurnOutcome>> {
        if prompt.trim().is_empty() {
            return Err(HostError::InvalidInput("the prompt is empty".into()));
        }
        let slot = self.handle(thread_id);
        // A fork whose files are still being written: the prompt waits (not holding `ops`, so
        // Close works meanwhile; Stop drops it) and goes out when they are there.
        if let Some(stopped) = self.wait_for_files(&slot).await? {
            return Ok(stopped);
        }
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        thread.usable()?;
        if thread.state() == ThreadState::Archived {
            return Err(HostError::InvalidInput(format!(
                "thread {thread_id} is archived; unarchive it first"
            )));
        }
        if !thread.folder.is_dir() {
            return Err(HostError::InvalidInput(format!(
                "the folder of thread {thread_id} is gone ({}); it was deleted or moved outside \
                 Forkhost: restore it, or archive the thread",
                thread.folder.display()
            )));
        }
        if slot.terminal.load(Ordering::SeqCst) {
            return Err(HostError::Busy(format!(
                "thread {thread_id} is open in a terminal tab; close it to send from here"
            )));
        }
        // The files as the turn starts, recorded while the harness starts (never after the
        // prompt is sent: by then the agent may be changing them). Never under the `live`
        // lock: Stop (`interrupt`) takes it, and a checkpoint can take seconds in a large
        // repository (review M5); `ops`, held throughout, keeps other turns out meanwhile.
        if slot
            .live
            .lock()
            .await
            .as_ref()
            .is_some_and(|l| l.turn.is_streaming())
        {
            return Err(HostError::Busy(format!(
                "a turn is already running in thread {thread_id}"
            )));
        }
        let ordinal = self.store().turns(thread_id).await?.len() as i64 + 1;
        let checkpoint = self.checkpoint_turn(thread_id, &thread.folder, ordinal, TurnEdge::Start);
        let (ready, _) = tokio::join!(self.ready_runtime(&slot, &thread), checkpoint);
        ready?;
        let mut live = slot.live.lock().await;
        // Stopped or dead while the checkpoint ran (idle, a crash): start it again.
        if live.as_ref().is_some_and(|l| l.turn.is_dead()) {
            if let Some(dead) = live.take() {
                dead.close().await;
            }
        }
        if live.is_none() {
            *live = Some(self.open_runtime(&thread).await?);
        }
        let Some(current) = live.as_mut() else {
            return Err(HostError::Internal("no runtime".into()));
        };
        let Some(rx) = current.turn.begin_with(ordinal, session_grants) else {
            return Err(HostError::Busy(format!(
                "a turn is already running in thread {thread_id}"
            )));
        };
        tracing::info!(thread = %thread_id, "turn sent");
        if let Err(err) = current.runtime.send(prompt).await {
            let dead = matches!(err, forkhost_harness::HarnessError::HarnessFailed { .. });
            current.turn.send_failed(dead);
            return Err(err.into());
        }
        Ok(rx)
    }

    /// A live, idle runtime for the thread's next turn: a dead one is closed, none is started;
    /// a running turn is `busy`. Takes the `live` lock only for that, not for a checkpoint.
    pub(crate) async fn ready_runtime(
        &self,
        slot: &ThreadHandle,
        thread: &Thread,
    ) -> HostResult<()> {
        let thread_id = thread.id();
        let mut live = slot.live.lock().await;
        if live.as_ref().is_some_and(|l| l.turn.is_dead()) {
            if let Some(dead) = live.take() {
                dead.close().await;
            }
        }
        if live.as_ref().is_some_and(|l| l.turn.is_streaming()) {
            return Err(HostError::Busy(format!(
                "a turn is already running in thread {thread_id}"
            )));
        }
        if live.is_none() {
            *live = Some(self.open_runtime(thread).await?);
        }
        Ok(())
    }

    /// Starts the thread's harness process ahead of its first Send (a lazy fork's), unless
    /// one runs already or a turn or terminal claims the thread. Best effort: a failure is
    /// logged and the first Send starts it as usual.
    pub(crate) async fn prewarm(&self, thread_id: &str) {
        let slot = self.handle(thread_id);
        // Started in its folder, so only once the files are there.
        if slot.files.ready().await.is_err() {
            return;
        }
        let _op = slot.ops.lock().await;
        if slot.terminal.load(Ordering::SeqCst) {
            return;
        }
        let Ok(thread) = self.thread(thread_id).await else {
            return;
        };
        let mut live = slot.live.lock().await;
        if live.is_some() {
            return;
        }
        let started = std::time::Instant::now();
        match self.open_runtime(&thread).await {
            Ok(opened) => {
                *live = Some(opened);
                tracing::info!(thread = %thread_id, ms = started.elapsed().as_millis() as u64, "fork's harness started ahead of its first send");
            }
            Err(err) => {
                tracing::warn!(thread = %thread_id, code = err.code(), "could not start a fork's harness ahead");
            }
        }
    }

    /// Interrupts the running turn of a thread, if any. Its pending approval requests are
    /// declined first, so the harness is never left waiting for an answer.
    pub async fn interrupt(&self, thread_id: &str) -> HostResult<()> {
        let slot = self.handle(thread_id);
        self.store().thread(thread_id).await?;
        self.stop_waiting_send(&slot);
        let mut live = slot.live.lock().await;
        match live.as_mut() {
            Some(l) if l.turn.is_streaming() => {
                self.decline_pending(thread_id, &slot).await;
                Ok(l.runtime.interrupt().await?)
            }
            _ => Ok(()),
        }
    }

    /// Stops the thread's runtime (it starts again on the next send).
    pub async fn close(&self, thread_id: &str) -> HostResult<()> {
        let slot = self.handle(thread_id);
        // A prompt still waiting for a fork's files goes out no more: its tab is closing.
        self.stop_waiting_send(&slot);
        let _op = slot.ops.lock().await;
        self.store().thread(thread_id).await?;
        self.stop_runtime(&slot).await;
        self.unfollow(thread_id);
        Ok(())
    }

    pub(crate) async fn open_runtime(&self, thread: &Thread) -> HostResult<AttachedRuntime> {
        let kind = thread.kind;
        let binary = self.inner.harnesses.binary(kind).await?;
        let target = thread.session_target()?;
        // Any lookup error (a store read timing out, a folder gone) starts it untrusted.
        let trusted = crate::trust::fail_closed(self.folder_trust(&thread.folder).await);
        let (tx, rx) = mpsc::unbounded_channel();
        let runtime = Runtime::open(
            OpenSpec {
                binary,
                target,
                env: self.inner.harness_env.clone(),
                permissions: thread.permissions(),
                trusted,
                model: self
                    .handle(thread.id())
                    .model
                    .lock()
                    .ok()
                    .and_then(|m| m.clone()),
            },
            tx,
        )
        .await?;
        tracing::info!(thread = %thread.id(), harness = %kind, "runtime started");
        // A harness with threads open keeps a warm spare for their forks (app only).
        self.ensure_spare(kind);
        Ok(self.live(thread.id(), runtime, rx))
    }

    /// A running runtime attached to its thread: the pump carries its events (`rx`, which may
    /// hold events from before this call) to the Host.
    pub(crate) fn live(
        &self,
        thread_id: &str,
        runtime: Runtime,
        rx: mpsc::UnboundedReceiver<forkhost_harness::RuntimeEvent>,
    ) -> AttachedRuntime {
        let turn = Arc::new(TurnState::started());
        turn.touch();
        self.emit(HostEvent::RuntimeStarted {
            thread_id: thread_id.to_owned(),
        });
        let pump = tokio::spawn(pump(self.clone(), thread_id.to_owned(), rx, turn.clone()));
        AttachedRuntime {
            runtime,
            pump,
            turn,
        }
    }

    /// Gives a thread the runtime a warm spare became when it forked it (no runtime can be
    /// there yet: the thread was just committed).
    pub(crate) async fn adopt_runtime(
        &self,
        thread_id: &str,
        runtime: Runtime,
        rx: mpsc::UnboundedReceiver<forkhost_harness::RuntimeEvent>,
    ) {
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let mut live = slot.live.lock().await;
        if let Some(old) = live.take() {
            old.close().await;
        }
        *live = Some(self.live(thread_id, runtime, rx));
    }
}
