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
use crate::AppState;

/// The file (in the data folder) where the app remembers what it installed, so that it can
/// update or remove its own copy or link later without asking, and leave anything else alone.
const RECORD_FILE: &str = "cli-tool.json";

/// How long `forkhost --version` may take before it counts as not working.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// A user variable set and removed again only to make Windows broadcast `WM_SETTINGCHANGE`.
const WINDOWS_REFRESH_VAR: &str = "FORKHOST_PATH_REFRESH";

/// The PowerShell exit code of the Path write when the value changed since it was read.
const WINDOWS_PATH_CHANGED: i32 = 3;

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
fn hide_console(cmd: &mut Command) {
    use std::os::windows::process::CommandExt;
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;
    cmd.creation_flags(CREATE_NO_WINDOW);
}

#[cfg(not(windows))]
fn hide_console(_cmd: &mut Command) {}

// ---- macOS: the admin shell ----------------------------------------------------------------

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `osascript` arguments that run `command` through `/bin/sh` as an administrator; the
/// command is put in an AppleScript string literal (backslashes and quotes escaped).
pub fn osascript_args(command: &str) -> Vec<String> {
    let literal = command.replace('\\', "\\\\").replace('"', "\\\"");
    vec![
        "-e".into(),
        format!("do shell script \"{literal}\" with administrator privileges"),
    ]
}

// ---- Windows: the user Path ----------------------------------------------------------------

/// Path entries name the same folder: case-insensitive, trailing slashes and quotes ignored.
pub fn same_windows_dir(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.trim()
            .trim_matches('"')
            .trim_end_matches(['\\', '/'])
            .replace('/', "\\")
            .to_lowercase()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

pub fn windows_path_has(value: &str, dir: &str) -> bool {
    value.split(';').any(|e| same_windows_dir(e, dir))
}

/// The user Path with `dir` appended; `None` when it is there already.
pub fn windows_path_with(value: Option<&str>, dir: &str) -> Option<String> {
    let value = value.unwrap_or("");
    if windows_path_has(value, dir) {
        return None;
    }
    let kept = value.trim_end_matches([';', ' ']);
    Some(if kept.trim().is_empty() {
        dir.to_owned()
    } else {
        format!("{kept};{dir}")
    })
}

/// The user Path without `dir` (every other entry kept as it was written); `None` when `dir`
/// is not in it.
pub fn windows_path_without(value: &str, dir: &str) -> Option<String> {
    if !windows_path_has(value, dir) {
        return None;
    }
    Some(
        value
            .split(';')
            .filter(|e| !same_windows_dir(e, dir))
            .collect::<Vec<_>>()
            .join(";"),
    )
}

/// A PowerShell single-quoted string. PowerShell also ends such strings at the typographic
/// single quotes, so those are doubled too.
pub fn ps_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

fn ps_value(v: Option<&str>) -> String {
    v.map(ps_quote).unwrap_or_else(|| "$null".into())
}

/// Prints the raw user Path (`%VARS%` unexpanded): `=<value>`, or `-` when there is none.
pub fn windows_read_path_script() -> String {
    [
        "$ErrorActionPreference = 'Stop'",
        "[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false",
        "$key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $false)",
        "$value = $null",
        "if ($key -ne $null) { $value = $key.GetValue('Path', $null, 'DoNotExpandEnvironmentNames'); $key.Close() }",
        "if ($value -eq $null) { [Console]::Out.Write('-') } else { [Console]::Out.Write('=' + $value) }",
    ]
    .join("\n")
}

/// The answer of [`windows_read_path_script`].
pub fn parse_read_path_output(out: &str) -> Option<Option<String>> {
    let out = out
        .trim_start_matches('\u{feff}')
        .trim_end_matches(['\r', '\n']);
    if out == "-" {
        return Some(None);
    }
    out.strip_prefix('=').map(|v| Some(v.to_owned()))
}

/// Sets the user Path to `value` (`None` deletes it) as `REG_EXPAND_SZ`, only if it still is
/// `expected` (exit 3 otherwise), then broadcasts `WM_SETTINGCHANGE` ("Environment").
pub fn windows_write_path_script(expected: Option<&str>, value: Option<&str>) -> String {
    let write = match value {
        Some(v) => format!(
            "$key.SetValue('Path', {}, [Microsoft.Win32.RegistryValueKind]::ExpandString)",
            ps_quote(v)
        ),
        None => "$key.DeleteValue('Path', $false)".into(),
    };
    [
        "$ErrorActionPreference = 'Stop'".to_owned(),
        "$key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')".to_owned(),
        "try {".to_owned(),
        "  $current = $key.GetValue('Path', $null, 'DoNotExpandEnvironmentNames')".to_owned(),
        format!("  $expected = {}", ps_value(expected)),
        format!("  if ($current -cne $expected) {{ exit {WINDOWS_PATH_CHANGED} }}"),
        format!("  {write}"),
        "} finally { $key.Close() }".to_owned(),
        // Raw registry writes tell nobody; .NET's SetEnvironmentVariable for the user scope
        // broadcasts WM_SETTINGCHANGE "Environment", so Explorer (and terminals started from
        // it) pick up the new Path. A dummy variable is set and removed for that.
        format!("[Environment]::SetEnvironmentVariable('{WINDOWS_REFRESH_VAR}', '1', 'User')"),
        format!("[Environment]::SetEnvironmentVariable('{WINDOWS_REFRESH_VAR}', $null, 'User')"),
    ]
    .join("\n")
}

/// PowerShell's `-EncodedCommand`: base64 of the script's UTF-16LE bytes (no quoting issues).
pub fn encode_powershell(script: &str) -> String {
    let bytes: Vec<u8> = script.encode_utf16().flat_map(u16::to_le_bytes).collect();
    base64(&bytes)
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn powershell_exe() -> PathBuf {
    // The system's own PowerShell, not whatever a PATH entry calls `powershell.exe`.
    std::env::var_os("SystemRoot")
        .map(|root| PathBuf::from(root).join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("powershell.exe"))
}

fn run_powershell(script: &str) -> Result<String, CliToolError> {
    let mut cmd = Command::new(powershell_exe());
    cmd.args([
        "-NoProfile",
        "-NonInteractive",
        "-ExecutionPolicy",
        "Bypass",
        "-EncodedCommand",
        &encode_powershell(script),
    ])
    .stdin(Stdio::null());
    hide_console(&mut cmd);
    let out = cmd
        .output()
        .map_err(|e| CliToolError::UserPath(format!("Could not run PowerShell: {e}")))?;
    if out.status.code() == Some(WINDOWS_PATH_CHANGED) {
        return Err(CliToolError::UserPath(
            "Your Path changed while Forkhost was updating it; nothing was written. Try again."
                .into(),
        ));
    }
    if !out.status.success() {
        return Err(CliToolError::UserPath(format!(
            "PowerShell could not update your Path: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A temp folder removed on drop (this crate has no tempfile dependency).
    struct Tmp(PathBuf);

    impl Tmp {
        fn new() -> Tmp {
            static N: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "forkhost-cli-tool-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Tmp(dir.canonicalize().unwrap())
        }
        fn join(&self, p: &str) -> PathBuf {
            self.0.join(p)
        }
    }

    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A stand-in CLI: a shell script that prints `version`.
    fn fake_cli(path: &Path, version: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// An app install: `<dir>/forkhost-app` and its CLI.
    fn fake_app(dir: &Path, os: Os, version: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let exe = dir.join(os.app_name());
        std::fs::write(&exe, "app").unwrap();
        fake_cli(&dir.join(os.cli_name()), version);
        exe
    }

    #[derive(Default)]
    struct Fake {
        /// Direct writes fail with PermissionDenied (a root-owned /usr/local/bin).
        deny_direct: bool,
        admin: RefCell<Vec<String>>,
        user_path: RefCell<Option<String>>,
        writes: RefCell<usize>,
    }

    impl System for Fake {
        fn link(&self, target: &Path, at: &Path) -> std::io::Result<()> {
            if self.deny_direct {
                return Err(std::io::ErrorKind::PermissionDenied.into());
            }
            replace_with_link(target, at)
        }
        fn remove(&self, path: &Path) -> std::io::Result<()> {
            if self.deny_direct {
                return Err(std::io::ErrorKind::PermissionDenied.into());
            }
            std::fs::remove_file(path)
        }
        fn run_as_admin(&self, command: &str) -> Result<(), CliToolError> {
            self.admin.borrow_mut().push(command.to_owned());
            // The real command, run without the prompt: checks what the admin shell gets.
            let ok = Command::new("/bin/sh")
                .args(["-c", command])
                .status()
                .unwrap()
                .success();
            ok.then_some(())
                .ok_or_else(|| CliToolError::Admin("failed".into()))
        }
        fn read_user_path(&self) -> Result<Option<String>, CliToolError> {
            Ok(self.user_path.borrow().clone())
        }
        fn write_user_path(
            &self,
            expected: Option<&str>,
            value: Option<&str>,
        ) -> Result<(), CliToolError> {
            assert_eq!(self.user_path.borrow().as_deref(), expected);
            *self.user_path.borrow_mut() = value.map(str::to_owned);
            *self.writes.borrow_mut() += 1;
            Ok(())
        }
    }

    fn linux_env(tmp: &Tmp, exe: PathBuf) -> CliEnv {
        CliEnv {
            os: Os::Linux,
            exe,
            home: Some(tmp.join("home")),
            path: Some("/usr/local/bin:/usr/bin:/bin".into()),
            appimage: None,
            appdir: None,
            packaged_dir: tmp.join("usr/bin"),
            mac_bin_dir: tmp.join("usr/local/bin"),
            record: Some(tmp.join("data").join(RECORD_FILE)),
        }
    }

    fn codes(st: &CliToolStatus) -> Vec<&str> {
        st.warnings.iter().map(|w| w.code.as_str()).collect()
    }

    #[test]
    fn a_dev_build_links_local_bin_to_its_cli_and_removes_the_link() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
        let env = linux_env(&tmp, exe);
        let sys = Fake::default();
        let link = tmp.join("home/.local/bin/forkhost");
        let bundled = tmp.join("target/debug/forkhost");

        let st = status(&env, &sys);
        assert_eq!(st.kind, CliInstallKind::Symlink);
        assert_eq!(st.bundled.as_deref(), Some(bundled.to_str().unwrap()));
        assert_eq!(st.bundled_version.as_deref(), Some("forkhost 1.2.3"));
        assert_eq!(st.target.as_deref(), Some(link.to_str().unwrap()));
        assert!(!st.installed && st.can_install && !st.can_uninstall);
        assert!(st.conflict.is_none());
        assert_eq!(codes(&st), ["not_on_path"]);
        assert!(st.warnings[0]
            .message
            .contains("~/.local/bin is not on your PATH"));

        let st = install(&env, &sys, false).unwrap();
        assert_eq!(std::fs::read_link(&link).unwrap(), bundled);
        assert!(st.installed && !st.outdated && st.can_uninstall && !st.can_install);
        assert_eq!(st.installed_path.as_deref(), Some(link.to_str().unwrap()));
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.2.3"));
        assert_eq!(codes(&st), ["not_on_path"]);
        // Installing again changes nothing.
        assert_eq!(install(&env, &sys, false).unwrap(), st);

        // With ~/.local/bin on PATH there is nothing to warn about.
        let mut on = env.clone();
        on.path = Some(format!("{}:/usr/bin", tmp.join("home/.local/bin").display()).into());
        assert!(status(&on, &sys).warnings.is_empty());

        let st = uninstall(&env, &sys).unwrap();
        assert!(std::fs::symlink_metadata(&link).is_err());
        assert!(!st.installed && st.can_install && st.installed_version.is_none());
        assert!(!env.record.as_ref().unwrap().exists());
        // Nothing there: uninstall is a no-op.
        assert!(!uninstall(&env, &sys).unwrap().installed);
    }

    #[test]
    fn a_foreign_forkhost_is_replaced_only_when_confirmed_and_never_uninstalled() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
        let env = linux_env(&tmp, exe);
        let sys = Fake::default();
        let target = tmp.join("home/.local/bin/forkhost");
        fake_cli(&target, "forkhost 0.0.1 (mine)");
        let before = std::fs::read(&target).unwrap();

        let st = status(&env, &sys);
        let conflict = st.conflict.clone().unwrap();
        assert_eq!(conflict.path, target.display().to_string());
        assert!(conflict.replaceable);
        assert!(conflict.detail.contains("not this app's"));
        assert!(!st.installed && st.can_install && !st.can_uninstall);

        let err = install(&env, &sys, false).unwrap_err();
        assert_eq!(err.code(), "conflict");
        assert!(err.to_string().contains("Confirm to replace it"));
        assert_eq!(std::fs::read(&target).unwrap(), before);
        let err = uninstall(&env, &sys).unwrap_err();
        assert_eq!(err.code(), "conflict");
        assert_eq!(std::fs::read(&target).unwrap(), before);

        let st = install(&env, &sys, true).unwrap();
        assert!(st.installed && st.conflict.is_none());
        assert_eq!(
            std::fs::read_link(&target).unwrap(),
            tmp.join("target/debug/forkhost")
        );

        // A foreign link is described by where it points.
        std::fs::remove_file(&target).unwrap();
        std::os::unix::fs::symlink("/opt/elsewhere/forkhost", &target).unwrap();
        let st = status(&env, &sys);
        assert_eq!(
            st.conflict.unwrap().detail,
            "a broken link to /opt/elsewhere/forkhost"
        );
    }

    #[test]
    fn a_folder_in_the_way_is_never_replaced() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
        let env = linux_env(&tmp, exe);
        let sys = Fake::default();
        std::fs::create_dir_all(tmp.join("home/.local/bin/forkhost/inside")).unwrap();
        let st = status(&env, &sys);
        assert!(!st.conflict.unwrap().replaceable);
        assert!(!st.can_install);
        let err = install(&env, &sys, true).unwrap_err();
        assert_eq!(err.code(), "conflict");
        assert!(tmp.join("home/.local/bin/forkhost/inside").is_dir());
    }

    #[test]
    fn our_link_to_a_moved_build_is_updated_without_asking() {
        let tmp = Tmp::new();
        let old = fake_app(&tmp.join("old/debug"), Os::Linux, "forkhost 1.0.0");
        let env = linux_env(&tmp, old);
        let sys = Fake::default();
        install(&env, &sys, false).unwrap();
        std::fs::remove_dir_all(tmp.join("old")).unwrap();

        let new = fake_app(&tmp.join("new/debug"), Os::Linux, "forkhost 2.0.0");
        let env = linux_env(&tmp, new);
        let st = status(&env, &sys);
        assert!(st.installed && st.outdated && st.can_install && st.conflict.is_none());
        // The dangling link does not run.
        assert_eq!(codes(&st), ["not_on_path", "version_failed"]);
        let st = install(&env, &sys, false).unwrap();
        assert!(!st.outdated);
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 2.0.0"));
    }

    #[test]
    fn a_link_into_another_forkhost_counts_as_ours_only_at_the_same_version() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("a"), Os::Linux, "forkhost 1.0.0");
        let env = linux_env(&tmp, exe);
        let sys = Fake::default();
        let target = tmp.join("home/.local/bin/forkhost");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();

        fake_app(&tmp.join("b"), Os::Linux, "forkhost 1.0.0");
        std::os::unix::fs::symlink(tmp.join("b/forkhost"), &target).unwrap();
        let st = status(&env, &sys);
        assert!(st.installed && st.outdated && st.conflict.is_none());

        fake_app(&tmp.join("b"), Os::Linux, "forkhost 0.9.0");
        let st = status(&env, &sys);
        assert!(!st.installed);
        assert!(st.conflict.unwrap().detail.contains("(forkhost 0.9.0)"));
    }

    #[test]
    fn an_appimage_copies_its_cli_and_re_offers_when_the_version_changes() {
        let tmp = Tmp::new();
        let mount = tmp.join("mount1");
        let exe = fake_app(&mount.join("usr/bin"), Os::Linux, "forkhost 1.0.0");
        let mut env = linux_env(&tmp, exe);
        env.appimage = Some(tmp.join("Forkhost.AppImage"));
        env.appdir = Some(mount.clone());
        let sys = Fake::default();
        let target = tmp.join("home/.local/bin/forkhost");

        let st = status(&env, &sys);
        assert_eq!(st.kind, CliInstallKind::Copy);
        assert!(st.can_install);
        let st = install(&env, &sys, false).unwrap();
        let meta = std::fs::symlink_metadata(&target).unwrap();
        assert!(meta.is_file(), "a copy, not a link");
        assert_eq!(meta.permissions().mode() & 0o111, 0o111);
        assert!(st.installed && !st.outdated);
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
        assert_eq!(codes(&st), ["not_on_path"]);

        // The next AppImage (another mount point) carries a newer CLI.
        let mount2 = tmp.join("mount2");
        let exe2 = fake_app(&mount2.join("usr/bin"), Os::Linux, "forkhost 1.1.0");
        env.exe = exe2;
        env.appdir = Some(mount2);
        let st = status(&env, &sys);
        assert!(st.installed && st.outdated && st.can_install && st.conflict.is_none());
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
        let st = install(&env, &sys, false).unwrap();
        assert!(!st.outdated);
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.1.0"));

        // Edited by someone else since: no longer ours.
        fake_cli(&target, "forkhost 9.9.9-custom");
        let st = status(&env, &sys);
        assert!(!st.installed && st.conflict.is_some());
        assert_eq!(install(&env, &sys, false).unwrap_err().code(), "conflict");

        install(&env, &sys, true).unwrap();
        let st = uninstall(&env, &sys).unwrap();
        assert!(!target.exists() && !st.installed);
    }

    #[test]
    fn an_appimage_finds_its_cli_through_appdir() {
        let tmp = Tmp::new();
        let mount = tmp.join("mount");
        fake_cli(&mount.join("usr/bin/forkhost"), "forkhost 1.0.0");
        let mut env = linux_env(&tmp, tmp.join("elsewhere/forkhost-app"));
        env.appimage = Some(tmp.join("Forkhost.AppImage"));
        env.appdir = Some(mount.clone());
        let st = status(&env, &Fake::default());
        assert_eq!(st.kind, CliInstallKind::Copy);
        assert_eq!(
            st.bundled.as_deref(),
            Some(mount.join("usr/bin/forkhost").to_str().unwrap())
        );
    }

    #[test]
    fn a_packaged_app_has_nothing_to_do() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("usr/bin"), Os::Linux, "forkhost 1.0.0");
        let mut env = linux_env(&tmp, exe);
        env.path = Some(tmp.join("usr/bin").into_os_string());
        let sys = Fake::default();
        let st = status(&env, &sys);
        assert_eq!(st.kind, CliInstallKind::Packaged);
        assert!(st.installed && !st.can_install && !st.can_uninstall);
        assert_eq!(
            st.installed_path.as_deref(),
            Some(tmp.join("usr/bin/forkhost").to_str().unwrap())
        );
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
        assert!(st.warnings.is_empty(), "{:?}", st.warnings);
        assert_eq!(install(&env, &sys, false).unwrap(), st);
        let err = uninstall(&env, &sys).unwrap_err();
        assert_eq!(err.code(), "unsupported");
        assert!(err.to_string().contains("uninstall the package"));
    }

    #[test]
    fn without_a_bundled_cli_nothing_is_offered() {
        let tmp = Tmp::new();
        std::fs::create_dir_all(tmp.join("bin")).unwrap();
        let env = linux_env(&tmp, tmp.join("bin/forkhost-app"));
        let sys = Fake::default();
        let st = status(&env, &sys);
        assert_eq!(st.kind, CliInstallKind::None);
        assert!(st.bundled.is_none() && !st.can_install && !st.can_uninstall);
        assert_eq!(st.looked_at, tmp.join("bin/forkhost").display().to_string());
        let err = install(&env, &sys, true).unwrap_err();
        assert_eq!(err.code(), "unsupported");
        assert!(err.to_string().contains("no command-line tool beside it"));
        let err: CommandError = uninstall(&env, &sys).unwrap_err().into();
        assert_eq!(err.code, "unsupported");
    }

    #[test]
    fn without_home_there_is_nowhere_to_install() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.0.0");
        let mut env = linux_env(&tmp, exe);
        env.home = None;
        let st = status(&env, &Fake::default());
        assert_eq!(st.kind, CliInstallKind::None);
        assert_eq!(codes(&st), ["no_home"]);
        assert_eq!(
            install(&env, &Fake::default(), false).unwrap_err().code(),
            "unsupported"
        );
    }

    #[test]
    fn another_forkhost_first_on_path_is_reported() {
        let tmp = Tmp::new();
        let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.0.0");
        let mut env = linux_env(&tmp, exe);
        fake_cli(&tmp.join("other/forkhost"), "forkhost 0.1.0");
        env.path = Some(
            format!(
                "{}:{}",
                tmp.join("other").display(),
                tmp.join("home/.local/bin").display()
            )
            .into(),
        );
        let st = install(&env, &Fake::default(), false).unwrap();
        assert_eq!(codes(&st), ["shadowed"]);
        assert!(st.warnings[0].message.contains("other/forkhost"));
    }

    #[test]
    fn macos_links_usr_local_bin_and_asks_for_a_password_when_it_must() {
        let tmp = Tmp::new();
        let macos = tmp.join("Forkhost.app/Contents/MacOS");
        let exe = fake_app(&macos, Os::MacOs, "forkhost 1.0.0");
        let mut env = linux_env(&tmp, exe);
        env.os = Os::MacOs;
        env.path = Some(format!("{}:/usr/bin", tmp.join("usr/local/bin").display()).into());
        let link = tmp.join("usr/local/bin/forkhost");

        // Writable: a plain link, no prompt.
        let sys = Fake::default();
        let st = install(&env, &sys, false).unwrap();
        assert_eq!(std::fs::read_link(&link).unwrap(), macos.join("forkhost"));
        assert!(st.installed && st.warnings.is_empty() && sys.admin.borrow().is_empty());
        uninstall(&env, &sys).unwrap();

        // Not writable: the same link through the administrator shell.
        let sys = Fake {
            deny_direct: true,
            ..Fake::default()
        };
        let st = install(&env, &sys, false).unwrap();
        assert_eq!(std::fs::read_link(&link).unwrap(), macos.join("forkhost"));
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
        let st = uninstall(&env, &sys).unwrap();
        assert!(!st.installed && std::fs::symlink_metadata(&link).is_err());
        let admin = sys.admin.borrow();
        assert_eq!(admin.len(), 2);
        assert!(admin[0].starts_with("/bin/mkdir -p '"), "{}", admin[0]);
        assert!(admin[0].contains("&& /bin/ln -sfn '"), "{}", admin[0]);
        assert_eq!(admin[1], format!("/bin/rm -f '{}'", link.display()));
    }

    #[test]
    fn osascript_gets_an_escaped_applescript_string() {
        let args =
            osascript_args(r#"/bin/ln -sfn '/Apps/My "Fork"\host.app' '/usr/local/bin/forkhost'"#);
        assert_eq!(args[0], "-e");
        assert_eq!(
            args[1],
            r#"do shell script "/bin/ln -sfn '/Apps/My \"Fork\"\\host.app' '/usr/local/bin/forkhost'" with administrator privileges"#
        );
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }

    fn windows_env(tmp: &Tmp) -> (CliEnv, String) {
        let dir = tmp.join("Forkhost");
        let exe = fake_app(&dir, Os::Windows, "forkhost 1.0.0");
        let mut env = linux_env(tmp, exe);
        env.os = Os::Windows;
        env.path = Some(r"C:\Windows\system32;C:\Windows".into());
        (env, dir.display().to_string())
    }

    #[test]
    fn windows_adds_the_app_folder_to_the_user_path_once_and_removes_only_it() {
        let tmp = Tmp::new();
        let (env, dir) = windows_env(&tmp);
        let sys = Fake::default();
        *sys.user_path.borrow_mut() = Some(r"%USERPROFILE%\bin;C:\Tools".into());

        let st = status(&env, &sys);
        assert_eq!(st.kind, CliInstallKind::UserPath);
        assert_eq!(st.target.as_deref(), Some(dir.as_str()));
        assert!(!st.installed && st.can_install);
        assert!(st.conflict.is_none() && st.warnings.is_empty());

        let st = install(&env, &sys, false).unwrap();
        assert_eq!(
            sys.user_path.borrow().as_deref(),
            Some(format!(r"%USERPROFILE%\bin;C:\Tools;{dir}").as_str())
        );
        assert!(st.installed && st.can_uninstall && !st.can_install);
        assert_eq!(
            st.installed_path.as_deref(),
            Some(format!("{dir}/forkhost.exe").as_str())
        );
        assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
        assert_eq!(codes(&st), ["restart_terminals"]);
        // Not twice.
        install(&env, &sys, false).unwrap();
        assert_eq!(*sys.writes.borrow(), 1);

        let st = uninstall(&env, &sys).unwrap();
        assert_eq!(
            sys.user_path.borrow().as_deref(),
            Some(r"%USERPROFILE%\bin;C:\Tools")
        );
        assert!(!st.installed && st.warnings.is_empty());
        uninstall(&env, &sys).unwrap();
        assert_eq!(*sys.writes.borrow(), 2);
    }

    #[test]
    fn windows_creates_and_deletes_a_missing_user_path() {
        let tmp = Tmp::new();
        let (env, dir) = windows_env(&tmp);
        let sys = Fake::default();
        install(&env, &sys, false).unwrap();
        assert_eq!(sys.user_path.borrow().as_deref(), Some(dir.as_str()));
        uninstall(&env, &sys).unwrap();
        assert_eq!(*sys.user_path.borrow(), None);
    }

    #[test]
    fn windows_path_lists_compare_folders_loosely_and_keep_other_entries() {
        assert!(same_windows_dir(
            r"C:\Program Files\Forkhost\",
            r"c:\program files\forkhost"
        ));
        assert!(same_windows_dir(r#""C:\A""#, "C:/A"));
        assert!(!same_windows_dir("", ""));
        assert_eq!(windows_path_with(None, r"C:\F"), Some(r"C:\F".into()));
        assert_eq!(windows_path_with(Some(""), r"C:\F"), Some(r"C:\F".into()));
        assert_eq!(
            windows_path_with(Some(r"C:\A;"), r"C:\F"),
            Some(r"C:\A;C:\F".into())
        );
        assert_eq!(windows_path_with(Some(r"c:\f\;C:\A"), r"C:\F"), None);
        assert_eq!(
            windows_path_without(r"C:\A;;C:\F;%X%\b", r"c:\f"),
            Some(r"C:\A;;%X%\b".into())
        );
        assert_eq!(windows_path_without(r"C:\A", r"C:\F"), None);
    }

    #[test]
    fn powershell_scripts_keep_the_path_expandable_and_broadcast_the_change() {
        let read = windows_read_path_script();
        assert!(read.contains("[Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment'"));
        assert!(read.contains("'DoNotExpandEnvironmentNames'"));
        assert_eq!(
            parse_read_path_output("\u{feff}=C:\\A;%X%\r\n"),
            Some(Some("C:\\A;%X%".into()))
        );
        assert_eq!(parse_read_path_output("-"), Some(None));
        assert_eq!(parse_read_path_output("="), Some(Some(String::new())));
        assert_eq!(parse_read_path_output("garbage"), None);

        let write = windows_write_path_script(Some("C:\\A"), Some("C:\\A;C:\\Bob's ‘x’"));
        assert!(write.contains("'DoNotExpandEnvironmentNames'"));
        assert!(write.contains("$expected = 'C:\\A'"));
        assert!(write.contains("if ($current -cne $expected) { exit 3 }"));
        assert!(write.contains(
            "$key.SetValue('Path', 'C:\\A;C:\\Bob''s ‘‘x’’', [Microsoft.Win32.RegistryValueKind]::ExpandString)"
        ));
        let set = write
            .find("SetEnvironmentVariable('FORKHOST_PATH_REFRESH', '1', 'User')")
            .unwrap();
        let unset = write
            .find("SetEnvironmentVariable('FORKHOST_PATH_REFRESH', $null, 'User')")
            .unwrap();
        assert!(set < unset);

        let delete = windows_write_path_script(None, None);
        assert!(delete.contains("$expected = $null"));
        assert!(delete.contains("$key.DeleteValue('Path', $false)"));
        assert!(!delete.contains("SetValue('Path'"));
    }

    #[test]
    fn encoded_commands_are_utf16_base64() {
        for (plain, b64) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), b64);
        }
        assert_eq!(encode_powershell("a"), "YQA=");
        assert_eq!(encode_powershell("é"), "6QA=");
    }

    #[test]
    fn version_reports_a_failing_or_silent_cli() {
        let tmp = Tmp::new();
        let bad = tmp.join("bad");
        std::fs::write(&bad, "#!/bin/sh\nexit 2\n").unwrap();
        std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(run_version(&bad).unwrap_err().contains("exited"));
        let silent = tmp.join("silent");
        std::fs::write(&silent, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&silent, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(run_version(&silent).unwrap_err(), "it printed nothing");
        assert!(run_version(&tmp.join("missing")).is_err());
    }

    #[test]
    fn status_serializes_in_snake_case() {
        let v = serde_json::to_value(CliInstallKind::UserPath).unwrap();
        assert_eq!(v, "user_path");
    }
}
