//! The one error shape every command returns: the Host's stable code plus a readable message.

use serde::Serialize;

/// A failed command, as the UI receives it (the rejection value of `invoke`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CommandError {
    /// A stable snake_case code: the Host's (`thread_not_found`, `busy`, …) or the app's own
    /// (`window`, `terminal`, `settings`).
    pub code: String,
    pub message: String,
}

impl CommandError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        CommandError {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

impl From<forkhost_core::HostError> for CommandError {
    fn from(err: forkhost_core::HostError) -> Self {
        CommandError::new(err.code(), err.to_string())
    }
}

impl From<tauri::Error> for CommandError {
    fn from(err: tauri::Error) -> Self {
        CommandError::new("window", err.to_string())
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

pub type CmdResult<T> = Result<T, CommandError>;
