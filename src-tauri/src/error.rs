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
    /// With `invalid_input` for a folder whose trust is undecided: that folder, to ask about.
    // Boxed: every command's `Err` carries this type, and the view is large next to the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub trust: Option<Box<forkhost_core::TrustView>>,
}

impl CommandError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        CommandError {
            code: code.to_owned(),
            message: message.into(),
            trust: None,
        }
    }
}

impl From<forkhost_core::HostError> for CommandError {
    fn from(err: forkhost_core::HostError) -> Self {
        CommandError {
            trust: err.undecided_trust().cloned().map(Box::new),
            ..CommandError::new(err.code(), err.to_string())
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trust_refusal_carries_its_folder_and_other_errors_do_not() {
        let view = forkhost_core::TrustView {
            root: "/p".into(),
            config: vec![".pi".into()],
            trusted: None,
            changed: Vec::new(),
        };
        let err = CommandError::from(forkhost_core::HostError::TrustUndecided(view.clone()));
        assert_eq!(err.code, "invalid_input");
        assert_eq!(err.trust, Some(Box::new(view)));
        let json = serde_json::to_value(&err).unwrap();
        assert_eq!(json["trust"]["root"], "/p");

        let other = CommandError::from(forkhost_core::HostError::InvalidInput("x".into()));
        assert_eq!(other.trust, None);
        let json = serde_json::to_value(&other).unwrap();
        assert!(json.get("trust").is_none(), "{json}");
    }
}
