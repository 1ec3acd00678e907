//! What a harness's native session says, in the Host's words: turns, their anchors, and the
//! messages inside them.
//!
//! These types are the Host's view of a conversation and are serialized as they are (they
//! become the UI's types). Message text is never stored by Forkhost: a reader indexes the
//! native file once ([`TurnAnchor`]s: coordinates only) and materializes text on demand
//! ([`SessionReader::turn`], [`SessionReader::history`]).
//!
//! Anchors per harness (details in each harness's `history` module):
//!
//! | harness | native turn ref | native checkpoint ref |
//! | --- | --- | --- |
//! | Claude Code | `uuid` of the user record that opens the turn | `uuid` of the turn's last assistant record (`--resume-session-at`) |
//! | Codex | the turn id | the turn id (`thread/fork` `lastTurnId`) |
//! | Pi | `id` of the user message entry (RPC `fork` takes it) | `id` of the turn's last entry |

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::contract::TurnUsage;
use crate::HarnessKind;

/// A native session read up to its last complete line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    pub harness: HarnessKind,
    /// The harness's id for this session (Claude session id, Codex thread id, Pi session id).
    pub session_id: Option<String>,
    /// Where the harness recorded this session's source, if it is a fork: Codex
    /// `forked_from_id` (a thread id), Pi `parentSession` (a file path). Claude records no
    /// lineage; its forks share record uuids with their source instead.
    pub forked_from: Option<String>,
    pub turns: Vec<Turn>,
    /// The native coordinate of the conversation's tip: Claude record uuid, Codex turn id,
    /// Pi entry id.
    pub leaf: Option<String>,
    /// Bytes of the (last) native file consumed: the end of its last complete line. A line
    /// the harness is still writing lies beyond it and is read next time.
    pub read_to: u64,
}

/// One user prompt and everything the harness produced until the next prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub native_turn_ref: String,
    pub native_checkpoint_ref: Option<String>,
    pub messages: Vec<Message>,
    /// False while the harness may still add to the turn (a reply or a tool result is
    /// pending). Judged from the file alone: a turn cut short by a dead process stays
    /// incomplete until the next prompt.
    pub complete: bool,
    /// The turn's tokens as the native file records them, summed over its model calls, each
    /// call counted once (`None`: the file records none). Claude's transcript and Codex's
    /// rollout carry no price, so their `cost_usd` is `None`; Pi's carries its own.
    #[serde(default)]
    pub usage: Option<TurnUsage>,
    /// The model of the turn's last model call, as the file names it.
    #[serde(default)]
    pub model: Option<String>,
}

#[cfg(test)]
impl TurnAnchor {
    /// An anchor for tests: `turn` and its `checkpoint`, complete or not.
    pub(crate) fn of(turn: &str, checkpoint: Option<&str>, complete: bool) -> Self {
        TurnAnchor {
            native_turn_ref: turn.into(),
            native_checkpoint_ref: checkpoint.map(Into::into),
            complete,
        }
    }
}

impl Turn {
    pub fn anchor(&self) -> TurnAnchor {
        TurnAnchor {
            native_turn_ref: self.native_turn_ref.clone(),
            native_checkpoint_ref: self.native_checkpoint_ref.clone(),
            complete: self.complete,
        }
    }
}

/// A turn's coordinates without its text: what an index pass produces and the store keeps.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TurnAnchor {
    /// Identifies the turn in the native session (see each harness module for what it is).
    pub native_turn_ref: String,
    /// Where a fork "after this turn" cuts, in the harness's own coordinates; `None` when the
    /// harness offers no cut there (no reply yet, or a legacy turn without a native id).
    pub native_checkpoint_ref: Option<String>,
    pub complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    /// A tool call and (once it came back) its result; the content is in [`Message::tool`].
    Tool,
    /// Anything else the harness recorded in the conversation (compaction summaries, meta
    /// prompts, interruptions, harness errors).
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub text: String,
    pub tool: Option<ToolCall>,
    /// A human-readable error the harness recorded in place of (or after) a reply.
    pub error: Option<String>,
    /// The native record this message came from (Claude record uuid, Codex item id, Pi entry
    /// id), when it has one.
    pub native_ref: Option<String>,
}

impl Message {
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        Message {
            role,
            text: text.into(),
            tool: None,
            error: None,
            native_ref: None,
        }
    }

    pub(crate) fn with_ref(mut self, native_ref: Option<impl Into<String>>) -> Self {
        self.native_ref = native_ref.map(Into::into);
        self
    }

    pub(crate) fn for_tool(call: ToolCall) -> Self {
        Message {
            tool: Some(call),
            ..Message::new(Role::Tool, "")
        }
    }

    pub(crate) fn error(role: Role, error: impl Into<String>) -> Self {
        Message {
            error: Some(error.into()),
            ..Message::new(role, "")
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The harness's call id (joins a call with its result).
    pub id: Option<String>,
    pub name: String,
    pub input: serde_json::Value,
    /// `None` until the result is recorded.
    pub output: Option<String>,
    pub is_error: bool,
}

/// What one incremental read changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appended {
    /// Bytes consumed by this read (complete lines only).
    pub bytes: u64,
    /// Anchors from this index on were added or may have changed; earlier ones are untouched.
    pub first_changed_turn: usize,
    /// The file no longer continued what was read before (it shrank or was rewritten), so it
    /// was indexed again from the start.
    pub reset: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("native session not found: {}", path.display())]
    SessionNotFound { path: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("turn {index} does not exist (the session has {len} turns)")]
    TurnNotFound { index: usize, len: usize },
}

impl HistoryError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::NotFound {
            HistoryError::SessionNotFound {
                path: path.to_owned(),
            }
        } else {
            HistoryError::Io {
                path: path.to_owned(),
                source,
            }
        }
    }
}

/// A native session file, indexed once and then followed as the harness appends to it.
///
/// Opening indexes the whole file (turns and anchors, no text); [`read_appended`] indexes
/// only the bytes appended since, so its cost follows the appended bytes, not the file.
///
/// [`read_appended`]: SessionReader::read_appended
pub trait SessionReader: Send + Sync {
    fn kind(&self) -> HarnessKind;
    fn path(&self) -> &Path;
    /// The end of the last complete line consumed.
    fn read_to(&self) -> u64;
    fn anchors(&self) -> &[TurnAnchor];
    fn leaf(&self) -> Option<&str>;
    /// Index what the harness appended since the last read.
    fn read_appended(&mut self) -> Result<Appended, HistoryError>;
    /// Materialize one turn's messages from the native file.
    fn turn(&self, index: usize) -> Result<Turn, HistoryError>;
    /// Materialize every turn.
    fn history(&self) -> Result<History, HistoryError>;
}
