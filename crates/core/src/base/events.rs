//! The Host's event stream: what the app and the CLI subscribe to.
//!
//! Events carry model text (deltas) for display; they are never logged.

use forkhost_harness::{TurnOutcome, TurnUsage};
use serde::{Deserialize, Serialize};

use crate::base::error::ErrorCode;
use crate::base::view::{ApprovalView, ThreadView};

/// One thing that happened to a thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
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
        outcome: TurnEnd,
        message: Option<String>,
        /// The turn's tokens and cost, where its harness reports them (docs/architecture.md
        /// "Race"); absent when it reported none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        usage: Option<TurnUsage>,
    },
    /// The thread's row or turns changed (state, title, new anchors). `thread`: the row as it
    /// is now, where the emitter had it (a list can take it without reading every thread
    /// again); `null`: re-read it. Turns are never in it: a shown conversation re-reads those.
    ThreadChanged {
        thread_id: String,
        thread: Option<Box<ThreadView>>,
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
    /// A fork's worktree is being filled: `done` of `total` files written (`total` 0 until
    /// git has counted them). A Send meanwhile waits.
    FilesProgress {
        thread_id: String,
        #[ts(type = "number")]
        done: u64,
        #[ts(type = "number")]
        total: u64,
    },
    /// The fork's files are there (`error: null`), or could not be written (`error` says why;
    /// the half-made worktree was removed).
    FilesPrepared {
        thread_id: String,
        error: Option<String>,
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
    /// A request is no longer pending; `how` says why.
    ApprovalResolved {
        thread_id: String,
        id: String,
        how: ApprovalResolution,
    },
    /// The thread's session grants changed (one kept or revoked): re-read `session_grants`.
    GrantsChanged {
        thread_id: String,
    },
    /// Something went wrong outside a request (a harness crashed, a sync conflicted).
    Error {
        thread_id: String,
        code: ErrorCode,
        message: String,
    },
}

/// How a turn ended, by name (a failure's message travels beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    Completed,
    Interrupted,
    Failed,
}

impl From<&TurnOutcome> for TurnEnd {
    fn from(outcome: &TurnOutcome) -> Self {
        match outcome {
            TurnOutcome::Completed => TurnEnd::Completed,
            TurnOutcome::Interrupted => TurnEnd::Interrupted,
            TurnOutcome::Failed { .. } => TurnEnd::Failed,
        }
    }
}

/// How an approval request stopped being pending: the user's decision (`approve`, …), its
/// questions `answered` or `dismissed`, `withdrawn` by the harness, or `gone` (its turn or
/// process ended first). The flat name of `pending::Resolution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalResolution {
    Approve,
    ApproveForSession,
    Decline,
    DeclineAndStop,
    Answered,
    Dismissed,
    Withdrawn,
    Gone,
}

impl ApprovalResolution {
    /// Its word, as serialized (a test holds the two equal).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalResolution::Approve => "approve",
            ApprovalResolution::ApproveForSession => "approve_for_session",
            ApprovalResolution::Decline => "decline",
            ApprovalResolution::DeclineAndStop => "decline_and_stop",
            ApprovalResolution::Answered => "answered",
            ApprovalResolution::Dismissed => "dismissed",
            ApprovalResolution::Withdrawn => "withdrawn",
            ApprovalResolution::Gone => "gone",
        }
    }
}

impl std::fmt::Display for ApprovalResolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Every variant names its thread `thread_id`: one list of them for both accessors.
macro_rules! thread_id_of {
    ($event:expr) => {
        match $event {
            HostEvent::TurnStarted { thread_id }
            | HostEvent::TextDelta { thread_id, .. }
            | HostEvent::ToolCall { thread_id, .. }
            | HostEvent::ToolResult { thread_id, .. }
            | HostEvent::TurnEnded { thread_id, .. }
            | HostEvent::ThreadChanged { thread_id, .. }
            | HostEvent::RuntimeStarted { thread_id }
            | HostEvent::WorktreeSetup { thread_id, .. }
            | HostEvent::WorktreeSetupEnded { thread_id, .. }
            | HostEvent::FilesProgress { thread_id, .. }
            | HostEvent::FilesPrepared { thread_id, .. }
            | HostEvent::RuntimeStopped { thread_id }
            | HostEvent::ApprovalRequested { thread_id, .. }
            | HostEvent::ApprovalResolved { thread_id, .. }
            | HostEvent::GrantsChanged { thread_id }
            | HostEvent::Error { thread_id, .. } => thread_id,
        }
    };
}

impl HostEvent {
    pub fn thread_id(&self) -> &str {
        thread_id_of!(self)
    }

    /// The id of the thread it is about, to be renamed (a remote host's event, named as this
    /// machine's clients name that thread).
    pub(crate) fn thread_id_mut(&mut self) -> &mut String {
        thread_id_of!(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(value: impl Serialize) -> String {
        serde_json::to_value(value)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn turn_outcomes_on_the_wire_are_the_names_in_the_logs() {
        let failed = TurnOutcome::Failed {
            message: "x".into(),
        };
        for outcome in [TurnOutcome::Completed, TurnOutcome::Interrupted, failed] {
            assert_eq!(word(TurnEnd::from(&outcome)), outcome.name());
        }
    }
}
