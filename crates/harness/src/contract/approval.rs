//! Asking before a harness acts: the request a runtime raises when its harness wants to run a
//! command, change files or use a tool it may not use unasked, and the decision that answers it.
//! A request stays pending until it is answered, the harness withdraws it, or the runtime ends;
//! nothing here ever answers on the user's behalf.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What the harness wants to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalSubject {
    /// Run a shell command in `cwd`.
    Command {
        command: String,
        cwd: Option<PathBuf>,
    },
    /// Create or change files; `diff` when the harness gives one.
    FileChange {
        paths: Vec<String>,
        diff: Option<String>,
    },
    /// Any other tool, with its input as the harness sent it.
    Tool {
        name: String,
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        input: serde_json::Value,
    },
    /// Questions for the user (not a permission), answered with one text per question
    /// ([`Answer::Questions`](crate::contract::Answer::Questions)).
    Question { questions: Vec<Question> },
}

/// One question of a [`ApprovalSubject::Question`] request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Question {
    /// A short label, when the harness gives one.
    pub header: Option<String>,
    pub prompt: String,
    /// The answers offered; empty when only free text fits.
    pub options: Vec<String>,
    /// Whether an answer other than the options is taken.
    pub free_text: bool,
}

impl Question {
    /// Whether `answer` is one this question takes.
    pub fn accepts(&self, answer: &str) -> bool {
        self.free_text || self.options.iter().any(|o| o == answer)
    }
}

/// One pending request of a runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// The runtime's id for it, unique while it is pending (the harness's own request id).
    pub id: String,
    /// The tool call it is about, when the harness names it (matches `RuntimeEvent::ToolCall`).
    pub tool_call_id: Option<String>,
    pub subject: ApprovalSubject,
    /// Why the harness asks, when it says (Codex's `reason`).
    pub reason: Option<String>,
    /// What "approve for this session" makes the harness remember, in words, one line per
    /// rule it will add (Claude's rules re-scoped to the session, Codex's grant root). Empty:
    /// the harness cannot remember this approval, and only "approve once" is offered. Never
    /// broader than these lines say ("a decision covers exactly what the card showed").
    pub session_rules: Vec<String>,
    /// Whether the command would run outside the harness's sandbox (Claude's Bash
    /// `dangerouslyDisableSandbox`, Codex's escalated sandbox permissions): shown on the card,
    /// and part of what a grant covers (review L-2).
    pub unsandboxed: bool,
}

impl ApprovalRequest {
    /// Whether the harness can remember an approval for the rest of the session.
    pub fn can_approve_for_session(&self) -> bool {
        !self.session_rules.is_empty()
    }
}

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Let this one call run.
    Approve,
    /// Let it run, and the same kind of call for the rest of this session without asking.
    ApproveForSession,
    /// Refuse; the model is told and the turn goes on.
    Decline,
    /// Refuse and stop the turn.
    DeclineAndStop,
}

impl ApprovalDecision {
    pub fn approves(self) -> bool {
        matches!(
            self,
            ApprovalDecision::Approve | ApprovalDecision::ApproveForSession
        )
    }

    /// Its name in logs.
    pub fn name(self) -> &'static str {
        match self {
            ApprovalDecision::Approve => "approve",
            ApprovalDecision::ApproveForSession => "approve_for_session",
            ApprovalDecision::Decline => "decline",
            ApprovalDecision::DeclineAndStop => "decline_and_stop",
        }
    }
}

/// How much a harness may do without asking, in the harness's own words: Claude's
/// `--permission-mode` (`default`, `acceptEdits`, `plan`, `bypassPermissions`, …), Codex's
/// approval policy (`untrusted`, `on-request`, `never`) with its sandbox (`read-only`,
/// `workspace-write`, `danger-full-access`). `None` leaves the harness's own default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionMode {
    pub mode: Option<String>,
    pub sandbox: Option<String>,
}

/// The words a harness accepts for [`PermissionMode`]; empty where it has no such choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermissionChoices {
    pub modes: &'static [&'static str],
    pub sandboxes: &'static [&'static str],
}

impl PermissionChoices {
    pub const NONE: PermissionChoices = PermissionChoices {
        modes: &[],
        sandboxes: &[],
    };

    /// Whether `mode` uses only words this harness accepts.
    pub fn accepts(&self, mode: &PermissionMode) -> bool {
        let ok = |value: &Option<String>, words: &[&str]| {
            value.as_deref().is_none_or(|v| words.contains(&v))
        };
        ok(&mode.mode, self.modes) && ok(&mode.sandbox, self.sandboxes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_accept_only_their_own_words() {
        let claude = PermissionChoices {
            modes: &["default", "acceptEdits"],
            sandboxes: &[],
        };
        assert!(claude.accepts(&PermissionMode::default()));
        assert!(claude.accepts(&PermissionMode {
            mode: Some("acceptEdits".into()),
            sandbox: None
        }));
        assert!(!claude.accepts(&PermissionMode {
            mode: Some("yolo".into()),
            sandbox: None
        }));
        assert!(!claude.accepts(&PermissionMode {
            mode: None,
            sandbox: Some("read-only".into())
        }));
        assert!(PermissionChoices::NONE.accepts(&PermissionMode::default()));
    }

    #[test]
    fn only_the_approvals_approve() {
        assert!(ApprovalDecision::Approve.approves());
        assert!(ApprovalDecision::ApproveForSession.approves());
        assert!(!ApprovalDecision::Decline.approves());
        assert!(!ApprovalDecision::DeclineAndStop.approves());
    }
}
