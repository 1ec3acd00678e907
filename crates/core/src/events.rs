//! The Host's event stream: what the app and the CLI subscribe to.
//!
//! Events carry model text (deltas) for display; they are never logged.

use serde::Serialize;

use crate::view::ApprovalView;

/// One thing that happened to a thread.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub enum HostEvent {
    TurnStarted {
        thread_id: String,
    },
    TextDelta {
        thread_id: String,
        text: String,
    },
    ToolCall {
        thread_id: String,
        id: Option<String>,
        name: String,
        #[ts(type = "unknown")]
        input: serde_json::Value,
    },
    ToolResult {
        thread_id: String,
        id: Option<String>,
        output: String,
        is_error: bool,
    },
    TurnEnded {
        thread_id: String,
        /// `completed`, `interrupted` or `failed`.
        outcome: String,
        message: Option<String>,
    },
    /// The thread's row or turns changed (state, title, new anchors): re-read it.
    ThreadChanged {
        thread_id: String,
    },
    /// Output of the repository's setup command, running once in the thread's new worktree.
    WorktreeSetup {
        thread_id: String,
        output: String,
    },
    /// The setup command ended (`message` says how, when it did not succeed).
    WorktreeSetupEnded {
        thread_id: String,
        success: bool,
        message: Option<String>,
    },
    /// The thread's harness process started (for a turn, or ahead of a fork's first Send).
    RuntimeStarted {
        thread_id: String,
    },
    /// The thread's harness process was stopped (closed, archived, handed to a terminal, or
    /// idle too long); the next send starts it again on the same native session.
    RuntimeStopped {
        thread_id: String,
    },
    /// The thread's harness asks before it acts; the turn waits until the request is answered
    /// (`answer_approval`) or resolved otherwise.
    ApprovalRequested {
        thread_id: String,
        request: ApprovalView,
    },
    /// A request is no longer pending. `how`: the decision (`approve`, `approve_for_session`,
    /// `decline`, `decline_and_stop`), `withdrawn` by the harness, or `gone` (its turn or
    /// process ended first).
    ApprovalResolved {
        thread_id: String,
        id: String,
        how: String,
    },
    /// The thread's session grants changed (one kept or revoked): re-read `session_grants`.
    GrantsChanged {
        thread_id: String,
    },
    /// Something went wrong outside a request (a harness crashed, a sync conflicted).
    Error {
        thread_id: String,
        code: String,
        message: String,
    },
}

impl HostEvent {
    pub fn thread_id(&self) -> &str {
        match self {
            HostEvent::TurnStarted { thread_id }
            | HostEvent::TextDelta { thread_id, .. }
            | HostEvent::ToolCall { thread_id, .. }
            | HostEvent::ToolResult { thread_id, .. }
            | HostEvent::TurnEnded { thread_id, .. }
            | HostEvent::ThreadChanged { thread_id }
            | HostEvent::RuntimeStarted { thread_id }
            | HostEvent::WorktreeSetup { thread_id, .. }
            | HostEvent::WorktreeSetupEnded { thread_id, .. }
            | HostEvent::RuntimeStopped { thread_id }
            | HostEvent::ApprovalRequested { thread_id, .. }
            | HostEvent::ApprovalResolved { thread_id, .. }
            | HostEvent::GrantsChanged { thread_id }
            | HostEvent::Error { thread_id, .. } => thread_id,
        }
    }
}
