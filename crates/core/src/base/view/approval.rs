//! A pending approval request as the app and the CLI see it.

use std::path::PathBuf;

use forkhost_harness::{ApprovalSubject, Question};
use serde::{Deserialize, Serialize};

/// A pending request as the app and the CLI see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ApprovalView {
    /// Its id in this Host; answer with this id. It names the runtime that raised it as well
    /// as the harness's own id, which repeats across processes (Codex numbers from `0` in
    /// each app-server), so an answer can never reach a later process's request.
    pub id: String,
    /// The harness's own id, within the runtime that raised it.
    #[serde(skip)]
    #[ts(skip)]
    pub native_id: String,
    /// Which turn of this runtime raised it (1 for the first turn sent to the process).
    #[ts(type = "number")]
    pub turn: u64,
    /// The tool call it is about, when the harness names it (matches `tool_call` events).
    pub tool_call_id: Option<String>,
    pub subject: SubjectView,
    /// Why the harness asks, when it says.
    pub reason: Option<String>,
    /// Whether "approve for this session" means something to this harness.
    pub can_approve_for_session: bool,
    /// What "Always this session" adds, one line each, for the card to list: the harness's
    /// own session rules, then Forkhost's (exactly this request, should the harness process
    /// start again). Empty when only "approve once" is offered.
    pub session_rules: Vec<String>,
}

/// What the harness wants to do (the contract's `ApprovalSubject`, exported to the UI).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum SubjectView {
    Command {
        command: String,
        #[ts(type = "string | null")]
        cwd: Option<PathBuf>,
        /// It would run outside the harness's sandbox (review L-2); left out when not.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[ts(as = "Option<bool>", optional)]
        unsandboxed: bool,
    },
    FileChange {
        paths: Vec<String>,
        diff: Option<String>,
    },
    Tool {
        name: String,
        #[ts(type = "unknown")]
        input: serde_json::Value,
    },
    /// Questions, answered with [`Host::answer_question`] (one text per question).
    Question { questions: Vec<QuestionView> },
}

/// One question of a question request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct QuestionView {
    /// A short label, when the harness gives one.
    pub header: Option<String>,
    pub prompt: String,
    /// The answers offered; empty when only free text fits.
    pub options: Vec<String>,
    /// Whether an answer other than the options is taken.
    pub free_text: bool,
}

impl From<Question> for QuestionView {
    fn from(q: Question) -> Self {
        QuestionView {
            header: q.header,
            prompt: q.prompt,
            options: q.options,
            free_text: q.free_text,
        }
    }
}

impl From<ApprovalSubject> for SubjectView {
    fn from(subject: ApprovalSubject) -> Self {
        match subject {
            ApprovalSubject::Command { command, cwd } => SubjectView::Command {
                command,
                cwd,
                unsandboxed: false,
            },
            ApprovalSubject::FileChange { paths, diff } => SubjectView::FileChange { paths, diff },
            ApprovalSubject::Tool { name, input } => SubjectView::Tool { name, input },
            ApprovalSubject::Question { questions } => SubjectView::Question {
                questions: questions.into_iter().map(Into::into).collect(),
            },
        }
    }
}
