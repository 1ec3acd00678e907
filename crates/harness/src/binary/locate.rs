//! Finding a harness binary: `FORKHOST_{CLAUDE,CODEX,PI}_BIN` wins, else the first match in
//! the search folders ([`crate::search_path`]: `PATH` as the user's shell has it, `PATHEXT` on
//! Windows).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::search_path::{self, Entry, Origin, SearchPath};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// How a binary was found, for `doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// `FORKHOST_*_BIN` (the app sets it from the path saved in Settings).
    Override,
    /// This process's `PATH`.
    Path,
    /// The login shell's `PATH` (a GUI launch).
    LoginShell,
    /// A usual install folder no `PATH` named (`~/.local/bin`, Homebrew, nvm…).
    Fallback,
}

impl FoundBy {
    pub fn as_str(self) -> &'static str {
        match self {
            FoundBy::Override => "override",
            FoundBy::Path => "path",
            FoundBy::LoginShell => "login_shell",
            FoundBy::Fallback => "fallback",
        }
    }
}

impl From<Origin> for FoundBy {
    fn from(origin: Origin) -> Self {
        match origin {
            Origin::Path => FoundBy::Path,
            Origin::LoginShell => FoundBy::LoginShell,
            Origin::Fallback => FoundBy::Fallback,
        }
    }
}

/// A binary's path and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    pub path: PathBuf,
    pub found_by: FoundBy,
}

/// The binary's path: the override variable if set, else a search like the user's shell's.
pub fn locate(kind: HarnessKind) -> HarnessResult<PathBuf> {
    locate_detailed(kind).map(|l| l.path)
}

/// [`locate`], saying how the binary was found.
pub fn locate_detailed(kind: HarnessKind) -> HarnessResult<Located> {
    locate_in(
        kind,
        std::env::var_os(kind.bin_env()),
        search_path::global(),
        search_path::pathext().as_deref(),
        cfg!(windows),
        search_path::fs_entry,
    )
}

/// The binary at a path the user chose while the app runs (it wins over the variable).
pub fn locate_chosen(kind: HarnessKind, path: &str) -> HarnessResult<Located> {
    locate_in(
        kind,
        Some(OsString::from(path)),
        search_path::global(),
        search_path::pathext().as_deref(),
        cfg!(windows),
        search_path::fs_entry,
    )
}

/// [`locate_detailed`] over given inputs, so Windows lookups are tested anywhere.
pub fn locate_in(
    kind: HarnessKind,
    override_path: Option<OsString>,
    search: &SearchPath,
    pathext: Option<&str>,
    windows: bool,
    entry: impl Fn(&Path) -> Entry,
) -> HarnessResult<Located> {
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    if let Some(value) = override_path.filter(|v| !v.is_empty()) {
        let text = value.to_string_lossy().trim().to_owned();
        return match check_given(&text, search, pathext, windows, &entry) {
            Ok(path) => Ok(Located {
                path,
                found_by: FoundBy::Override,
            }),
            // The app hands the path saved in Settings over as this variable.
            Err(why) => Err(not_found(format!(
                "{} (the path saved in Settings, or set in the environment) is {text}, but {why}",
                kind.bin_env()
            ))),
        };
    }
    let name = kind.as_str();
    let dirs: Vec<PathBuf> = search.dirs().map(Path::to_path_buf).collect();
    let lookup = search_path::find_program(name, &dirs, pathext, windows, &entry);
    match lookup.found {
        Some(path) => {
            let found_by = lookup
                .found_in
                .as_deref()
                .and_then(|dir| search.origin_of(dir))
                .map_or(FoundBy::Path, FoundBy::from);
            Ok(Located { path, found_by })
        }
        None => {
            let mut detail = format!(
                "`{name}` is not on PATH ({} folders searched) and {} is not set",
                dirs.len(),
                kind.bin_env()
            );
            for rejected in &lookup.rejected {
                detail.push_str("; ");
                detail.push_str(&rejected.describe(name));
            }
            Err(not_found(detail))
        }
    }
}

/// A program the user named (a path, `~/…`, or a bare name looked up in `search`), checked
/// like a `PATH` search would; the error says why it cannot be started.
pub(super) fn check_given(
    text: &str,
    search: &SearchPath,
    pathext: Option<&str>,
    windows: bool,
    entry: &impl Fn(&Path) -> Entry,
) -> Result<PathBuf, String> {
    if search_path::is_bare_name(text) {
        let dirs: Vec<PathBuf> = search.dirs().map(Path::to_path_buf).collect();
        let lookup = search_path::find_program(text, &dirs, pathext, windows, entry);
        return lookup.found.ok_or_else(|| {
            let mut why = format!("no `{text}` is on PATH");
            for rejected in &lookup.rejected {
                why.push_str("; ");
                why.push_str(&rejected.describe(text));
            }
            why
        });
    }
    let path = crate::home::expand_tilde(text);
    // The program's name for the hint ("use claude.cmd"), by the given OS's separators.
    let shown = path.to_string_lossy();
    let file = if windows {
        shown.rsplit(['/', '\\']).next().unwrap_or_default()
    } else {
        shown.rsplit('/').next().unwrap_or_default()
    };
    let stem = file.split('.').next().unwrap_or_default().to_owned();
    search_path::check_program_path(&path, pathext, windows, entry).map_err(|rejected| {
        match rejected {
            Some(rejected) => rejected.describe(&stem),
            None => format!("{} does not exist", path.display()),
        }
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn search(dirs: &[&Path]) -> SearchPath {
        SearchPath::new(
            [(dirs.iter().map(|d| d.to_path_buf()).collect(), Origin::Path)],
            cfg!(windows),
        )
    }

    fn locate_here(
        kind: HarnessKind,
        over: Option<&str>,
        dirs: &[&Path],
    ) -> HarnessResult<Located> {
        locate_in(
            kind,
            over.map(OsString::from),
            &search(dirs),
            None,
            cfg!(windows),
            search_path::fs_entry,
        )
    }

    #[test]
    fn a_missing_binary_is_harness_not_found() {
        let err = locate_here(HarnessKind::Pi, Some("/nonexistent/forkhost/pi"), &[]).unwrap_err();
        assert!(matches!(
            err,
            HarnessError::HarnessNotFound {
                harness: HarnessKind::Pi,
                ..
            }
        ));
        assert!(err.to_string().contains("does not exist"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = locate_here(HarnessKind::Codex, None, &[dir.path()]).unwrap_err();
        assert!(err.to_string().contains("not on PATH"), "{err}");
    }

    #[cfg(unix)]
    pub(in crate::binary) fn executable(path: &Path, text: &str) {
        forkhost_test_script::write_executable(path, text).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn finds_an_executable_on_path_and_skips_plain_files() {
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("claude"), "not executable").unwrap();
        let real = tempfile::tempdir().unwrap();
        let bin = real.path().join("claude");
        executable(&bin, "#!/bin/sh\necho 9.9.9\n");
        let found = locate_here(HarnessKind::Claude, None, &[plain.path(), real.path()]).unwrap();
        assert_eq!(
            found,
            Located {
                path: bin.clone(),
                found_by: FoundBy::Path
            }
        );
        let err = locate_here(HarnessKind::Claude, None, &[plain.path()]).unwrap_err();
        assert!(err.to_string().contains("not executable"), "{err}");
        // The override goes through the same check, and a bare name is searched for.
        let over = locate_here(
            HarnessKind::Claude,
            Some("claude"),
            &[plain.path(), real.path()],
        )
        .unwrap();
        assert_eq!(over.found_by, FoundBy::Override);
        assert_eq!(over.path, bin);
        let plain_file = plain.path().join("claude");
        let err = locate_here(HarnessKind::Claude, plain_file.to_str(), &[]).unwrap_err();
        assert!(
            err.to_string()
                .contains("FORKHOST_CLAUDE_BIN (the path saved in Settings"),
            "{err}"
        );
        assert!(err.to_string().contains("not executable"), "{err}");
    }

    #[test]
    fn windows_lookups_find_the_cmd_shim_and_refuse_the_sh_one() {
        let files = |p: &Path| match &*p.to_string_lossy() {
            r"C:\Users\me\AppData\Roaming\npm\claude" => Entry::File {
                executable: true,
                script: true,
            },
            r"C:\Users\me\AppData\Roaming\npm\claude.cmd" => Entry::File {
                executable: true,
                script: false,
            },
            r"C:\tools\codex" => Entry::File {
                executable: true,
                script: true,
            },
            _ => Entry::Missing,
        };
        let search = SearchPath::new(
            [
                (vec![PathBuf::from(r"C:\Windows\system32")], Origin::Path),
                (
                    vec![PathBuf::from(r"C:\Users\me\AppData\Roaming\npm")],
                    Origin::Fallback,
                ),
                (vec![PathBuf::from(r"C:\tools")], Origin::Fallback),
            ],
            true,
        );
        let found = locate_in(HarnessKind::Claude, None, &search, None, true, files).unwrap();
        assert_eq!(
            found,
            Located {
                path: PathBuf::from(r"C:\Users\me\AppData\Roaming\npm\claude.cmd"),
                found_by: FoundBy::Fallback
            }
        );
        let err = locate_in(HarnessKind::Codex, None, &search, None, true, files).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(r"found `codex` at C:\tools\codex but it is a shell script"),
            "{text}"
        );
        assert!(text.contains("codex.cmd"), "{text}");
        let err = locate_in(
            HarnessKind::Codex,
            Some(r"C:\tools\codex".into()),
            &search,
            None,
            true,
            files,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("FORKHOST_CODEX_BIN (the path saved"),
            "{err}"
        );
        assert!(err.to_string().contains("use codex.cmd"), "{err}");
        let over = locate_in(
            HarnessKind::Claude,
            Some(r"C:\Users\me\AppData\Roaming\npm\claude".into()),
            &search,
            None,
            true,
            files,
        )
        .unwrap();
        assert_eq!(
            over.path,
            PathBuf::from(r"C:\Users\me\AppData\Roaming\npm\claude.cmd")
        );
    }
}
