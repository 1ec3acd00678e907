//! The Host's outward shapes: what the CLI prints as JSON and the app sends to the UI.
//! Field names are a public contract (scripts parse them): add fields, never rename.

mod approval;
mod cost;
mod fill;
mod trust;

pub use approval::{ApprovalView, QuestionView, SubjectView};
pub(crate) use cost::inherited_turns;
pub use cost::{BranchCost, CostFigure};
pub use fill::FillView;
pub use trust::{TrustDecision, TrustView};

use forkhost_harness::HarnessKind;
use forkhost_store::{Boundary, ThreadState};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ThreadView {
    pub id: String,
    pub harness: HarnessKind,
    pub cwd: String,
    pub title: String,
    pub state: ThreadState,
    pub native: NativeView,
    pub fork: Option<ForkView>,
    /// How much its harness may do without asking, in the harness's words; `null`: the
    /// harness's default.
    pub permissions: PermissionsView,
    #[ts(type = "number")]
    pub revision: i64,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct NativeView {
    pub session_id: Option<String>,
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct PermissionsView {
    /// Claude's permission mode, or Codex's approval policy.
    pub mode: Option<String>,
    /// Codex's sandbox: the one chosen, or, for a Codex thread with none chosen, the one it
    /// runs in (`sandbox_default`); never `null` for Codex (issue 39).
    pub sandbox: Option<String>,
    /// `sandbox` is the harness's default (`config.toml`'s `sandbox_mode`, else `read-only`),
    /// not a choice: the mode picker shows "default", and a fork or a change keeps none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub sandbox_default: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkView {
    pub source_thread: String,
    pub source_turn: Option<String>,
    pub boundary: Boundary,
    /// The source's harness when the fork was made: another one than the thread's own means
    /// the conversation continued in this harness. `None` for forks recorded before it was kept.
    pub source_harness: Option<HarnessKind>,
    /// `source_turn` as a 1-based number in the source (for "after turn 2"); `None` where the
    /// source turn is gone or not read yet.
    #[ts(type = "number | null")]
    pub source_turn_number: Option<i64>,
}

/// A thread with its turns and their messages, read from the native session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ThreadDetail {
    #[serde(flatten)]
    #[ts(flatten)]
    pub thread: ThreadView,
    pub turns: Vec<TurnView>,
    /// What its own turns and its inherited ones cost (docs/architecture.md "Cost").
    pub cost: BranchCost,
    /// Where it was continued from, when it came from another machine.
    #[serde(default)]
    pub moved_from: Option<crate::base::branch::BranchOrigin>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TurnView {
    pub id: String,
    /// 1-based.
    pub number: i64,
    pub native_turn_ref: String,
    pub native_checkpoint_ref: Option<String>,
    pub messages: Vec<MessageView>,
    /// Forks cut at this turn (ids), for the chip on the source message.
    pub forks: Vec<String>,
    /// Its tokens and money as the harness's session file holds them (`None`: not reported).
    pub usage: Option<forkhost_harness::TurnUsage>,
    /// The model of its last call, where the file names it.
    pub model: Option<String>,
    /// Its reply has ended (a turn still running has no figures yet).
    pub complete: bool,
    /// US dollars: the harness's own figure, else the price table's; `None`: unknown, never 0.
    pub cost_usd: Option<f64>,
    pub priced_by: crate::base::price::PricedBy,
    /// It came with the fork: the source paid for it.
    pub inherited: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct MessageView {
    /// `user`, `assistant` or `tool`.
    pub role: String,
    pub text: String,
    pub tool: Option<ToolView>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ToolView {
    pub name: String,
    #[ts(type = "unknown")]
    pub input: serde_json::Value,
    pub output: Option<String>,
    pub is_error: bool,
}

impl MessageView {
    /// The outward form of a harness message; `None` for records that are not part of the
    /// conversation a user reads (harness bookkeeping without text or error).
    pub fn from_message(m: &forkhost_harness::Message) -> Option<MessageView> {
        use forkhost_harness::Role;
        let role = match m.role {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other if m.error.is_some() => "assistant",
            Role::Other => return None,
        };
        let tool = m.tool.as_ref().map(|t| ToolView {
            name: t.name.clone(),
            input: t.input.clone(),
            output: t.output.clone(),
            is_error: t.is_error,
        });
        let text = match (&m.tool, m.text.is_empty()) {
            (Some(t), true) => match &t.output {
                Some(out) => format!("{}: {}", t.name, out),
                None => t.name.clone(),
            },
            _ => m.text.clone(),
        };
        Some(MessageView {
            role: role.to_owned(),
            text,
            tool,
            error: m.error.clone(),
        })
    }
}

/// What a fork returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkResult {
    pub thread: ThreadDetail,
    /// For a fork `before` turn T: T's prompt, to put back in the composer.
    pub prefill: Option<String>,
    /// Said to the user when the fork's files are not what they might expect (its folder is
    /// not in git; no checkpoint at that point, so it starts from the current files).
    pub files_note: Option<String>,
    /// For a fork that continues in another harness: what came over and how (every text;
    /// shell calls as the target's own; other tools as text; no reasoning, no approvals).
    pub carry_note: Option<String>,
    /// The fork's worktree is being filled (`FilesProgress` events follow, then
    /// `FilesPrepared`); a Send meanwhile waits.
    pub files_pending: bool,
    pub timing: ForkTiming,
}

/// Where a fork's time went: the harness's native call, and everything (the Host's part
/// included).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkTiming {
    /// Step 1: checks, reading the source's anchors.
    pub check_ms: f64,
    /// Step 3: the harness's native fork.
    pub native_ms: f64,
    /// Step 3 ran in a warm spare of the harness (which then became the fork's runtime).
    pub warm: bool,
    /// Step 4: reading the derived anchors and the commit.
    pub commit_ms: f64,
    /// Reading the fork back with its messages (and the prefill).
    pub read_back_ms: f64,
    pub total_ms: f64,
}
