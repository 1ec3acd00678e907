//! What a running harness reports, in the Host's words.

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::approval::ApprovalRequest;
use super::reply::Reply;
use super::session::NativeSession;
use super::usage::TurnUsage;

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
        /// The turn's tokens and cost, where the harness reports them (`None`: it reported
        /// none, e.g. the process died mid-turn).
        usage: Option<TurnUsage>,
    },
    /// The harness asks before it acts; the turn waits until the request is answered
    /// through `reply`, withdrawn or the runtime ends. The Host keeps the only list of
    /// pending requests: the harness keeps none, and writes the answer itself when it comes.
    ApprovalRequested {
        request: ApprovalRequest,
        #[serde(skip)]
        reply: Reply,
    },
    /// The harness withdrew a request (it no longer waits for the answer); an id the Host no
    /// longer holds (answered already) means nothing.
    ApprovalWithdrawn {
        id: String,
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

impl TurnOutcome {
    /// Its name in logs (never its message: that may quote the model).
    pub fn name(&self) -> &'static str {
        match self {
            TurnOutcome::Completed => "completed",
            TurnOutcome::Interrupted => "interrupted",
            TurnOutcome::Failed { .. } => "failed",
        }
    }
}

pub type EventSender = mpsc::UnboundedSender<RuntimeEvent>;
