//! Harness adapters: one module per harness CLI (Claude Code, Codex, Pi).
//!
//! Each harness module reads its harness's native session files into the shared
//! [`history`] types: an index of turns and their anchors (coordinates only), and the turns'
//! messages materialized on demand.

pub mod binary;
pub mod claude;
pub mod codex;
pub mod error;
pub mod history;
pub mod home;
pub mod kind;
pub mod login_shell;
pub mod pi;
pub mod process;
pub mod runtime;
pub mod search_path;
pub mod verified;

mod jsonl;
mod messages;
mod scan;
mod tree;

pub use binary::{Capabilities, HarnessBinary};
pub use error::{HarnessError, HarnessResult};
pub use history::{
    open_reader, read_history, Appended, History, HistoryError, Message, Role, SessionReader,
    ToolCall, Turn, TurnAnchor,
};
pub use kind::HarnessKind;
pub use runtime::{
    Cut, EventSender, Forked, NativeSession, OpenSpec, PendingFork, Runtime, RuntimeEvent,
    SessionTarget, TurnOutcome,
};
pub use verified::VersionSupport;
