//! The terminal tab: the harness's own TUI on a thread's native session. It and the structured
//! runtime exclude each other — one writer per native session.

use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::host::Host;

/// What to run in a PTY for a thread's terminal tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
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
    /// refuses sends until [`Host::release_terminal`]. The TUI gets the folder's trust flags
    /// (or the harness's refusal) as the runtime does, and a checked session id. Only a
    /// session that exists on disk can be opened this way (a fork that materializes on its
    /// first prompt can't: the TUI ignores the cut).
    pub async fn terminal_command(&self, thread_id: &str) -> HostResult<TerminalCommand> {
        let slot = self.handle(thread_id);
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
        // One TUI per session: a second terminal (another window, another laptop on the same
        // remote daemon) would be a second writer.
        if slot.terminal.load(Ordering::SeqCst) {
            return Err(HostError::Busy(format!(
                "thread {thread_id} is open in a terminal already; close that one first"
            )));
        }
        let kind = thread.kind;
        let binary = self.inner.harnesses.binary(kind).await?;
        let session = thread.native.as_ref().ok_or_else(|| {
            HostError::SessionNotFound(format!("thread {thread_id} has no session"))
        })?;
        // The folder-trust decision holds here as in the structured runtime (review M-3): an
        // undecided folder with project config is refused, as `create` refuses it; an
        // unreadable decision starts the TUI without the project's config.
        let trusted = match self.folder_trust(&thread.folder).await {
            Ok(view) if view.undecided() => return Err(HostError::TrustUndecided(view)),
            found => crate::trust::fail_closed(found),
        };
        let args = kind.harness().terminal_args(session, trusted)?;
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
        let slot = self.handle(thread_id);
        slot.terminal.store(false, Ordering::SeqCst);
        self.sync_thread(thread_id).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::base::error::HostError;
    use crate::test_host::{claude_thread, ClaudeProgram};

    /// Review M-3: the terminal tab honours the folder-trust decision.
    #[tokio::test]
    async fn the_terminal_honours_the_folder_trust_decision() {
        let t = claude_thread(1, ClaudeProgram::VersionOnly).await;
        // No project config: nothing to decide, the CLI's defaults.
        let plain = t.host.terminal_command(&t.thread).await.unwrap();
        let second = t.host.terminal_command(&t.thread).await.unwrap_err();
        assert_eq!(second.code(), "busy", "one TUI per session: {second}");
        assert!(
            !plain.args.contains(&"--strict-mcp-config".to_owned()),
            "{:?}",
            plain.args
        );
        t.host.release_terminal(&t.thread).await.unwrap();
        std::fs::write(t.folder().join(".mcp.json"), "{}").unwrap();
        let undecided = t.host.terminal_command(&t.thread).await.unwrap_err();
        assert!(
            matches!(undecided, HostError::TrustUndecided(_)),
            "{undecided:?}"
        );
        t.host.set_folder_trust(t.folder(), false).await.unwrap();
        let declined = t.host.terminal_command(&t.thread).await.unwrap();
        let args = declined.args.join(" ");
        assert!(
            args.contains("--setting-sources user --strict-mcp-config"),
            "{args}"
        );
        assert!(
            args.ends_with("--resume 5a0e6a7c-1111-4222-8333-444455556666"),
            "{args}"
        );
        t.host.release_terminal(&t.thread).await.unwrap();
        t.host.set_folder_trust(t.folder(), true).await.unwrap();
        let trusted = t.host.terminal_command(&t.thread).await.unwrap();
        assert!(!trusted.args.contains(&"--strict-mcp-config".to_owned()));
    }
}
