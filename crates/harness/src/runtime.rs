//! A live harness for the Host: a [`Runtime`] per thread that sends prompts, streams
//! [`RuntimeEvent`]s, interrupts and closes; and [`fork`], which derives a new native session
//! at a turn boundary. Both go through the thread's [`Harness`](crate::contract::Harness).

use crate::contract::{ForkRequest, HarnessBinary, LiveRuntime};
use crate::error::HarnessResult;
use crate::history::TurnAnchor;

// The contract's types, where the Host has always found them.
pub use crate::contract::{
    Cut, EventSender, Forked, NativeSession, OpenSpec, PendingFork, RuntimeEvent, SessionTarget,
    TurnOutcome,
};

/// A live harness process attached to one thread.
pub struct Runtime(Box<dyn LiveRuntime>);

impl Runtime {
    /// Starts the harness process for a session. Events (including a crash) go to `events`.
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Runtime> {
        let harness = spec.binary.kind.harness();
        Ok(Runtime(harness.open(spec, events).await?))
    }

    /// Starts a turn with `prompt`; returns once the harness accepted it. The turn's events
    /// follow on the channel, ending with `TurnEnded`. A turn already running is `Busy`.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        self.0.send(prompt).await
    }

    /// Stops the running turn, if any; it ends with `TurnOutcome::Interrupted`.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        self.0.interrupt().await
    }

    /// Answers the pending approval request `id` (from `RuntimeEvent::ApprovalRequested`).
    pub async fn answer(
        &mut self,
        id: &str,
        decision: crate::contract::ApprovalDecision,
    ) -> HarnessResult<()> {
        self.0.answer(id, decision).await
    }

    /// Ends the process cleanly (or kills it after a grace period).
    pub async fn close(self) -> HarnessResult<()> {
        self.0.close().await
    }

    /// The harness's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.0.pid()
    }
}

/// Derives a new native session from `source` at `cut`. `anchors` are the source's turns as
/// its reader indexed them. Never writes a native file of the source. Runs in a process of
/// its own, never through a live runtime.
pub async fn fork(
    binary: &HarnessBinary,
    source: &NativeSession,
    anchors: &[TurnAnchor],
    cut: Cut,
    env: &[(String, String)],
) -> HarnessResult<Forked> {
    let request = ForkRequest {
        binary,
        source,
        anchors,
        cut,
        env,
    };
    binary.kind.harness().fork(request).await
}
