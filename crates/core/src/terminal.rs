//! The terminal tab: the harness's own TUI on a thread's native session. It and the structured
//! runtime exclude each other — one writer per native session.

use std::sync::atomic::Ordering;

use serde::Serialize;

use crate::error::{HostError, HostResult};
use crate::host::Host;

/// What to run in a PTY for a thread's terminal tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TerminalCommand {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: String,
    /// Extra environment on top of the app's own.
    pub env: Vec<(String, String)>,
}

impl Host {
    /// Hands a thread's native session to its harness's TUI: stops the structured runtime and
    /// refuses sends until [`Host::release_terminal`]. Only a session that exists on disk can
    /// be opened this way (a fork that materializes on its first prompt can't: the TUI ignores
    /// the cut).
    pub async fn terminal_command(&self, thread_id: &str) -> HostResult<TerminalCommand> {
        let slot = self.slot(thread_id);
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        thread.usable()?;
        if thread.is_materializing() {
            return Err(HostError::Unsupported(
                "this thread's session starts with its first prompt; send one before opening a terminal".into(),
            ));
        }
        if self.is_streaming(thread_id).await {
            return Err(HostError::Busy("a turn is running in this thread".into()));
        }
        let kind = thread.kind;
        let binary = self.inner.harnesses.binary(kind).await?;
        let session = thread.native.as_ref().ok_or_else(|| {
            HostError::SessionNotFound(format!("thread {thread_id} has no session"))
        })?;
        let args = kind.harness().terminal_args(session)?;
        self.stop_runtime(&slot).await;
        slot.terminal.store(true, Ordering::SeqCst);
        tracing::info!(thread = %thread_id, harness = %kind, "terminal opened");
        Ok(TerminalCommand {
            program: binary.path.display().to_string(),
            args,
            cwd: thread.row.cwd.clone(),
            env: self.inner.harness_env.clone(),
        })
    }

    /// The terminal tab closed: the structured runtime may run again. What the TUI appended is
    /// picked up now (and by live sync while it ran, for followed threads).
    pub async fn release_terminal(&self, thread_id: &str) -> HostResult<()> {
        let slot = self.slot(thread_id);
        slot.terminal.store(false, Ordering::SeqCst);
        self.sync_thread(thread_id).await?;
        Ok(())
    }
}
