//! Where harness binaries are looked up, and the `PATH` their processes get.
//!
//! Looked up like the user's shell does: on Windows each `PATHEXT` extension per folder (npm
//! installs `claude` as an sh script next to `claude.cmd`; only the `.cmd` starts), on Unix an
//! executable file. The folders are this process's `PATH`, on a GUI launch preceded by the login
//! shell's (see [`crate::login_shell`]), followed by where the installers put binaries when rc
//! files were not read (`~/.local/bin`, Homebrew, the npm prefix, nvm/volta/asdf/mise). Harness
//! children get the same list as their `PATH`, so an npm shim's `#!/usr/bin/env node` and the
//! agents' own tools (git, npm, cargo) resolve as in a terminal.
//!
//! Every decision is a pure function over the inputs (folders, `PATHEXT`, a file probe, the
//! OS), so Windows and macOS inputs are tested on Linux; [`global`] computes the real one once
//! per process.

mod fallback;
mod lookup;
mod process;
#[cfg(test)]
mod search_path_tests;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use fallback::fallback_dirs;
pub use lookup::{
    check_program_path, find_program, fs_entry, is_bare_name, startable_extensions, Entry, Lookup,
    Reason, Rejected, DEFAULT_PATHEXT,
};
pub use process::{child_path, find, global, pathext, start_for_app};

/// Where a search folder came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// This process's `PATH`.
    Path,
    /// The login shell's `PATH`, read at start (GUI launches).
    LoginShell,
    /// A folder installers use, searched although no `PATH` named it.
    Fallback,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Path => "PATH",
            Origin::LoginShell => "the login shell's PATH",
            Origin::Fallback => "a usual install folder",
        })
    }
}

/// The folders to search, in order, each with its origin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchPath {
    dirs: Vec<(PathBuf, Origin)>,
    windows: bool,
}

impl SearchPath {
    /// Folders in order; a folder named twice keeps its first place.
    pub fn new(lists: impl IntoIterator<Item = (Vec<PathBuf>, Origin)>, windows: bool) -> Self {
        let mut dirs: Vec<(PathBuf, Origin)> = Vec::new();
        for (list, origin) in lists {
            for dir in list {
                let key = dir_key(&dir, windows);
                if !dir.as_os_str().is_empty()
                    && !dirs.iter().any(|(d, _)| dir_key(d, windows) == key)
                {
                    dirs.push((dir, origin));
                }
            }
        }
        SearchPath { dirs, windows }
    }

    pub fn dirs(&self) -> impl Iterator<Item = &Path> {
        self.dirs.iter().map(|(d, _)| d.as_path())
    }

    pub fn entries(&self) -> &[(PathBuf, Origin)] {
        &self.dirs
    }

    /// Where `dir` (one of the search folders) came from.
    pub fn origin_of(&self, dir: &Path) -> Option<Origin> {
        let key = dir_key(dir, self.windows);
        self.dirs
            .iter()
            .find(|(d, _)| dir_key(d, self.windows) == key)
            .map(|(_, o)| *o)
    }

    /// The folders as one `PATH` value (`;`-joined on Windows, `:` elsewhere). A folder that
    /// contains the separator cannot be expressed and is left out.
    pub fn to_path_var(&self) -> OsString {
        let sep = if self.windows { ";" } else { ":" };
        let mut out = OsString::new();
        for dir in self.dirs() {
            if dir.as_os_str().to_string_lossy().contains(sep) {
                continue;
            }
            if !out.is_empty() {
                out.push(sep);
            }
            out.push(dir.as_os_str());
        }
        out
    }
}

/// How a folder is compared: Windows paths are case-insensitive and `C:\x\` is `C:\x`.
fn dir_key(dir: &Path, windows: bool) -> String {
    let text = dir.to_string_lossy();
    if windows {
        text.trim_end_matches(['\\', '/'])
            .replace('/', "\\")
            .to_lowercase()
    } else {
        let trimmed = text.trim_end_matches('/');
        if trimmed.is_empty() {
            "/".into()
        } else {
            trimmed.into()
        }
    }
}

/// A `PATH`-like value split into folders. Empty entries (the current folder, to a Unix
/// shell) are dropped: a harness is never looked up relative to wherever the app started.
pub fn split_path_list(value: &OsStr, windows: bool) -> Vec<PathBuf> {
    if !windows && cfg!(unix) {
        return std::env::split_paths(value)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
    }
    let sep = if windows { ';' } else { ':' };
    value
        .to_string_lossy()
        .split(sep)
        // Windows lets a PATH entry be quoted ("C:\Program Files\x").
        .map(|s| s.trim().trim_matches('"'))
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Puts the parts together: on a GUI launch the login shell's folders come first (they are
/// what the user's terminal sees: nvm's node before a distribution's `/usr/bin/node`).
pub fn compose(
    process_path: Option<&OsStr>,
    login_path: Option<&OsStr>,
    fallback: Vec<PathBuf>,
    windows: bool,
) -> SearchPath {
    let process = process_path
        .map(|p| split_path_list(p, windows))
        .unwrap_or_default();
    let login = login_path
        .map(|p| split_path_list(p, windows))
        .unwrap_or_default();
    SearchPath::new(
        [
            (login, Origin::LoginShell),
            (process, Origin::Path),
            (fallback, Origin::Fallback),
        ],
        windows,
    )
}
