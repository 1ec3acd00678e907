//! Harness adapters: one module per harness CLI (Claude Code, Codex, Pi), each implementing
//! the [`Harness`] contract.
//!
//! Layers, bottom up: [`contract`] (the traits and the types they speak in, with [`history`],
//! [`kind`] and [`error`]) and the shared layers ([`process`], `rpc` the line-protocol client,
//! `tree`/`jsonl`/`scan` for transcripts); the harness modules, which implement the contract
//! over them; `registry` (kind → harness, the only place naming every harness); and
//! [`runtime`], [`binary`] and [`verified`], which the Host calls and which ask the trait.

pub mod acp;
pub mod binary;
pub mod carry;
pub mod claude;
pub mod codex;
pub mod contract;
pub mod error;
pub mod history;
pub mod home;
pub mod kind;
pub mod login_shell;
pub mod pi;
pub mod process;
mod registry;
pub mod runtime;
pub mod search_path;
pub mod setup;
pub mod verified;

mod jsonl;
mod messages;
mod private_files;
mod rpc;
mod scan;
mod tree;

pub use contract::{
    Answer, ApprovalDecision, ApprovalRequest, ApprovalSubject, Awaited, Capabilities, Cut,
    EventSender, ForkRequest, Forked, Harness, HarnessBinary, LiveRuntime, NativeSession, OpenSpec,
    PendingFork, PermissionChoices, PermissionMode, Question, Reply, RuntimeEvent, Seed,
    SeedRequest, SessionTarget, TurnOutcome, TurnUsage, WarmSpare,
};
pub use error::{HarnessError, HarnessResult};
pub use history::{
    Appended, History, HistoryError, Message, Role, SessionReader, ToolCall, Turn, TurnAnchor,
};
pub use kind::HarnessKind;
pub use registry::{open_reader, read_history, session_present};
pub use runtime::Runtime;
pub use verified::VersionSupport;
