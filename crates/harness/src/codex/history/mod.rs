//! Reading Codex rollout files (`rollout-<ts>-<thread id>[_<revision id>].jsonl`; "Codex
//! rollout files" in `docs/harness-behaviour.md`).
//!
//! Each line is an envelope `{"timestamp","ordinal"?,"type","payload"}`. Three generations
//! are read:
//! - **paginated** (current default): turns open with `event_msg`/`task_started{turn_id}` and
//!   close with `task_complete` or `turn_aborted`; text comes from `event_msg`/`item_completed`
//!   items (`UserMessage`, `AgentMessage`). A fork or revert file does not copy its parent's
//!   lines: its `session_meta.history_base{thread_id, end_byte_offset}` names a byte prefix of
//!   another rollout, which the reader reads first (recursively; see [`CodexReader::open_with`]).
//! - **legacy** (`history_mode: "legacy"`, and older CLIs): the same envelope, text in
//!   `event_msg`/`user_message` and `agent_message`; forks copy the parent's lines. When there
//!   is no `task_started`, a user message opens a turn, as app-server does.
//! - the oldest files, without envelopes: a bare `{"id","timestamp","instructions"}` first line,
//!   then bare response items; a user message that is not injected context opens a turn.
//!
//! Tool calls come from the response items (`function_call`, `custom_tool_call`,
//! `local_shell_call`, `web_search_call`) joined with their `*_output` by `call_id`; `error`
//! events become messages with `error` set; `thread_rolled_back{num_turns}` drops turns.
//!
//! Usage: each `event_msg`/`token_count` is one model response, its `info.last_token_usage`
//! that response's tokens (`input_tokens` counting the cached ones); an event whose
//! `total_token_usage` equals the previous event's is a repeat and is skipped in the index
//! pass. The model is the turn's `turn_context.model`. No line carries a price.
//!
//! Anchors:
//! - **native turn ref**: the turn id (`task_started.turn_id`), what `thread/fork` takes as
//!   `lastTurnId`/`beforeTurnId`. A turn without an id (older files) gets a synthetic ref
//!   `@<byte offset of its first line>` that no Codex API accepts.
//! - **native checkpoint ref**: the turn id again (Codex forks at turn granularity); `None`
//!   for a synthetic ref.
//! - **complete**: `task_complete` or `turn_aborted` was written, or a later turn exists; turns
//!   without explicit boundaries (older files) count as complete.

mod reader;
mod scan;
mod text;

// The reader's usage on a recorded rollout.
#[cfg(test)]
mod usage_tests;

pub use reader::{find_rollout, CodexReader};

use crate::jsonl::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Legacy `user_message` event.
    UserEvent,
    /// `item_completed` / `UserMessage`.
    UserItem,
    AgentEvent,
    AgentItem,
    /// A response item of a tool call or its output.
    Tool,
    Error,
    Compacted,
    /// Oldest format: a bare user or assistant response item.
    BareUser,
    BareAssistant,
    /// A paginated file's enveloped user or assistant response item outside any turn: history
    /// injected with `thread/inject_items` (a conversation continued from another harness),
    /// which Codex records without turn events. Inside a turn the events carry the text.
    InjectedUser,
    InjectedAssistant,
    /// `event_msg`/`token_count` whose running total moved: one model response's usage.
    TokenCount,
    /// `turn_context`: the model the turn's responses come from.
    Context,
}

impl Kind {
    fn is_user(self) -> bool {
        matches!(
            self,
            Kind::UserEvent | Kind::UserItem | Kind::BareUser | Kind::InjectedUser
        )
    }

    /// Bookkeeping of the turn rather than what was said (usage, settings).
    fn is_meta(self) -> bool {
        matches!(self, Kind::TokenCount | Kind::Context)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Base {
    thread_id: Box<str>,
    end: u64,
}

#[derive(Debug, Default, Clone)]
struct Meta {
    id: Option<Box<str>>,
    forked_from: Option<Box<str>>,
    base: Option<Base>,
    /// `history_mode: "paginated"`: only then is an enveloped message outside a turn injected
    /// history (legacy files carry every message twice, as an item and as an event).
    paginated: bool,
}

enum Line {
    Meta(Meta),
    TurnStarted(Option<Box<str>>),
    TurnEnded {
        id: Option<Box<str>>,
    },
    Item {
        kind: Kind,
        turn_id: Option<Box<str>>,
    },
    RolledBack(usize),
    /// A `token_count` event with usage, and a fingerprint of its running total
    /// (`total_token_usage`): Codex writes the event again with the total unmoved (rate-limit
    /// refreshes, a resumed thread), and only an event that moved it is a new response.
    TokenCount {
        total: u64,
    },
}

struct Scanned {
    span: Span,
    line: Line,
}
