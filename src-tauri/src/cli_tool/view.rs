//! What the UI sees of the command-line tool: how it goes on PATH, whether it is there, what is
//! in the way, and what the user should know.

use serde::{Deserialize, Serialize};

/// How the CLI is (or would be) put on PATH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum CliInstallKind {
    /// Installed with the app by the deb/rpm package (`/usr/bin/forkhost`): nothing to do.
    Packaged,
    /// A symbolic link to the bundled CLI (macOS, Linux builds that are not packaged).
    Symlink,
    /// A copy of the bundled CLI (AppImage: its mount point changes every run).
    Copy,
    /// The app's folder on the user `Path` (Windows).
    UserPath,
    /// No bundled CLI was found, or the action is not possible here.
    None,
}

/// A file at the install location that is not this app's CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CliConflict {
    pub path: String,
    /// What is there, in words ("a link to /opt/tools/forkhost").
    pub detail: String,
    /// False for what is never replaced (a folder): the user has to move it away.
    pub replaceable: bool,
}

/// Something the user should know; `code` is stable (`not_on_path`, `restart_terminals`,
/// `shadowed`, `version_failed`, `path_unreadable`, `no_home`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CliWarning {
    pub code: String,
    pub message: String,
}

/// Where the bundled CLI is, how it gets on PATH, and whether it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CliToolStatus {
    pub kind: CliInstallKind,
    /// The CLI beside the app; null when none was found.
    pub bundled: Option<String>,
    /// Where the app looked for it (shown when it is missing).
    pub looked_at: String,
    /// The bundled CLI's `--version` line (`forkhost 0.1.0`).
    pub bundled_version: Option<String>,
    /// The link or copy Install makes, the folder it adds to `Path` (Windows), or the
    /// package's `/usr/bin/forkhost`.
    pub target: Option<String>,
    /// A Forkhost CLI of ours is at `target` (possibly an older one: see `outdated`).
    pub installed: bool,
    /// The command a terminal runs: `target`, or `<folder>\forkhost.exe` on Windows.
    pub installed_path: Option<String>,
    /// `installed_path --version`, run just now.
    pub installed_version: Option<String>,
    /// What is installed is ours but not this app's CLI (an older copy, a link to a moved
    /// build): Install updates it without asking.
    pub outdated: bool,
    pub conflict: Option<CliConflict>,
    pub can_install: bool,
    pub can_uninstall: bool,
    /// Install or Uninstall will ask for an administrator password (macOS, `/usr/local/bin`
    /// not writable).
    pub needs_admin: bool,
    pub warnings: Vec<CliWarning>,
}
