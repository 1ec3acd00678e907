//! The harness layer's typed errors. The Host maps each onto its error code.

use crate::{HarnessKind, HistoryError};

#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The binary is not installed, not executable, or does not answer `--version`.
    #[error("{harness} not found: {detail}")]
    HarnessNotFound {
        harness: HarnessKind,
        detail: String,
    },

    #[error("native session not found: {0}")]
    SessionNotFound(String),

    #[error("checkpoint not found: {0}")]
    CheckpointNotFound(String),

    #[error("turn not found: {0}")]
    TurnNotFound(String),

    /// The harness (or this version of it) cannot do what was asked; never a wrong answer.
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// A turn is running, or another writer holds the session.
    #[error("busy: {0}")]
    Busy(String),

    #[error("invalid input: {0}")]
    InvalidInput(String),

    /// The harness process failed, crashed or broke its protocol. `stderr_tail` holds the last
    /// lines it wrote to stderr (harness diagnostics, not user prompts).
    #[error("{harness} failed: {message}")]
    HarnessFailed {
        harness: HarnessKind,
        message: String,
        stderr_tail: String,
    },

    /// An ACP agent's program is not installed or cannot run.
    #[error("{agent} not found: {detail}")]
    AgentNotFound { agent: String, detail: String },

    /// An ACP agent failed, crashed, hung or broke the protocol; `stderr_tail` as for
    /// [`HarnessError::HarnessFailed`].
    #[error("{agent} failed: {message}")]
    AgentFailed {
        agent: String,
        message: String,
        stderr_tail: String,
    },

    #[error(transparent)]
    History(#[from] HistoryError),
}

impl HarnessError {
    pub fn failed(
        harness: HarnessKind,
        message: impl Into<String>,
        stderr_tail: impl Into<String>,
    ) -> Self {
        HarnessError::HarnessFailed {
            harness,
            message: message.into(),
            stderr_tail: stderr_tail.into(),
        }
    }
}

pub type HarnessResult<T> = Result<T, HarnessError>;
