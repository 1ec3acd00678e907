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

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde::Serialize;

/// `PATHEXT` when the variable is unset (Windows' own default, programs first).
pub const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// Extensions `CreateProcess` (through Rust's `Command`, which runs `.cmd`/`.bat` via cmd.exe)
/// can start. `PATHEXT` also lists `.VBS`, `.JS`, `.PS1`…: a shell opens those with another
/// program, a `Command` cannot.
const STARTABLE: [&str; 4] = [".exe", ".com", ".cmd", ".bat"];

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
fn join(dir: &Path, name: &str, windows: bool) -> PathBuf {
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

/// Folders installers put binaries in that a GUI launch's `PATH` lacks, for `home` and the
/// variables `var` answers; only folders that exist (per `is_dir`) are kept.
pub fn fallback_dirs(
    home: Option<&Path>,
    var: &dyn Fn(&str) -> Option<OsString>,
    windows: bool,
    is_dir: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let var_dir = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if windows {
        if let Some(home) = home {
            // Claude Code's native installer.
            out.push(join(home, ".local\\bin", true));
        }
        if let Some(appdata) = var_dir("APPDATA") {
            // npm's global prefix.
            out.push(join(&appdata, "npm", true));
        }
        if let Some(volta) = var_dir("VOLTA_HOME") {
            out.push(join(&volta, "bin", true));
        }
        out.retain(|d| is_dir(d));
        return out;
    }
    if let Some(home) = home {
        out.push(home.join(".local/bin"));
    }
    out.push("/opt/homebrew/bin".into());
    out.push("/usr/local/bin".into());
    if let Some(home) = home {
        if let Some(prefix) = npm_prefix(home, var) {
            out.push(prefix.join("bin"));
        }
        out.push(home.join(".npm-global/bin"));
    }
    if let Some(bin) = var_dir("NVM_BIN") {
        out.push(bin);
    } else if let Some(nvm) = var_dir("NVM_DIR").or_else(|| home.map(|h| h.join(".nvm"))) {
        if let Some(bin) = nvm_default_bin(&nvm) {
            out.push(bin);
        }
    }
    if let Some(volta) = var_dir("VOLTA_HOME").or_else(|| home.map(|h| h.join(".volta"))) {
        out.push(volta.join("bin"));
    }
    if let Some(asdf) = var_dir("ASDF_DATA_DIR").or_else(|| home.map(|h| h.join(".asdf"))) {
        out.push(asdf.join("shims"));
    }
    let data_home = var_dir("XDG_DATA_HOME").or_else(|| home.map(|h| h.join(".local/share")));
    if let Some(mise) = var_dir("MISE_DATA_DIR").or_else(|| data_home.map(|d| d.join("mise"))) {
        out.push(mise.join("shims"));
    }
    if let Some(home) = home {
        // The agents' own tools: rustup's cargo, bun.
        out.push(
            var_dir("CARGO_HOME")
                .unwrap_or_else(|| home.join(".cargo"))
                .join("bin"),
        );
        out.push(home.join(".bun/bin"));
    }
    out.retain(|d| is_dir(d));
    out
}

/// `$NPM_CONFIG_PREFIX`, else `prefix=` in `~/.npmrc`.
fn npm_prefix(home: &Path, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(prefix) = var("NPM_CONFIG_PREFIX").or_else(|| var("npm_config_prefix")) {
        if !prefix.is_empty() {
            return Some(PathBuf::from(prefix));
        }
    }
    let npmrc = std::fs::read_to_string(home.join(".npmrc")).ok()?;
    let value = npmrc.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "prefix").then(|| value.trim().trim_matches('"').to_owned())
    })?;
    Some(crate::home::expand_tilde_with(&value, Some(home))).filter(|p| p.is_absolute())
}

/// nvm's default Node: `alias/default` names a version or a prefix (`22`, `v22.1.0`, `node`,
/// `lts/*`); the newest installed version that matches it, else the newest installed.
fn nvm_default_bin(nvm: &Path) -> Option<PathBuf> {
    let versions = nvm.join("versions/node");
    let mut installed: Vec<(Vec<u64>, String)> = std::fs::read_dir(&versions)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let parts = name
                .strip_prefix('v')?
                .split('.')
                .map(|p| p.parse().ok())
                .collect::<Option<Vec<u64>>>()?;
            Some((parts, name))
        })
        .collect();
    installed.sort();
    let alias = std::fs::read_to_string(nvm.join("alias/default")).unwrap_or_default();
    let alias = alias.trim().trim_start_matches('v');
    let numeric = !alias.is_empty() && alias.split('.').all(|p| p.parse::<u64>().is_ok());
    let chosen = installed
        .iter()
        .rev()
        .find(|(_, name)| {
            let v = &name[1..];
            !numeric || v == alias || v.starts_with(&format!("{alias}."))
        })
        .or_else(|| installed.last())?;
    Some(versions.join(&chosen.1).join("bin"))
}

/// Set by the desktop app ([`start_for_app`]).
static APP: AtomicBool = AtomicBool::new(false);

/// Whether to ask the login shell: `FORKHOST_LOGIN_SHELL` (`0`/`1`) decides when set; else only
/// the desktop app does, when it looks GUI-launched (no terminal on stdin or stderr). A
/// terminal's `PATH` is already the user's, and the CLI keeps whatever `PATH` its caller chose
/// (a script, an editor's task) without paying for a shell start on every run. Windows GUI
/// launches get the user's `PATH` from the registry.
fn wants_login_shell() -> bool {
    match std::env::var("FORKHOST_LOGIN_SHELL")
        .ok()
        .as_deref()
        .map(str::trim)
    {
        Some("0" | "false" | "off" | "no") => false,
        Some("1" | "true" | "on" | "yes") => cfg!(unix),
        _ => {
            use std::io::IsTerminal;
            APP.load(Ordering::Relaxed)
                && cfg!(unix)
                && !std::io::stdin().is_terminal()
                && !std::io::stderr().is_terminal()
        }
    }
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

static GLOBAL: OnceLock<SearchPath> = OnceLock::new();

/// This process's search folders, computed on first use (which may run the login shell, up to
/// [`crate::login_shell::TIMEOUT`]; the app calls [`start_for_app`] to do that off the main
/// thread).
pub fn global() -> &'static SearchPath {
    GLOBAL.get_or_init(|| {
        let windows = cfg!(windows);
        let process = std::env::var_os("PATH");
        let login = if wants_login_shell() {
            crate::login_shell::read_path(
                &crate::login_shell::user_shell(),
                crate::login_shell::TIMEOUT,
            )
        } else {
            None
        };
        let home = crate::home::home_dir();
        let fallback = fallback_dirs(
            home.as_deref(),
            &|name| std::env::var_os(name),
            windows,
            &|d| d.is_dir(),
        );
        let path = compose(process.as_deref(), login.as_deref(), fallback, windows);
        tracing::debug!(
            folders = path.dirs.len(),
            login_shell = login.is_some(),
            "search path ready"
        );
        path
    })
}

/// For the desktop app, at start: a launch without a terminal (Finder, the Dock, a `.desktop`
/// file) reads the login shell's `PATH`; [`global`] is computed on a thread of its own, so the
/// first harness lookup does not wait for the shell. Call it after the last `set_var`.
pub fn start_for_app() {
    APP.store(true, Ordering::Relaxed);
    if GLOBAL.get().is_none() {
        std::thread::spawn(|| {
            global();
        });
    }
}

/// The `PATH` to give every harness child (and the terminal tab's shell): the search folders.
/// A `PATH` in a thread's own extra variables, applied after this, still wins.
pub fn child_path() -> OsString {
    global().to_path_var()
}

/// `PATHEXT` of this process (Windows only).
pub fn pathext() -> Option<String> {
    if cfg!(windows) {
        std::env::var("PATHEXT").ok()
    } else {
        None
    }
}

/// Looks a program up in this process's search folders.
pub fn find(name: &str) -> Lookup {
    let dirs: Vec<PathBuf> = global().dirs().map(Path::to_path_buf).collect();
    find_program(name, &dirs, pathext().as_deref(), cfg!(windows), fs_entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A fake file system: path text → entry.
    fn fs(files: &[(&str, Entry)]) -> impl Fn(&Path) -> Entry {
        let map: HashMap<String, Entry> = files.iter().map(|(p, e)| (p.to_string(), *e)).collect();
        move |p: &Path| {
            map.get(&*p.to_string_lossy())
                .copied()
                .unwrap_or(Entry::Missing)
        }
    }

    const FILE: Entry = Entry::File {
        executable: true,
        script: false,
    };
    const SCRIPT: Entry = Entry::File {
        executable: true,
        script: true,
    };
    const PLAIN: Entry = Entry::File {
        executable: false,
        script: false,
    };

    fn dirs(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn windows_tries_each_pathext_per_folder_and_never_the_bare_name() {
        let files = fs(&[
            (r"C:\npm\claude", SCRIPT),
            (r"C:\npm\claude.cmd", FILE),
            (r"C:\npm\claude.ps1", FILE),
            (r"C:\Users\me\.local\bin\claude.exe", FILE),
        ]);
        let path = dirs(&[r"C:\Windows", r"C:\npm", r"C:\Users\me\.local\bin"]);
        let found = find_program(
            "claude",
            &path,
            Some(".COM;.EXE;.BAT;.CMD;.VBS;.JS"),
            true,
            &files,
        );
        assert_eq!(found.found, Some(PathBuf::from(r"C:\npm\claude.cmd")));
        // The folder order decides, then PATHEXT's: .exe before .cmd in one folder.
        let path = dirs(&[r"C:\Users\me\.local\bin", r"C:\npm"]);
        let found = find_program("claude", &path, None, true, &files);
        assert_eq!(
            found.found,
            Some(PathBuf::from(r"C:\Users\me\.local\bin\claude.exe"))
        );
        let both = fs(&[(r"C:\x\codex.cmd", FILE), (r"C:\x\codex.exe", FILE)]);
        assert_eq!(
            find_program("codex", &dirs(&[r"C:\x\"]), Some(".CMD;.EXE"), true, &both).found,
            Some(PathBuf::from(r"C:\x\codex.cmd")),
            "the user's PATHEXT order, as cmd.exe"
        );
        assert_eq!(
            find_program("codex", &dirs(&[r"C:\x\"]), None, true, &both).found,
            Some(PathBuf::from(r"C:\x\codex.exe"))
        );
    }

    #[test]
    fn windows_explains_an_sh_shim_it_will_not_start() {
        let files = fs(&[(r"C:\npm\pi", SCRIPT), (r"C:\npm\pi.ps1", FILE)]);
        let lookup = find_program("pi", &dirs(&[r"C:\npm"]), None, true, &files);
        assert_eq!(lookup.found, None);
        assert_eq!(
            lookup.rejected,
            vec![
                Rejected {
                    path: r"C:\npm\pi".into(),
                    reason: Reason::NoExtension { script: true }
                },
                Rejected {
                    path: r"C:\npm\pi.ps1".into(),
                    reason: Reason::NotStartable
                },
            ]
        );
        let text = lookup.rejected[0].describe("pi");
        assert!(
            text.contains("shell script") && text.contains("pi.cmd"),
            "{text}"
        );
    }

    #[test]
    fn startable_extensions_follow_pathext() {
        assert_eq!(
            startable_extensions(None),
            vec![".com", ".exe", ".bat", ".cmd"]
        );
        assert_eq!(
            startable_extensions(Some(".PS1;EXE;.Cmd;.exe")),
            vec![".exe", ".cmd"]
        );
        assert_eq!(startable_extensions(Some(".JS")), vec![".exe", ".cmd"]);
    }

    #[test]
    fn unix_wants_an_executable_file() {
        let files = fs(&[
            ("/a/claude", PLAIN),
            ("/b/claude", Entry::Dir),
            ("/c/claude", SCRIPT),
            ("/c/claude.cmd", FILE),
        ]);
        let lookup = find_program("claude", &dirs(&["/a", "/b", "/c"]), None, false, &files);
        assert_eq!(lookup.found, Some(PathBuf::from("/c/claude")));
        assert_eq!(
            lookup.rejected,
            vec![Rejected {
                path: "/a/claude".into(),
                reason: Reason::NotExecutable
            }]
        );
    }

    #[test]
    fn a_given_path_passes_the_same_check() {
        let files = fs(&[
            (r"C:\npm\claude", SCRIPT),
            (r"C:\npm\claude.cmd", FILE),
            (r"C:\tools\codex", FILE),
            (r"C:\tools\pi.ps1", FILE),
            (r"C:\tools\pi.EXE", FILE),
        ]);
        let check = |p: &str| check_program_path(Path::new(p), None, true, &files);
        assert_eq!(
            check(r"C:\npm\claude.cmd"),
            Ok(PathBuf::from(r"C:\npm\claude.cmd"))
        );
        // As cmd.exe: the extension is added.
        assert_eq!(
            check(r"C:\npm\claude"),
            Ok(PathBuf::from(r"C:\npm\claude.cmd"))
        );
        assert_eq!(
            check(r"C:\tools\codex"),
            Err(Some(Rejected {
                path: r"C:\tools\codex".into(),
                reason: Reason::NoExtension { script: false }
            }))
        );
        assert_eq!(
            check(r"C:\tools\pi.ps1"),
            Err(Some(Rejected {
                path: r"C:\tools\pi.ps1".into(),
                reason: Reason::NotStartable
            }))
        );
        assert_eq!(
            check(r"C:\tools\pi.EXE"),
            Ok(PathBuf::from(r"C:\tools\pi.EXE"))
        );
        assert_eq!(check(r"C:\nowhere\x.exe"), Err(None));

        let unix = fs(&[
            ("/u/claude", PLAIN),
            ("/u/pi", FILE),
            ("/u/dir", Entry::Dir),
        ]);
        let check = |p: &str| check_program_path(Path::new(p), None, false, &unix);
        assert_eq!(check("/u/pi"), Ok(PathBuf::from("/u/pi")));
        assert!(matches!(
            check("/u/claude"),
            Err(Some(Rejected {
                reason: Reason::NotExecutable,
                ..
            }))
        ));
        assert!(matches!(
            check("/u/dir"),
            Err(Some(Rejected {
                reason: Reason::NotAFile,
                ..
            }))
        ));
        assert_eq!(check("/u/none"), Err(None));
    }

    #[test]
    fn path_lists_split_and_join_per_os() {
        assert_eq!(
            split_path_list(
                OsStr::new(r#"C:\Windows;;"C:\Program Files\Git\cmd";C:\npm\"#),
                true
            ),
            dirs(&[r"C:\Windows", r"C:\Program Files\Git\cmd", r"C:\npm\"])
        );
        assert_eq!(
            split_path_list(OsStr::new("/usr/bin::/bin:"), false),
            dirs(&["/usr/bin", "/bin"])
        );
        let win = compose(
            Some(OsStr::new(r"C:\Windows;c:\npm\")),
            None,
            dirs(&[r"C:\NPM", r"C:\Users\me\.local\bin"]),
            true,
        );
        assert_eq!(
            win.to_path_var(),
            OsString::from(r"C:\Windows;c:\npm\;C:\Users\me\.local\bin")
        );
        assert_eq!(
            win.origin_of(Path::new(r"C:\Users\me\.local\bin")),
            Some(Origin::Fallback)
        );
    }

    #[test]
    fn a_gui_launch_puts_the_login_shells_folders_first() {
        // macOS: launchd's PATH, the login shell's (Homebrew, nvm), then the fallbacks.
        let path = compose(
            Some(OsStr::new("/usr/bin:/bin:/usr/sbin:/sbin")),
            Some(OsStr::new(
                "/Users/me/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin",
            )),
            dirs(&["/Users/me/.local/bin", "/opt/homebrew/bin/"]),
            false,
        );
        assert_eq!(
            path.to_path_var(),
            OsString::from(
                "/Users/me/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin:/Users/me/.local/bin"
            )
        );
        assert_eq!(path.origin_of(Path::new("/usr/sbin")), Some(Origin::Path));
        assert_eq!(
            path.origin_of(Path::new("/opt/homebrew/bin")),
            Some(Origin::LoginShell)
        );
        assert_eq!(
            path.origin_of(Path::new("/Users/me/.local/bin")),
            Some(Origin::Fallback)
        );
    }

    #[test]
    fn fallbacks_name_the_usual_install_folders() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        for d in [
            ".local/bin",
            ".volta/bin",
            ".asdf/shims",
            ".local/share/mise/shims",
            ".cargo/bin",
            "npm-prefix/bin",
        ] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        std::fs::write(h.join(".npmrc"), "registry=x\nprefix = ~/npm-prefix\n").unwrap();
        for v in ["v20.11.0", "v22.1.0", "v22.9.0", "v23.0.0"] {
            std::fs::create_dir_all(h.join(".nvm/versions/node").join(v).join("bin")).unwrap();
        }
        std::fs::create_dir_all(h.join(".nvm/alias")).unwrap();
        std::fs::write(h.join(".nvm/alias/default"), "22\n").unwrap();
        let none = |_: &str| None;
        let found = fallback_dirs(Some(h), &none, false, &|d| d.is_dir());
        let rel: Vec<String> = found
            .iter()
            .filter_map(|d| d.strip_prefix(h).ok())
            .map(|d| d.display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                ".local/bin",
                "npm-prefix/bin",
                ".nvm/versions/node/v22.9.0/bin",
                ".volta/bin",
                ".asdf/shims",
                ".local/share/mise/shims",
                ".cargo/bin"
            ]
        );
        // The active nvm (NVM_BIN, as nvm.sh exports it) wins over the default alias.
        let active = |k: &str| {
            (k == "NVM_BIN").then(|| h.join(".nvm/versions/node/v20.11.0/bin").into_os_string())
        };
        let found = fallback_dirs(Some(h), &active, false, &|d| d.is_dir());
        assert!(found.contains(&h.join(".nvm/versions/node/v20.11.0/bin")));
        assert!(!found.contains(&h.join(".nvm/versions/node/v22.9.0/bin")));
    }

    #[test]
    fn windows_fallbacks_are_the_native_installer_and_npm() {
        let var =
            |k: &str| (k == "APPDATA").then(|| OsString::from(r"C:\Users\me\AppData\Roaming"));
        let found = fallback_dirs(Some(Path::new(r"C:\Users\me")), &var, true, &|_| true);
        assert_eq!(
            found,
            dirs(&[
                r"C:\Users\me\.local\bin",
                r"C:\Users\me\AppData\Roaming\npm"
            ])
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_real_file_probe_sees_scripts_and_modes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/usr/bin/env node\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(fs_entry(&script), SCRIPT);
        let plain = dir.path().join("p");
        std::fs::write(&plain, "x").unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(fs_entry(&plain), PLAIN);
        assert_eq!(fs_entry(dir.path()), Entry::Dir);
        assert_eq!(fs_entry(&dir.path().join("none")), Entry::Missing);
    }

    #[test]
    fn bare_names_are_not_paths() {
        assert!(is_bare_name("claude"));
        assert!(is_bare_name("claude.cmd"));
        assert!(!is_bare_name("./claude"));
        assert!(!is_bare_name(r"C:\npm\claude.cmd"));
        assert!(!is_bare_name("~/bin/claude"));
    }
}
