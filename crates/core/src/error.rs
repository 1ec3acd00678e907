//! The Host's typed errors. Each has a stable snake_case code that the CLI prints and the UI
//! shows in words; the codes are part of the public contract — never rename one.

use forkhost_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("thread {0} not found")]
    ThreadNotFound(String),
    #[error("the native session of {0} is gone")]
    SessionNotFound(String),
    #[error("turn {0} not found")]
    TurnNotFound(String),
    #[error("checkpoint {0} not found in the native session")]
    CheckpointNotFound(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("busy: {0}")]
    Busy(String),
    #[error("conflict: {0}")]
    Conflict(String),
    #[error("harness not found: {0}")]
    HarnessNotFound(String),
    #[error("harness failed: {0}")]
    HarnessFailed(String),
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A folder with project agent config whose trust the user has not decided yet. Its code is
    /// `invalid_input`; the view travels with it, so that a caller can ask without parsing words.
    #[error(
        "invalid input: {} has project agent config ({}) that can run commands; decide whether \
         to trust it first (forkhost: --trust yes|no)",
        .0.root,
        .0.config.join(", ")
    )]
    TrustUndecided(crate::view::TrustView),
    /// The store itself failed (disk, permissions). Not the user's doing; details are logged.
    #[error("internal error: {0}")]
    Internal(String),
}

impl HostError {
    /// The stable machine-readable name of this error.
    pub fn code(&self) -> &'static str {
        match self {
            HostError::ThreadNotFound(_) => "thread_not_found",
            HostError::SessionNotFound(_) => "session_not_found",
            HostError::TurnNotFound(_) => "turn_not_found",
            HostError::CheckpointNotFound(_) => "checkpoint_not_found",
            HostError::Unsupported(_) => "unsupported",
            HostError::Busy(_) => "busy",
            HostError::Conflict(_) => "conflict",
            HostError::HarnessNotFound(_) => "harness_not_found",
            HostError::HarnessFailed(_) => "harness_failed",
            HostError::InvalidInput(_) | HostError::TrustUndecided(_) => "invalid_input",
            HostError::Internal(_) => "internal",
        }
    }
}

impl HostError {
    /// The folder whose trust must be decided first, when that is what this error says.
    pub fn undecided_trust(&self) -> Option<&crate::view::TrustView> {
        match self {
            HostError::TrustUndecided(view) => Some(view),
            _ => None,
        }
    }
}

impl From<StoreError> for HostError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::ThreadNotFound(id) => HostError::ThreadNotFound(id),
            StoreError::TurnNotFound(id) => HostError::TurnNotFound(id),
            err @ (StoreError::Conflict { .. } | StoreError::Duplicate(_)) => {
                HostError::Conflict(err.to_string())
            }
            StoreError::InvalidInput(msg) => HostError::InvalidInput(msg),
            StoreError::Busy => HostError::Busy("the store is in use by another process".into()),
            other => {
                tracing::error!(error = %other, "store failure");
                HostError::Internal(other.to_string())
            }
        }
    }
}

pub type HostResult<T> = Result<T, HostError>;
