//! The environment the action reads ([`CliEnv`]) and what it does to the machine beyond plain
//! file operations ([`System`]), both injected so tests can fake them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::error::CliToolError;
use super::files::replace_with_link;
use super::macos::osascript_args;
use super::version::run_version;
use super::windows::{
    parse_read_path_output, run_powershell, windows_read_path_script, windows_write_path_script,
};

/// The file (in the data folder) where the app remembers what it installed, so that it can
/// update or remove its own copy or link later without asking, and leave anything else alone.
pub(super) const RECORD_FILE: &str = "cli-tool.json";

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
    pub(super) fn app_name(self) -> &'static str {
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

    pub(super) fn path_dirs(&self) -> Vec<PathBuf> {
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
    pub(super) fn tilde(&self, path: &Path) -> String {
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
