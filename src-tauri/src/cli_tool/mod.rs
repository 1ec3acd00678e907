//! "Install command-line tool": puts the `forkhost` CLI that ships beside the app on PATH, tells
//! the user what it did, and takes it away again (docs/release.md, "The in-app "Install
//! command-line tool" action").
//!
//! | how the app runs | what Install does | kind |
//! | --- | --- | --- |
//! | deb / rpm (`/usr/bin/forkhost-app`) | nothing: `/usr/bin/forkhost` is on PATH already | `packaged` |
//! | AppImage (`$APPIMAGE`) | copies `$APPDIR/usr/bin/forkhost` to `~/.local/bin/forkhost` | `copy` |
//! | any other Linux build (dev build, tarball) | links `~/.local/bin/forkhost` → the bundled CLI | `symlink` |
//! | macOS | links `/usr/local/bin/forkhost` → `Forkhost.app/Contents/MacOS/forkhost` (admin prompt if needed) | `symlink` |
//! | Windows | adds the app's folder to the user `Path` (`HKCU\Environment`) | `user_path` |
//!
//! Everything is a plain function over an injected [`CliEnv`] (exe path, HOME, PATH, AppImage
//! variables, OS) and a [`System`] (running `--version`, the macOS admin shell, the Windows user
//! `Path`), so every platform's logic is unit-tested on Linux with temp folders. Only the choice
//! of the real OS in [`CliEnv::from_process`] is `cfg`-gated; the macOS and Windows code is
//! plain std and compiles (and is linted) everywhere.
//!
//! A `forkhost` that is not ours is never replaced unless the user said `replace` (the UI asks
//! first). "Ours" is: a link to this app's CLI, a byte-identical copy of it, what the app
//! itself recorded having put there (`<data dir>/cli-tool.json`), or a link into another
//! Forkhost bundle whose CLI has the same version.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tauri::State;

use crate::error::{CmdResult, CommandError};
use crate::state::AppState;

mod macos;
// The tests cover every OS's plan on Linux with Unix permissions and symlinks.
#[cfg(all(test, unix))]
mod tests;
mod windows;

use macos::*;
use windows::*;

/// The file (in the data folder) where the app remembers what it installed, so that it can
/// update or remove its own copy or link later without asking, and leave anything else alone.
const RECORD_FILE: &str = "cli-tool.json";

/// How long `forkhost --version` may take before it counts as not working.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

// ---- what the UI sees ----------------------------------------------------------------------

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

// ---- errors --------------------------------------------------------------------------------

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
    pub fn code(&self) -> &'static str {
        match self {
            CliToolError::NoBundledCli { .. }
            | CliToolError::NoHome
            | CliToolError::Packaged { .. } => "unsupported",
            CliToolError::Conflict { .. }
            | CliToolError::Folder { .. }
            | CliToolError::NotOurs { .. } => "conflict",
            CliToolError::Io { .. } | CliToolError::Admin(_) | CliToolError::UserPath(_) => {
                "cli_tool"
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

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> CliToolError {
    let path = path.to_owned();
    move |source| CliToolError::Io {
        action,
        path,
        source,
    }
}

// ---- the environment -----------------------------------------------------------------------

/// The operating system whose rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The CLI's file name.
    pub fn cli_name(self) -> &'static str {
        match self {
            Os::Windows => "forkhost.exe",
            _ => "forkhost",
        }
    }

    /// The app's main binary (tauri.conf.json `mainBinaryName`).
    fn app_name(self) -> &'static str {
        match self {
            Os::Windows => "forkhost-app.exe",
            _ => "forkhost-app",
        }
    }
}

/// Everything the action reads from the process and the OS, injected so tests can fake it.
#[derive(Debug, Clone)]
pub struct CliEnv {
    pub os: Os,
    /// The running app (`std::env::current_exe()`).
    pub exe: PathBuf,
    pub home: Option<PathBuf>,
    /// The app's `PATH`.
    pub path: Option<OsString>,
    /// `$APPIMAGE`: set when the app runs from an AppImage.
    pub appimage: Option<PathBuf>,
    /// `$APPDIR`: the AppImage's mount point.
    pub appdir: Option<PathBuf>,
    /// Where a deb/rpm puts the app and the CLI (`/usr/bin`).
    pub packaged_dir: PathBuf,
    /// Where the macOS link goes (`/usr/local/bin`).
    pub mac_bin_dir: PathBuf,
    /// The app's record of what it installed (`<data dir>/cli-tool.json`).
    pub record: Option<PathBuf>,
}

impl CliEnv {
    /// The running app's environment.
    pub fn from_process(data_dir: &Path) -> CliEnv {
        // The only platform switch: the rules themselves are plain code for every OS.
        let os = if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        };
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        CliEnv {
            os,
            exe: std::env::current_exe().unwrap_or_default(),
            home: var("HOME")
                .or_else(|| var("USERPROFILE"))
                .map(PathBuf::from),
            path: var("PATH"),
            appimage: var("APPIMAGE").map(PathBuf::from),
            appdir: var("APPDIR").map(PathBuf::from),
            packaged_dir: PathBuf::from("/usr/bin"),
            mac_bin_dir: PathBuf::from("/usr/local/bin"),
            record: Some(data_dir.join(RECORD_FILE)),
        }
    }

    fn path_dirs(&self) -> Vec<PathBuf> {
        match &self.path {
            Some(p) if self.os == Os::Windows => p
                .to_string_lossy()
                .split(';')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(PathBuf::from)
                .collect(),
            Some(p) => std::env::split_paths(p)
                .filter(|d| !d.as_os_str().is_empty())
                .collect(),
            None => Vec::new(),
        }
    }

    /// `~/.local/bin` style: the path with the home folder shortened to `~`.
    fn tilde(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) if self.os != Os::Windows => format!("~/{}", rest.display()),
            _ => path.display().to_string(),
        }
    }
}

/// What the action does to the machine beyond plain file operations: running programs, the
/// admin prompt, the Windows registry. Tests fake it.
pub trait System {
    /// `exe --version`, its first line; an error in words.
    fn version(&self, exe: &Path) -> Result<String, String> {
        run_version(exe)
    }

    /// Makes `at` a symbolic link to `target`, replacing a file or link there.
    fn link(&self, target: &Path, at: &Path) -> std::io::Result<()> {
        replace_with_link(target, at)
    }

    /// Removes the file or link at `path`.
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        std::fs::remove_file(path)
    }

    /// Runs a `/bin/sh` command as an administrator (macOS: the system password prompt).
    fn run_as_admin(&self, command: &str) -> Result<(), CliToolError>;

    /// The raw (unexpanded) user `Path`; `None` when the value does not exist.
    fn read_user_path(&self) -> Result<Option<String>, CliToolError>;

    /// Writes the user `Path` (`None` deletes it) if it still is `expected`, then tells
    /// running programs that the environment changed.
    fn write_user_path(
        &self,
        expected: Option<&str>,
        value: Option<&str>,
    ) -> Result<(), CliToolError>;
}

/// The real machine.
pub struct RealSystem;

impl System for RealSystem {
    fn run_as_admin(&self, command: &str) -> Result<(), CliToolError> {
        let out = Command::new("/usr/bin/osascript")
            .args(osascript_args(command))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                CliToolError::Admin(format!("Could not ask for an administrator password: {e}"))
            })?;
        if out.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        // -128 is AppleScript's "User canceled."
        if stderr.contains("-128") {
            return Err(CliToolError::Admin(
                "Cancelled: no administrator password was given, so nothing was changed.".into(),
            ));
        }
        Err(CliToolError::Admin(format!(
            "The administrator command failed: {}",
            stderr.trim()
        )))
    }

    fn read_user_path(&self) -> Result<Option<String>, CliToolError> {
        let out = run_powershell(&windows_read_path_script())?;
        parse_read_path_output(&out).ok_or_else(|| {
            CliToolError::UserPath(format!(
                "Unexpected answer while reading your Path: {out:?}"
            ))
        })
    }

    fn write_user_path(
        &self,
        expected: Option<&str>,
        value: Option<&str>,
    ) -> Result<(), CliToolError> {
        run_powershell(&windows_write_path_script(expected, value)).map(|_| ())
    }
}

// ---- the plan: where the CLI is and where it goes --------------------------------------------

#[derive(Debug, Clone)]
struct Plan {
    kind: CliInstallKind,
    bundled: Option<PathBuf>,
    looked_at: PathBuf,
    /// Link/copy path, `Path` folder (Windows), or the packaged CLI.
    target: Option<PathBuf>,
}

fn plan(env: &CliEnv) -> Plan {
    let exe_dir = env.exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let beside = exe_dir.join(env.os.cli_name());
    let appimage = env.os == Os::Linux && env.appimage.is_some();
    let bundled = if beside.is_file() {
        Some(beside.clone())
    } else if appimage {
        env.appdir
            .as_ref()
            .map(|d| d.join("usr/bin").join(env.os.cli_name()))
            .filter(|p| p.is_file())
    } else {
        None
    };
    let local_bin = env
        .home
        .as_ref()
        .map(|h| h.join(".local/bin").join(env.os.cli_name()));
    let (kind, target) = match env.os {
        _ if bundled.is_none() => (CliInstallKind::None, None),
        Os::Linux if appimage => (CliInstallKind::Copy, local_bin),
        Os::Linux if exe_dir == env.packaged_dir => (
            CliInstallKind::Packaged,
            Some(env.packaged_dir.join(env.os.cli_name())),
        ),
        Os::Linux => (CliInstallKind::Symlink, local_bin),
        Os::MacOs => (
            CliInstallKind::Symlink,
            Some(env.mac_bin_dir.join(env.os.cli_name())),
        ),
        Os::Windows => (CliInstallKind::UserPath, Some(exe_dir)),
    };
    Plan {
        kind,
        bundled,
        looked_at: beside,
        target,
    }
}

// ---- what is at the target -----------------------------------------------------------------

/// What the app remembers having installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    path: PathBuf,
    kind: CliInstallKind,
    /// The link's target, as written.
    #[serde(default)]
    link: Option<PathBuf>,
    /// The copy's size and modification time (ms since the epoch) right after copying.
    #[serde(default)]
    len: Option<u64>,
    #[serde(default)]
    modified_ms: Option<u64>,
}

fn read_record(env: &CliEnv) -> Option<Record> {
    let file = env.record.as_ref()?;
    let bytes = std::fs::read(file).ok()?;
    serde_json::from_slice(&bytes)
        .map_err(|e| tracing::warn!(error = %e, "cli-tool record unreadable; ignored"))
        .ok()
}

fn write_record(env: &CliEnv, record: Option<&Record>) {
    let Some(file) = &env.record else { return };
    let result = match record {
        Some(r) => serde_json::to_vec_pretty(r)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                if let Some(dir) = file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(file, bytes)
            }),
        None => match std::fs::remove_file(file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        },
    };
    // Losing the record only means the next update of this install asks first.
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not update the cli-tool record");
    }
}

fn stamp(path: &Path) -> (Option<u64>, Option<u64>) {
    match std::fs::metadata(path) {
        Ok(m) => (
            Some(m.len()),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as u64),
        ),
        Err(_) => (None, None),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    Missing,
    /// Exactly what Install makes.
    Ours,
    /// Ours, but not this app's CLI (an older copy, a link to a moved build): replaced
    /// without asking.
    Stale,
    /// Someone else's: replaced only when the user confirms.
    Foreign(String),
    /// A folder: never replaced.
    Folder,
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn files_equal(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let Ok(n) = fa.read(&mut ba) else {
            return false;
        };
        if n == 0 {
            return true;
        }
        if fb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
    }
}

/// A `forkhost` inside some Forkhost install: it has the app binary beside it.
fn is_bundle_cli(path: &Path, os: Os) -> bool {
    path.file_name().is_some_and(|n| n == os.cli_name())
        && path
            .parent()
            .is_some_and(|d| d.join(os.app_name()).is_file())
}

fn inspect(env: &CliEnv, sys: &dyn System, plan: &Plan, bundled_version: Option<&str>) -> Found {
    let (Some(target), Some(bundled)) = (&plan.target, &plan.bundled) else {
        return Found::Missing;
    };
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(_) => return Found::Missing,
    };
    let record = read_record(env).filter(|r| &r.path == target && r.kind == plan.kind);
    if meta.is_dir() {
        return Found::Folder;
    }
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(target).unwrap_or_default();
        let resolved = target
            .parent()
            .map(|d| d.join(&link))
            .unwrap_or(link.clone());
        if plan.kind == CliInstallKind::Symlink && same_file(&resolved, bundled) {
            return Found::Ours;
        }
        if record
            .as_ref()
            .is_some_and(|r| r.link.as_ref() == Some(&link))
        {
            return Found::Stale;
        }
        // Another Forkhost's CLI (a second copy of the app) of the same version is as good;
        // a different version is someone's choice and is only replaced when confirmed.
        if is_bundle_cli(&resolved, env.os) {
            let theirs = sys.version(&resolved).ok();
            if theirs.is_some() && theirs.as_deref() == bundled_version {
                return Found::Stale;
            }
            return Found::Foreign(match theirs {
                Some(v) => format!(
                    "a link to another Forkhost's command-line tool ({v}) at {}",
                    resolved.display()
                ),
                None => format!(
                    "a link to another Forkhost's command-line tool at {}",
                    resolved.display()
                ),
            });
        }
        if !resolved.exists() {
            return Found::Foreign(format!("a broken link to {}", link.display()));
        }
        return Found::Foreign(format!("a link to {}", link.display()));
    }
    if plan.kind == CliInstallKind::Copy {
        if files_equal(target, bundled) {
            return Found::Ours;
        }
        if let Some(r) = &record {
            if (r.len, r.modified_ms) == stamp(target) {
                return Found::Stale;
            }
        }
    }
    Found::Foreign("a file that is not this app's command-line tool".into())
}

// ---- status --------------------------------------------------------------------------------

fn on_path(env: &CliEnv, dir: &Path) -> bool {
    env.path_dirs().iter().any(|d| {
        if env.os == Os::Windows {
            same_windows_dir(&d.to_string_lossy(), &dir.to_string_lossy())
        } else {
            d == dir || same_file(d, dir)
        }
    })
}

/// The first `forkhost` a terminal started from the app's environment would run.
fn first_on_path(env: &CliEnv) -> Option<PathBuf> {
    env.path_dirs()
        .into_iter()
        .map(|d| d.join(env.os.cli_name()))
        .find(|p| p.is_file())
}

fn warn(code: &str, message: impl Into<String>) -> CliWarning {
    CliWarning {
        code: code.to_owned(),
        message: message.into(),
    }
}

/// Where the CLI is, where it goes, and whether it is there.
pub fn status(env: &CliEnv, sys: &dyn System) -> CliToolStatus {
    let plan = plan(env);
    let bundled_version = plan.bundled.as_deref().and_then(|b| sys.version(b).ok());
    let mut st = CliToolStatus {
        kind: plan.kind,
        bundled: plan.bundled.as_ref().map(|p| p.display().to_string()),
        looked_at: plan.looked_at.display().to_string(),
        bundled_version: bundled_version.clone(),
        target: plan.target.as_ref().map(|p| p.display().to_string()),
        installed: false,
        installed_path: None,
        installed_version: None,
        outdated: false,
        conflict: None,
        can_install: false,
        can_uninstall: false,
        needs_admin: false,
        warnings: Vec::new(),
    };
    if plan.bundled.is_some() && plan.target.is_none() {
        st.warnings
            .push(warn("no_home", CliToolError::NoHome.to_string()));
        st.kind = CliInstallKind::None;
    }
    let Some(target) = plan.target.clone() else {
        return st;
    };
    let installed_path = match plan.kind {
        CliInstallKind::Packaged => {
            st.installed = target.is_file();
            target.clone()
        }
        CliInstallKind::UserPath => {
            let run = target.join(env.os.cli_name());
            match sys.read_user_path() {
                Ok(value) => {
                    st.installed = value
                        .as_deref()
                        .is_some_and(|v| windows_path_has(v, &target.to_string_lossy()));
                    st.can_install = !st.installed;
                    st.can_uninstall = st.installed;
                }
                Err(e) => st.warnings.push(warn(
                    "path_unreadable",
                    format!("Could not read your Path: {e}"),
                )),
            }
            if st.installed && !on_path(env, &target) {
                st.warnings.push(warn(
                    "restart_terminals",
                    "Terminals that were already open keep their old Path: open a new one to use forkhost.",
                ));
            }
            run
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Missing => st.can_install = true,
                Found::Ours => {
                    st.installed = true;
                    st.can_uninstall = true;
                }
                Found::Stale => {
                    st.installed = true;
                    st.outdated = true;
                    st.can_install = true;
                    st.can_uninstall = true;
                }
                Found::Foreign(detail) => {
                    st.can_install = true;
                    st.conflict = Some(CliConflict {
                        path: target.display().to_string(),
                        detail,
                        replaceable: true,
                    });
                }
                Found::Folder => {
                    st.conflict = Some(CliConflict {
                        path: target.display().to_string(),
                        detail: "a folder".into(),
                        replaceable: false,
                    })
                }
            }
            let dir = target.parent().unwrap_or(Path::new("/"));
            if !on_path(env, dir) {
                let shown = env.tilde(dir);
                let mut msg = format!(
                    "{shown} is not on your PATH, so terminals won't find forkhost there. Add it to your shell's start-up file (for example export PATH=\"{}:$PATH\" in ~/.profile or ~/.bashrc) and open a new terminal.",
                    if shown.starts_with("~/") { shown.replacen('~', "$HOME", 1) } else { shown.clone() }
                );
                if env.os == Os::Linux {
                    msg.push_str(" Debian and Ubuntu add ~/.local/bin by themselves at your next login once it exists.");
                }
                st.warnings.push(warn("not_on_path", msg));
            }
            if env.os == Os::MacOs && (st.can_install || st.can_uninstall) {
                st.needs_admin = !dir_writable(dir);
            }
            target.clone()
        }
        CliInstallKind::None => return st,
    };
    if st.installed {
        match sys.version(&installed_path) {
            Ok(v) => st.installed_version = Some(v),
            Err(e) => st.warnings.push(warn(
                "version_failed",
                format!("{} --version did not work: {e}", installed_path.display()),
            )),
        }
        st.installed_path = Some(installed_path.display().to_string());
        // Another `forkhost` earlier on PATH wins in a terminal.
        if let Some(first) = first_on_path(env) {
            let ours = same_file(&first, &installed_path)
                || plan
                    .bundled
                    .as_deref()
                    .is_some_and(|b| same_file(&first, b));
            if !ours {
                st.warnings.push(warn(
                    "shadowed",
                    format!(
                        "Another forkhost comes first on your PATH ({}): terminals run that one.",
                        first.display()
                    ),
                ));
            }
        }
    }
    st
}

/// Whether a plain (non-admin) link can be made in `dir` (or in its nearest existing parent,
/// which `create_dir_all` would need to write).
fn dir_writable(dir: &Path) -> bool {
    let mut d = dir;
    loop {
        if d.is_dir() {
            return std::fs::metadata(d).is_ok_and(|m| !m.permissions().readonly()) && {
                // `readonly` only looks at the write bits; probing is the honest check.
                let probe = d.join(format!(".forkhost-probe-{}", std::process::id()));
                let ok = std::fs::File::create(&probe).is_ok();
                let _ = std::fs::remove_file(&probe);
                ok
            };
        }
        match d.parent() {
            Some(p) => d = p,
            None => return false,
        }
    }
}

// ---- install / uninstall -------------------------------------------------------------------

/// Puts the bundled CLI on PATH. `replace`: the user confirmed replacing a `forkhost` that is
/// not ours.
pub fn install(
    env: &CliEnv,
    sys: &dyn System,
    replace: bool,
) -> Result<CliToolStatus, CliToolError> {
    let plan = plan(env);
    let Some(bundled) = plan.bundled.clone() else {
        return Err(CliToolError::NoBundledCli {
            looked_at: plan.looked_at,
        });
    };
    let Some(target) = plan.target.clone() else {
        return Err(CliToolError::NoHome);
    };
    match plan.kind {
        CliInstallKind::Packaged | CliInstallKind::None => {}
        CliInstallKind::UserPath => {
            let dir = target.to_string_lossy().into_owned();
            let current = sys.read_user_path()?;
            if let Some(new) = windows_path_with(current.as_deref(), &dir) {
                sys.write_user_path(current.as_deref(), Some(&new))?;
                tracing::info!(dir = %dir, "cli tool: folder added to the user Path");
            }
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            let bundled_version = sys.version(&bundled).ok();
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Ours => {}
                Found::Folder => return Err(CliToolError::Folder { path: target }),
                Found::Foreign(detail) if !replace => {
                    return Err(CliToolError::Conflict {
                        path: target,
                        detail,
                    })
                }
                found => {
                    if let Found::Foreign(detail) = &found {
                        tracing::info!(path = %target.display(), %detail, "cli tool: replacing a foreign forkhost (confirmed)");
                    }
                    if plan.kind == CliInstallKind::Symlink {
                        place_link(env, sys, &bundled, &target)?;
                        write_record(
                            env,
                            Some(&Record {
                                path: target.clone(),
                                kind: plan.kind,
                                link: Some(bundled.clone()),
                                len: None,
                                modified_ms: None,
                            }),
                        );
                    } else {
                        place_copy(&bundled, &target)?;
                        let (len, modified_ms) = stamp(&target);
                        write_record(
                            env,
                            Some(&Record {
                                path: target.clone(),
                                kind: plan.kind,
                                link: None,
                                len,
                                modified_ms,
                            }),
                        );
                    }
                    tracing::info!(kind = ?plan.kind, path = %target.display(), "cli tool installed");
                }
            }
        }
    }
    Ok(status(env, sys))
}

/// Removes exactly what Install added.
pub fn uninstall(env: &CliEnv, sys: &dyn System) -> Result<CliToolStatus, CliToolError> {
    let plan = plan(env);
    let Some(target) = plan.target.clone() else {
        return match plan.bundled {
            None => Err(CliToolError::NoBundledCli {
                looked_at: plan.looked_at,
            }),
            Some(_) => Err(CliToolError::NoHome),
        };
    };
    match plan.kind {
        CliInstallKind::None => {}
        CliInstallKind::Packaged => return Err(CliToolError::Packaged { path: target }),
        CliInstallKind::UserPath => {
            let dir = target.to_string_lossy().into_owned();
            let current = sys.read_user_path()?;
            if let Some(new) = current
                .as_deref()
                .and_then(|v| windows_path_without(v, &dir))
            {
                let new = (!new
                    .trim_matches(|c: char| c == ';' || c.is_whitespace())
                    .is_empty())
                .then_some(new);
                sys.write_user_path(current.as_deref(), new.as_deref())?;
                tracing::info!(dir = %dir, "cli tool: folder removed from the user Path");
            }
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            let bundled_version = plan.bundled.as_deref().and_then(|b| sys.version(b).ok());
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Missing => {}
                Found::Ours | Found::Stale => {
                    remove(env, sys, &target)?;
                    tracing::info!(path = %target.display(), "cli tool uninstalled");
                }
                Found::Foreign(detail) => {
                    return Err(CliToolError::NotOurs {
                        path: target,
                        detail,
                    })
                }
                Found::Folder => {
                    return Err(CliToolError::NotOurs {
                        path: target,
                        detail: "a folder".into(),
                    })
                }
            }
            write_record(env, None);
        }
    }
    Ok(status(env, sys))
}

/// A link made next to `at` and renamed over it, so a replaced `forkhost` is never missing
/// half-way.
fn replace_with_link(target: &Path, at: &Path) -> std::io::Result<()> {
    if let Some(dir) = at.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = sibling_tmp(at);
    let _ = std::fs::remove_file(&tmp);
    symlink(target, &tmp)?;
    std::fs::rename(&tmp, at).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(unix)]
fn symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _at: &Path) -> std::io::Result<()> {
    // Symbolic links are only made on macOS and Linux; Windows uses the user Path.
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

fn sibling_tmp(at: &Path) -> PathBuf {
    let name = at
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    at.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

fn place_link(
    env: &CliEnv,
    sys: &dyn System,
    bundled: &Path,
    target: &Path,
) -> Result<(), CliToolError> {
    match sys.link(bundled, target) {
        Ok(()) => Ok(()),
        // /usr/local/bin is root's on many Macs (or missing): the system password prompt.
        Err(e) if env.os == Os::MacOs && admin_may_help(&e) => {
            tracing::info!(error = %e, "cli tool: linking needs an administrator");
            let dir = target.parent().unwrap_or(Path::new("/"));
            sys.run_as_admin(&format!(
                "/bin/mkdir -p {} && /bin/ln -sfn {} {}",
                sh_quote(&dir.to_string_lossy()),
                sh_quote(&bundled.to_string_lossy()),
                sh_quote(&target.to_string_lossy()),
            ))
        }
        Err(e) => Err(io_err("create the link", target)(e)),
    }
}

fn remove(env: &CliEnv, sys: &dyn System, target: &Path) -> Result<(), CliToolError> {
    match sys.remove(target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if env.os == Os::MacOs && admin_may_help(&e) => sys.run_as_admin(&format!(
            "/bin/rm -f {}",
            sh_quote(&target.to_string_lossy())
        )),
        Err(e) => Err(io_err("remove", target)(e)),
    }
}

fn admin_may_help(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    ) || e.raw_os_error() == Some(1) // EPERM
}

/// The copy goes to a temporary name first and is renamed over the target, so a terminal
/// never runs a half-written `forkhost`.
fn place_copy(bundled: &Path, target: &Path) -> Result<(), CliToolError> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(io_err("create the folder", dir))?;
    let tmp = sibling_tmp(target);
    std::fs::copy(bundled, &tmp).map_err(io_err("copy the command-line tool to", &tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755));
    }
    std::fs::rename(&tmp, target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("replace", target)(e)
    })
}

// ---- running `--version` -------------------------------------------------------------------

/// Runs `exe --version` with a time limit; returns its first line.
pub fn run_version(exe: &Path) -> Result<String, String> {
    let mut cmd = Command::new(exe);
    cmd.arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    hide_console(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let deadline = Instant::now() + VERSION_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {VERSION_TIMEOUT:?}"));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    if !status.success() {
        return Err(format!("it exited with {status}"));
    }
    out.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| "it printed nothing".to_owned())
}

/// Windows: no console window flashes up for a child process of the GUI app.
#[cfg(windows)]
pub(super) fn hide_console(cmd: &mut Command) {
    use std::os::windows::process::CommandExt;
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    cmd.creation_flags(CREATE_NO_WINDOW);
}

#[cfg(not(windows))]
pub(super) fn hide_console(_cmd: &mut Command) {}

// ---- commands ------------------------------------------------------------------------------

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CliToolError> + Send + 'static,
) -> CmdResult<T> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CommandError::new("cli_tool", e.to_string()))?
        .map_err(CommandError::from)
}

/// Where the bundled CLI is and whether it is on PATH.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_status(state: State<'_, AppState>) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || Ok(status(&env, &RealSystem))).await
}

/// Puts the bundled CLI on PATH; `replace` confirms replacing a `forkhost` that is not ours.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_install(
    state: State<'_, AppState>,
    replace: bool,
) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || install(&env, &RealSystem, replace))
        .await
        .inspect_err(|e| tracing::warn!(code = %e.code, "cli tool install failed"))
}

/// Removes what Install added.
#[tauri::command(rename_all = "snake_case")]
pub async fn cli_tool_uninstall(state: State<'_, AppState>) -> CmdResult<CliToolStatus> {
    let env = CliEnv::from_process(&state.data_dir);
    blocking(move || uninstall(&env, &RealSystem))
        .await
        .inspect_err(|e| tracing::warn!(code = %e.code, "cli tool uninstall failed"))
}
