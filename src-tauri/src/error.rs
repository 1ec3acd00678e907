//! The one error shape every command returns: the Host's stable code plus a readable message.

pub use forkhost_core::ErrorCode;
use serde::Serialize;

/// The app's own error codes, beside the Host's [`ErrorCode`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum AppErrorCode {
    /// A window or tab could not be made, found or changed.
    Window,
    Terminal,
    Settings,
    /// Installing or removing the command-line tool.
    CliTool,
    Update,
}

impl AppErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            AppErrorCode::Window => "window",
            AppErrorCode::Terminal => "terminal",
            AppErrorCode::Settings => "settings",
            AppErrorCode::CliTool => "cli_tool",
            AppErrorCode::Update => "update",
        }
    }
}

/// Any code a command fails with: the Host's or the app's, serialized as its bare word (so in
/// TypeScript the union of both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(untagged)]
#[ts(export)]
pub enum CommandErrorCode {
    Host(ErrorCode),
    App(AppErrorCode),
}

impl CommandErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            CommandErrorCode::Host(code) => code.as_str(),
            CommandErrorCode::App(code) => code.as_str(),
        }
    }
}

impl std::fmt::Display for CommandErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl From<ErrorCode> for CommandErrorCode {
    fn from(code: ErrorCode) -> Self {
        CommandErrorCode::Host(code)
    }
}

impl From<AppErrorCode> for CommandErrorCode {
    fn from(code: AppErrorCode) -> Self {
        CommandErrorCode::App(code)
    }
}

/// A failed command, as the UI receives it (the rejection value of `invoke`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CommandError {
    /// A stable snake_case code: the Host's (`thread_not_found`, `busy`, …) or the app's own
    /// (`window`, `terminal`, `settings`, …).
    pub code: CommandErrorCode,
    pub message: String,
    /// With `invalid_input` for a folder whose trust is undecided: that folder, to ask about.
    // Boxed: every command's `Err` carries this type, and the view is large next to the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub trust: Option<Box<forkhost_core::TrustView>>,
}

impl CommandError {
    pub fn new(code: impl Into<CommandErrorCode>, message: impl Into<String>) -> Self {
        CommandError {
            code: code.into(),
            message: message.into(),
            trust: None,
        }
    }
}

impl From<forkhost_core::HostError> for CommandError {
    fn from(err: forkhost_core::HostError) -> Self {
        CommandError {
            trust: err.undecided_trust().cloned().map(Box::new),
            ..CommandError::new(err.error_code(), err.to_string())
        }
    }
}

impl From<tauri::Error> for CommandError {
    fn from(err: tauri::Error) -> Self {
        CommandError::new(AppErrorCode::Window, err.to_string())
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
            digest: None,
        };
        let err = CommandError::from(forkhost_core::HostError::TrustUndecided(view.clone()));
        assert_eq!(err.code, ErrorCode::InvalidInput.into());
        assert_eq!(err.trust, Some(Box::new(view)));
        let json = serde_json::to_value(&err).unwrap();
        assert_eq!(json["code"], "invalid_input");
        assert_eq!(json["trust"]["root"], "/p");

        let other = CommandError::from(forkhost_core::HostError::InvalidInput("x".into()));
        assert_eq!(other.trust, None);
        let json = serde_json::to_value(&other).unwrap();
        assert!(json.get("trust").is_none(), "{json}");
    }

    #[test]
    fn app_codes_serialize_as_their_bare_words() {
        for code in [
            AppErrorCode::Window,
            AppErrorCode::Terminal,
            AppErrorCode::Settings,
            AppErrorCode::CliTool,
            AppErrorCode::Update,
        ] {
            let json = serde_json::to_value(CommandErrorCode::from(code)).unwrap();
            assert_eq!(json, code.as_str());
        }
        let json = serde_json::to_value(CommandErrorCode::from(ErrorCode::Busy)).unwrap();
        assert_eq!(json, "busy");
    }
}
