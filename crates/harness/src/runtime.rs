//! The one shape of a live harness: a [`Runtime`] per thread that sends prompts, streams
//! [`RuntimeEvent`]s, interrupts and closes; and [`fork`], which derives a new native session at
//! a turn boundary. Each harness module implements both; this file only dispatches.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::{claude, codex, pi};
use crate::{HarnessBinary, HarnessKind, HarnessResult, TurnAnchor};

/// A native session's coordinates: enough to resume it or fork it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeSession {
    pub kind: HarnessKind,
    /// Claude session id, Codex thread id, Pi session id.
    pub session_id: String,
    /// The native file, where the harness keeps one. For a lazy (Claude) fork this is where
    /// the file will appear.
    pub path: Option<PathBuf>,
    /// The working directory the harness runs in (Claude scopes resume to it).
    pub cwd: PathBuf,
}

/// Which session a runtime opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionTarget {
    /// A brand-new session in `cwd`.
    New { cwd: PathBuf },
    /// An existing session, resumed exactly (never a silent new one).
    Resume(NativeSession),
    /// A fork that materializes with its first prompt (Claude).
    PendingFork(PendingFork),
}

/// A fork whose native session is created by the harness on the first prompt. Stored as JSON
/// in the thread's `pending_fork` column until then, so it survives restarts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingFork {
    /// The session to fork from; `None` for a fork before the first turn (a fresh session).
    pub source: Option<NativeSession>,
    /// The fork's own coordinates, minted up front.
    pub session: NativeSession,
    /// The native checkpoint to cut at (Claude `--resume-session-at`); `None` = the source's
    /// latest.
    pub resume_at: Option<String>,
}

/// Where a fork cuts, as a 0-based index into the source's turn anchors. The Host resolves
/// `latest` to `After(last complete turn)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cut {
    /// Keep turns `0..=i`.
    After(usize),
    /// Keep turns `0..i` (turn i's prompt goes back to the user for editing).
    Before(usize),
}

/// A native fork's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forked {
    pub session: NativeSession,
    /// Set when the native session appears only with the first prompt.
    pub pending: Option<PendingFork>,
}

/// What a running harness reports. Text deltas carry model output for the UI; they are never
/// logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RuntimeEvent {
    /// The native session's coordinates became known (or changed, e.g. a pending fork
    /// materialized).
    Session {
        session: NativeSession,
    },
    TurnStarted {
        native_turn_ref: Option<String>,
    },
    TextDelta {
        text: String,
    },
    ToolCall {
        id: Option<String>,
        name: String,
        input: serde_json::Value,
    },
    ToolResult {
        id: Option<String>,
        output: String,
        is_error: bool,
    },
    TurnEnded {
        native_turn_ref: Option<String>,
        native_checkpoint_ref: Option<String>,
        outcome: TurnOutcome,
    },
    /// The process ended. `error` is set when it was not asked to (a crash): the runtime is
    /// then dead, and the next send needs a new one.
    Exited {
        error: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TurnOutcome {
    Completed,
    Interrupted,
    Failed { message: String },
}

pub type EventSender = mpsc::UnboundedSender<RuntimeEvent>;

/// Everything a runtime needs to start.
#[derive(Debug, Clone)]
pub struct OpenSpec {
    pub binary: HarnessBinary,
    pub target: SessionTarget,
    /// Extra environment for the process (the rest is inherited).
    pub env: Vec<(String, String)>,
}

/// A live harness process attached to one thread.
pub enum Runtime {
    Claude(claude::ClaudeRuntime),
    Codex(codex::CodexRuntime),
    Pi(pi::PiRuntime),
}

impl Runtime {
    /// Starts the harness process for a session. Events (including a crash) go to `events`.
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Runtime> {
        Ok(match spec.binary.kind {
            HarnessKind::Claude => {
                Runtime::Claude(claude::ClaudeRuntime::open(spec, events).await?)
            }
            HarnessKind::Codex => Runtime::Codex(codex::CodexRuntime::open(spec, events).await?),
            HarnessKind::Pi => Runtime::Pi(pi::PiRuntime::open(spec, events).await?),
        })
    }

    /// Starts a turn with `prompt`; returns once the harness accepted it. The turn's events
    /// follow on the channel, ending with `TurnEnded`. A turn already running is `Busy`.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        match self {
            Runtime::Claude(r) => r.send(prompt).await,
            Runtime::Codex(r) => r.send(prompt).await,
            Runtime::Pi(r) => r.send(prompt).await,
        }
    }

    /// Stops the running turn, if any; it ends with `TurnOutcome::Interrupted`.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        match self {
            Runtime::Claude(r) => r.interrupt().await,
            Runtime::Codex(r) => r.interrupt().await,
            Runtime::Pi(r) => r.interrupt().await,
        }
    }

    /// Ends the process cleanly (or kills it after a grace period).
    pub async fn close(self) -> HarnessResult<()> {
        match self {
            Runtime::Claude(r) => r.close().await,
            Runtime::Codex(r) => r.close().await,
            Runtime::Pi(r) => r.close().await,
        }
    }

    /// The session's coordinates, once known.
    pub fn session(&self) -> Option<NativeSession> {
        match self {
            Runtime::Claude(r) => r.session(),
            Runtime::Codex(r) => r.session(),
            Runtime::Pi(r) => r.session(),
        }
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
    match binary.kind {
        HarnessKind::Claude => claude::fork(binary, source, anchors, cut, env).await,
        HarnessKind::Codex => codex::fork(binary, source, anchors, cut, env).await,
        HarnessKind::Pi => pi::fork(binary, source, anchors, cut, env).await,
    }
}
