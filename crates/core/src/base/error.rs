//! The Host's typed errors. Each has a stable snake_case code that the CLI prints and the UI
//! shows in words; the codes are part of the public contract — never rename one.

use forkhost_store::StoreError;
use serde::{Deserialize, Serialize};

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("thread {0} not found")]
    ThreadNotFound(String),
    #[error("session not found: {0}")]
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
    TrustUndecided(crate::base::view::TrustView),
    /// A remote host could not be reached over SSH (no such name, refused, timed out, the
    /// remote has no forkhost): ssh's own words travel with it.
    #[error("host unreachable: {0}")]
    HostUnreachable(String),
    /// The remote host's key is not in the user's known_hosts: never accepted silently; the
    /// words name its fingerprint and how to add it.
    #[error("unknown host key: {0}")]
    HostKeyUnknown(String),
    /// The remote host's key differs from the one known_hosts holds: refused.
    #[error("host key changed: {0}")]
    HostKeyChanged(String),
    /// This forkhost and the one on the remote are different versions.
    #[error("version mismatch: {0}")]
    VersionMismatch(String),
    /// What another forkhost (a remote host's) said went wrong, passed on as it said it.
    #[error("{message}")]
    Reported { code: ErrorCode, message: String },
    /// The store itself failed (disk, permissions). Not the user's doing; details are logged.
    #[error("internal error: {0}")]
    Internal(String),
}

/// The stable machine-readable name of a [`HostError`]: what the CLI prints, the UI's type
/// checks its titles against (`ui/src/errors.ts`) and `HostEvent::Error` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorCode {
    ThreadNotFound,
    SessionNotFound,
    TurnNotFound,
    CheckpointNotFound,
    Unsupported,
    Busy,
    Conflict,
    HarnessNotFound,
    HarnessFailed,
    InvalidInput,
    HostUnreachable,
    HostKeyUnknown,
    HostKeyChanged,
    VersionMismatch,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::ThreadNotFound,
        ErrorCode::SessionNotFound,
        ErrorCode::TurnNotFound,
        ErrorCode::CheckpointNotFound,
        ErrorCode::Unsupported,
        ErrorCode::Busy,
        ErrorCode::Conflict,
        ErrorCode::HarnessNotFound,
        ErrorCode::HarnessFailed,
        ErrorCode::InvalidInput,
        ErrorCode::HostUnreachable,
        ErrorCode::HostKeyUnknown,
        ErrorCode::HostKeyChanged,
        ErrorCode::VersionMismatch,
        ErrorCode::Internal,
    ];

    /// The code a word names.
    pub fn from_word(word: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == word)
    }

    /// Its word, as serialized (a test holds the two equal).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ThreadNotFound => "thread_not_found",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::TurnNotFound => "turn_not_found",
            ErrorCode::CheckpointNotFound => "checkpoint_not_found",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Busy => "busy",
            ErrorCode::Conflict => "conflict",
            ErrorCode::HarnessNotFound => "harness_not_found",
            ErrorCode::HarnessFailed => "harness_failed",
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::HostUnreachable => "host_unreachable",
            ErrorCode::HostKeyUnknown => "host_key_unknown",
            ErrorCode::HostKeyChanged => "host_key_changed",
            ErrorCode::VersionMismatch => "version_mismatch",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl HostError {
    /// The stable code of this error.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            HostError::ThreadNotFound(_) => ErrorCode::ThreadNotFound,
            HostError::SessionNotFound(_) => ErrorCode::SessionNotFound,
            HostError::TurnNotFound(_) => ErrorCode::TurnNotFound,
            HostError::CheckpointNotFound(_) => ErrorCode::CheckpointNotFound,
            HostError::Unsupported(_) => ErrorCode::Unsupported,
            HostError::Busy(_) => ErrorCode::Busy,
            HostError::Conflict(_) => ErrorCode::Conflict,
            HostError::HarnessNotFound(_) => ErrorCode::HarnessNotFound,
            HostError::HarnessFailed(_) => ErrorCode::HarnessFailed,
            HostError::InvalidInput(_) | HostError::TrustUndecided(_) => ErrorCode::InvalidInput,
            HostError::HostUnreachable(_) => ErrorCode::HostUnreachable,
            HostError::HostKeyUnknown(_) => ErrorCode::HostKeyUnknown,
            HostError::HostKeyChanged(_) => ErrorCode::HostKeyChanged,
            HostError::VersionMismatch(_) => ErrorCode::VersionMismatch,
            HostError::Reported { code, .. } => *code,
            HostError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The stable code as a word (log fields, the CLI's output).
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }
}

impl HostError {
    /// The error another forkhost reported (a remote host's `--json` document): its code and
    /// words as they were; an unknown code is `internal`.
    pub fn reported(code: &str, message: &str) -> HostError {
        HostError::Reported {
            code: ErrorCode::from_word(code).unwrap_or(ErrorCode::Internal),
            message: message.to_owned(),
        }
    }

    /// The error a forkhost `--json` document reports (`{"error": {"code", "message"}}`),
    /// if it reports one.
    pub fn in_document(document: &serde_json::Value) -> Option<HostError> {
        let error = document.get("error")?;
        Some(HostError::reported(
            error["code"].as_str().unwrap_or("internal"),
            error["message"]
                .as_str()
                .unwrap_or("the remote command failed"),
        ))
    }

    /// The folder whose trust must be decided first, when that is what this error says.
    pub fn undecided_trust(&self) -> Option<&crate::base::view::TrustView> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_comes_back_from_its_code_and_words() {
        for code in ErrorCode::ALL {
            let err = HostError::reported(code.as_str(), "the words");
            assert_eq!(
                (err.error_code(), err.to_string()),
                (code, "the words".into())
            );
        }
        assert_eq!(HostError::reported("nonsense", "x").code(), "internal");
        let document = serde_json::json!({"error": {"code": "busy", "message": "a turn runs"}});
        let err = HostError::in_document(&document).unwrap();
        assert_eq!(
            (err.code(), err.to_string()),
            ("busy", "a turn runs".into())
        );
        assert!(HostError::in_document(&serde_json::json!({"threads": []})).is_none());
    }

    #[test]
    fn each_code_serializes_as_its_word() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str(), "{code:?}");
        }
    }
}
