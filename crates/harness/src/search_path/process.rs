//! This process's search path: computed once (with the login shell's `PATH` on a GUI
//! launch), given to every harness child, and used for every lookup.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::{compose, fallback_dirs, find_program, fs_entry, Lookup, SearchPath};

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
