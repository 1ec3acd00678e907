//! A live harness for the Host: a [`Runtime`] per thread that sends prompts, streams
//! [`RuntimeEvent`]s, interrupts and closes; and [`fork`], which derives a new native session
//! at a turn boundary. Both go through the thread's [`Harness`](crate::contract::Harness).

use crate::contract::{HarnessBinary, LiveRuntime};
use crate::error::HarnessResult;
use crate::history::TurnAnchor;

// The contract's types, where the Host has always found them.
pub use crate::contract::{
    Cut, EventSender, ForkRequest, Forked, NativeSession, OpenSpec, PendingFork, RuntimeEvent,
    SessionTarget, TurnOutcome,
};

/// A live harness process attached to one thread.
pub struct Runtime(Box<dyn LiveRuntime>);

impl Runtime {
    /// Starts the harness process for a session. Events (including a crash) go to `events`.
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Runtime> {
        let harness = spec.binary.kind.harness();
        Ok(Runtime(harness.open(spec, events).await?))
    }

    /// A runtime from a process that already runs (a warm spare that became a fork's; the
    /// Host's own tests drive it with a stand-in).
    pub fn from_live(live: Box<dyn LiveRuntime>) -> Runtime {
        Runtime(live)
    }

    /// Starts a warm spare of `binary`'s harness, where it has them (see
    /// [`Harness::spare`](crate::contract::Harness::spare)).
    pub async fn spare(
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> Option<HarnessResult<Box<dyn crate::contract::WarmSpare>>> {
        binary.kind.harness().spare(binary, env).await
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

    /// Takes a new permission mode without a restart where the harness can (`true`).
    pub async fn set_mode(
        &mut self,
        mode: &crate::contract::PermissionMode,
    ) -> HarnessResult<bool> {
        self.0.set_mode(mode).await
    }

    /// The models it offers (empty: it reports none).
    pub async fn models(&mut self) -> HarnessResult<Vec<String>> {
        self.0.models().await
    }

    /// Uses `model` from the next turn on (`true`), or must be started again with it
    /// (`false`); a name it refuses is `InvalidInput`.
    pub async fn set_model(&mut self, model: &str) -> HarnessResult<bool> {
        self.0.set_model(model).await
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
        cwd: None,
    };
    fork_with(request).await
}

/// Writes a conversation carried from another harness as a new native session of
/// `request.binary`'s harness ([`crate::Harness::seed`]).
pub async fn seed_with(request: crate::contract::SeedRequest<'_>) -> HarnessResult<Forked> {
    request.binary.kind.harness().seed(request).await
}

/// [`fork`] with everything a [`ForkRequest`] holds, such as the folder the fork runs in
/// (`request.cwd`, e.g. a git worktree; `None` = the source's folder).
pub async fn fork_with(request: ForkRequest<'_>) -> HarnessResult<Forked> {
    request.binary.kind.harness().fork(request).await
}

/// [`fork_with`] in a folder whose trust decision is `trusted` (`OpenSpec.trusted`): the
/// fork's own process gets the runtime's gate ([`crate::Harness::fork_trusting`]).
pub async fn fork_trusting(
    request: ForkRequest<'_>,
    trusted: Option<bool>,
) -> HarnessResult<Forked> {
    request
        .binary
        .kind
        .harness()
        .fork_trusting(request, trusted)
        .await
}

/// [`seed_with`] into a folder whose trust decision is `trusted`
/// ([`crate::Harness::seed_trusting`]).
pub async fn seed_trusting(
    request: crate::contract::SeedRequest<'_>,
    trusted: Option<bool>,
) -> HarnessResult<Forked> {
    request
        .binary
        .kind
        .harness()
        .seed_trusting(request, trusted)
        .await
}
