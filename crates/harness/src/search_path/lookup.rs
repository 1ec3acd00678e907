//! Looking a program up like the user's shell does, and telling why a candidate was passed
//! over: pure functions over the folders, `PATHEXT` and a file probe.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// `PATHEXT` when the variable is unset (Windows' own default, programs first).
pub const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// Extensions `CreateProcess` (through Rust's `Command`, which runs `.cmd`/`.bat` via cmd.exe)
/// can start. `PATHEXT` also lists `.VBS`, `.JS`, `.PS1`…: a shell opens those with another
/// program, a `Command` cannot.
const STARTABLE: [&str; 4] = [".exe", ".com", ".cmd", ".bat"];

/// What is at a candidate path, as far as starting it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Missing,
    Dir,
    File {
        /// Has an execute bit (always true on Windows, where the extension decides).
        executable: bool,
        /// Starts with `#!`: an interpreter script, which Windows cannot start.
        script: bool,
    },
}

/// The real file system's answer for [`Entry`] (symlinks followed).
pub fn fs_entry(path: &Path) -> Entry {
    let Ok(meta) = std::fs::metadata(path) else {
        return Entry::Missing;
    };
    if meta.is_dir() {
        return Entry::Dir;
    }
    if !meta.is_file() {
        return Entry::Missing;
    }
    #[cfg(unix)]
    let executable = {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    };
    #[cfg(not(unix))]
    let executable = true;
    let mut head = [0u8; 2];
    let script = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok()
        && &head == b"#!";
    Entry::File { executable, script }
}

/// Why a file with the wanted name was passed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Reason {
    /// Unix: no execute permission.
    NotExecutable,
    /// A folder, not a file.
    NotAFile,
    /// Windows: no extension (npm's sh shim, a Unix binary); `script` when it starts with `#!`.
    NoExtension { script: bool },
    /// Windows: an extension `Command` cannot start (`.ps1`, `.js`…).
    NotStartable,
}

/// A file that has the wanted name but cannot be started, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejected {
    pub path: PathBuf,
    #[serde(flatten)]
    pub reason: Reason,
}

impl Rejected {
    /// The sentence `doctor` shows: what was found and what to do instead.
    pub fn describe(&self, name: &str) -> String {
        let at = self.path.display();
        match &self.reason {
            Reason::NotExecutable => format!("found `{name}` at {at} but it is not executable (chmod +x)"),
            Reason::NotAFile => format!("{at} is a folder, not a program"),
            Reason::NoExtension { script: true } => format!(
                "found `{name}` at {at} but it is a shell script, which Windows cannot start; on Windows use {name}.cmd (npm installs it next to the script) or {name}.exe"
            ),
            Reason::NoExtension { script: false } => format!(
                "found `{name}` at {at} but it has no extension, so Windows cannot start it; on Windows use {name}.cmd or {name}.exe"
            ),
            Reason::NotStartable => format!(
                "found {at} but Windows starts only .exe, .com, .cmd and .bat programs directly; use {name}.cmd or {name}.exe"
            ),
        }
    }
}

/// The result of a search: the program, or nothing, plus every near miss on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    pub found: Option<PathBuf>,
    /// The search folder it was found in.
    pub found_in: Option<PathBuf>,
    /// Files with the right name that were skipped (before the one found, or all of them).
    pub rejected: Vec<Rejected>,
}

/// The startable extensions of `PATHEXT`, lower-case, in its order.
pub fn startable_extensions(pathext: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for ext in pathext
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(DEFAULT_PATHEXT)
        .split(';')
    {
        let ext = ext.trim().to_ascii_lowercase();
        let ext = if ext.starts_with('.') {
            ext
        } else {
            format!(".{ext}")
        };
        if STARTABLE.contains(&ext.as_str()) && !out.contains(&ext) {
            out.push(ext);
        }
    }
    if out.is_empty() {
        // A PATHEXT with nothing startable would find nothing; a shell would still run .exe.
        out = vec![".exe".into(), ".cmd".into()];
    }
    out
}

/// `dir` + `name` with the OS's separator (a Windows path joined on Linux stays readable).
pub(super) fn join(dir: &Path, name: &str, windows: bool) -> PathBuf {
    if !windows {
        return dir.join(name);
    }
    let dir = dir.to_string_lossy();
    if dir.ends_with(['\\', '/']) {
        PathBuf::from(format!("{dir}{name}"))
    } else {
        PathBuf::from(format!("{dir}\\{name}"))
    }
}

/// The extension of the last component (`.cmd`), lower-case, if any.
fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let dot = name.rfind('.').filter(|&i| i > 0)?;
    Some(name[dot..].to_ascii_lowercase())
}

/// Looks `name` up in `dirs` like a shell: per folder, on Windows each startable `PATHEXT`
/// extension in order (never the bare name), on Unix the executable file.
pub fn find_program(
    name: &str,
    dirs: &[PathBuf],
    pathext: Option<&str>,
    windows: bool,
    entry: impl Fn(&Path) -> Entry,
) -> Lookup {
    let mut lookup = Lookup::default();
    for dir in dirs {
        if let Some(found) = check_in_dir(name, dir, pathext, windows, &entry, &mut lookup.rejected)
        {
            lookup.found = Some(found);
            lookup.found_in = Some(dir.clone());
            return lookup;
        }
    }
    lookup
}

fn check_in_dir(
    name: &str,
    dir: &Path,
    pathext: Option<&str>,
    windows: bool,
    entry: &impl Fn(&Path) -> Entry,
    rejected: &mut Vec<Rejected>,
) -> Option<PathBuf> {
    if !windows {
        let candidate = join(dir, name, false);
        return match entry(&candidate) {
            Entry::File {
                executable: true, ..
            } => Some(candidate),
            Entry::File { .. } => {
                rejected.push(Rejected {
                    path: candidate,
                    reason: Reason::NotExecutable,
                });
                None
            }
            Entry::Dir | Entry::Missing => None,
        };
    }
    let exts = startable_extensions(pathext);
    let given = extension(name).filter(|e| exts.contains(e));
    if given.is_some() {
        // `claude.cmd` asked for by its full name.
        let candidate = join(dir, name, true);
        return matches!(entry(&candidate), Entry::File { .. }).then_some(candidate);
    }
    for ext in &exts {
        let candidate = join(dir, &format!("{name}{ext}"), true);
        if matches!(entry(&candidate), Entry::File { .. }) {
            return Some(candidate);
        }
    }
    // Near misses, so `doctor` can say why the sh shim npm also installs was not used.
    let bare = join(dir, name, true);
    if let Entry::File { script, .. } = entry(&bare) {
        let reason = if extension(name).is_some() {
            Reason::NotStartable
        } else {
            Reason::NoExtension { script }
        };
        rejected.push(Rejected { path: bare, reason });
    }
    let ps1 = join(dir, &format!("{name}.ps1"), true);
    if matches!(entry(&ps1), Entry::File { .. }) {
        rejected.push(Rejected {
            path: ps1,
            reason: Reason::NotStartable,
        });
    }
    None
}

/// A path the user gave (override variable, Settings), checked by the same rules: on Unix an
/// executable file; on Windows a file with a startable extension, or a path without one that
/// names such a file once an extension is added (as cmd.exe resolves `C:\npm\claude`).
pub fn check_program_path(
    path: &Path,
    pathext: Option<&str>,
    windows: bool,
    entry: impl Fn(&Path) -> Entry,
) -> Result<PathBuf, Option<Rejected>> {
    if !windows {
        return match entry(path) {
            Entry::File {
                executable: true, ..
            } => Ok(path.to_path_buf()),
            Entry::File { .. } => Err(Some(Rejected {
                path: path.to_path_buf(),
                reason: Reason::NotExecutable,
            })),
            Entry::Dir => Err(Some(Rejected {
                path: path.to_path_buf(),
                reason: Reason::NotAFile,
            })),
            Entry::Missing => Err(None),
        };
    }
    let text = path.to_string_lossy();
    let exts = startable_extensions(pathext);
    let ext = extension(&text);
    if ext.as_ref().is_some_and(|e| exts.contains(e)) {
        return match entry(path) {
            Entry::File { .. } => Ok(path.to_path_buf()),
            Entry::Dir => Err(Some(Rejected {
                path: path.to_path_buf(),
                reason: Reason::NotAFile,
            })),
            Entry::Missing => Err(None),
        };
    }
    for e in &exts {
        let candidate = PathBuf::from(format!("{text}{e}"));
        if matches!(entry(&candidate), Entry::File { .. }) {
            return Ok(candidate);
        }
    }
    match entry(path) {
        Entry::File { script, .. } => Err(Some(Rejected {
            path: path.to_path_buf(),
            reason: if ext.is_some() {
                Reason::NotStartable
            } else {
                Reason::NoExtension { script }
            },
        })),
        Entry::Dir => Err(Some(Rejected {
            path: path.to_path_buf(),
            reason: Reason::NotAFile,
        })),
        Entry::Missing => Err(None),
    }
}

/// Whether a text names a file by path rather than by a bare program name.
pub fn is_bare_name(text: &str) -> bool {
    !text.contains(['/', '\\']) && !text.starts_with('~') && !text.contains(':')
}
