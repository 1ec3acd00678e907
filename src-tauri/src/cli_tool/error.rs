//! Why an install or uninstall did not happen, in words, each with its `CommandError` code.

use std::path::{Path, PathBuf};

use crate::error::{AppErrorCode, CommandError, CommandErrorCode, ErrorCode};

/// Why an install or uninstall did not happen. Each maps to a `CommandError` code.
#[derive(Debug)]
pub enum CliToolError {
    /// No `forkhost` beside the app (`unsupported`).
    NoBundledCli { looked_at: PathBuf },
    /// No home folder to install into (`unsupported`).
    NoHome,
    /// Something that is not ours is in the way and `replace` was not given (`conflict`).
    Conflict { path: PathBuf, detail: String },
    /// A folder is in the way; it is never replaced (`conflict`).
    Folder { path: PathBuf },
    /// Uninstall of what is not ours (`conflict`).
    NotOurs { path: PathBuf, detail: String },
    /// The package manager owns it (`unsupported`).
    Packaged { path: PathBuf },
    /// A file operation failed (`cli_tool`).
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The administrator prompt was refused or its command failed (`cli_tool`).
    Admin(String),
    /// Reading or writing the Windows user Path failed (`cli_tool`).
    UserPath(String),
}

impl CliToolError {
    pub fn code(&self) -> CommandErrorCode {
        match self {
            CliToolError::NoBundledCli { .. }
            | CliToolError::NoHome
            | CliToolError::Packaged { .. } => ErrorCode::Unsupported.into(),
            CliToolError::Conflict { .. }
            | CliToolError::Folder { .. }
            | CliToolError::NotOurs { .. } => ErrorCode::Conflict.into(),
            CliToolError::Io { .. } | CliToolError::Admin(_) | CliToolError::UserPath(_) => {
                AppErrorCode::CliTool.into()
            }
        }
    }
}

impl std::fmt::Display for CliToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliToolError::NoBundledCli { looked_at } => write!(
                f,
                "This copy of Forkhost has no command-line tool beside it (looked for {}).",
                looked_at.display()
            ),
            CliToolError::NoHome => {
                f.write_str("Your home folder is unknown (HOME is not set), so there is nowhere to install the command-line tool.")
            }
            CliToolError::Conflict { path, detail } => write!(
                f,
                "{} is already taken by {detail}. Confirm to replace it.",
                path.display()
            ),
            CliToolError::Folder { path } => write!(
                f,
                "{} is a folder. Move it away, then install again.",
                path.display()
            ),
            CliToolError::NotOurs { path, detail } => write!(
                f,
                "{} is {detail}, not Forkhost's command-line tool: left as it is.",
                path.display()
            ),
            CliToolError::Packaged { path } => write!(
                f,
                "{} came with the Forkhost package; uninstall the package to remove it.",
                path.display()
            ),
            CliToolError::Io {
                action,
                path,
                source,
            } => write!(f, "Could not {action} {}: {source}", path.display()),
            CliToolError::Admin(msg) | CliToolError::UserPath(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for CliToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CliToolError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<CliToolError> for CommandError {
    fn from(err: CliToolError) -> Self {
        CommandError::new(err.code(), err.to_string())
    }
}

pub(super) fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> CliToolError {
    let path = path.to_owned();
    move |source| CliToolError::Io {
        action,
        path,
        source,
    }
}
