//! Every harness process starts here: the Claude, Codex and Pi runtimes, their forks, the
//! `--version` probe, and (through [`Tree::adopt`]) the terminal tab's PTY child.
//!
//! A harness runs tools, and the tools run their own children; none of them may outlive the
//! harness, nor the app, even when the app is SIGKILLed. So each process gets a [`Tree`]:
//! - Unix: a process group led by a tiny `sh` watchdog that the harness joins. The watchdog
//!   blocks reading a pipe only the app holds; when the app dies, for any reason, the pipe
//!   closes and the watchdog kills its whole group. (`PR_SET_PDEATHSIG` would fire when the
//!   spawning *thread* exits, which tokio's blocking threads do, and reaches only the child,
//!   not its tools; the pipe works the same on Linux and macOS.)
//! - Windows: a Job Object with `KILL_ON_JOB_CLOSE`, so closing its handle, which the OS does
//!   when the app dies, ends every process in it; the process starts suspended and runs only
//!   once it is in the job; no console window (`CREATE_NO_WINDOW`).
//!
//! One stderr tail ([`StderrTail`]) and one exit description ([`describe_exit`]) serve all.

mod exit;
mod tail;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};

#[cfg(unix)]
use unix as platform;
#[cfg(windows)]
use windows as platform;

pub use exit::describe as describe_exit;
pub use tail::StderrTail;
#[cfg(unix)]
pub use unix::wait_exited;

use crate::{HarnessError, HarnessKind};

/// How much of a short-lived command's stdout is kept (a `--version` line is tiny).
const OUTPUT_LIMIT: u64 = 64 * 1024;

/// A harness process's whole tree: the process and everything it started. Clones share it;
/// when the last clone is dropped, whatever is left of the tree is killed.
#[derive(Clone)]
pub struct Tree(Arc<platform::Group>);

impl Tree {
    /// Takes an already started process (the terminal tab's PTY child, which portable-pty
    /// spawns as a session leader) under the same guard. On Windows `handle` is its process
    /// handle; elsewhere it is unused.
    ///
    /// The caller reaps the process itself and must call [`Tree::release`] before it does:
    /// after the reap its id could name another process.
    pub fn adopt(pid: u32, handle: Option<RawProcess>) -> std::io::Result<Tree> {
        platform::Group::adopt(pid, handle).map(|g| Tree(Arc::new(g)))
    }

    /// Asks the tree to end: SIGTERM to the group on Unix. Windows has no such request for a
    /// process without a console, so there it kills.
    pub fn terminate(&self) {
        self.0.signal(Signal::Terminate);
    }

    /// A terminal's hang-up (SIGHUP): a TUI saves and leaves. Windows: kills.
    pub fn hang_up(&self) {
        self.0.signal(Signal::HangUp);
    }

    /// Kills every process of the tree (SIGKILL to the group; the job terminated).
    pub fn kill(&self) {
        self.0.signal(Signal::Kill);
    }

    /// The process was reaped (or is about to be): no signal is sent any more, and an
    /// adopted tree stops watching.
    pub fn release(&self) {
        self.0.release();
    }

    /// The group id (Unix) for logs.
    pub fn id(&self) -> Option<u32> {
        self.0.id()
    }
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Tree").field(&self.id()).finish()
    }
}

/// A process handle for [`Tree::adopt`] (Windows' `HANDLE`; nothing elsewhere).
#[cfg(windows)]
pub type RawProcess = std::os::windows::io::RawHandle;
#[cfg(not(windows))]
pub type RawProcess = std::convert::Infallible;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    HangUp,
    Terminate,
    Kill,
}

/// A started harness process. The caller takes `child.stdin`/`child.stdout`; stderr is
/// already being read into `stderr`.
pub(crate) struct Spawned {
    pub child: Child,
    pub tree: Tree,
    pub stderr: StderrTail,
}

/// What a short-lived command ([`HarnessCommand::output`]) left.
#[derive(Debug)]
pub(crate) struct Output {
    pub stdout: Vec<u8>,
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// The last lines it wrote to stderr (a sign-in check reads its words there).
    pub stderr: String,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    #[error("could not run: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("did not answer within {0:?}")]
    Timeout(Duration),
    #[error("could not be waited for: {0}")]
    Wait(#[source] std::io::Error),
}

/// How a harness process is started: stdin, stdout and stderr piped unless told otherwise,
/// the harness PATH, its own tree.
pub(crate) struct HarnessCommand {
    cmd: Command,
    program: PathBuf,
}

impl HarnessCommand {
    pub fn new(program: &Path) -> Self {
        let mut cmd = Command::new(program);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(path) = child_path() {
            cmd.env("PATH", path);
        }
        HarnessCommand {
            cmd,
            program: program.to_owned(),
        }
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.cmd.arg(arg);
        self
    }

    pub fn args<S: AsRef<OsStr>>(&mut self, args: impl IntoIterator<Item = S>) -> &mut Self {
        self.cmd.args(args);
        self
    }

    pub fn cwd(&mut self, dir: &Path) -> &mut Self {
        self.cmd.current_dir(dir);
        self
    }

    /// Extra variables; applied after the harness PATH, so a `PATH` here wins.
    pub fn envs(&mut self, env: &[(String, String)]) -> &mut Self {
        self.cmd.envs(env.iter().map(|(k, v)| (k, v)));
        self
    }

    pub fn stdin_null(&mut self) -> &mut Self {
        self.cmd.stdin(Stdio::null());
        self
    }

    /// Starts the process in a tree of its own and starts reading its stderr.
    pub fn spawn(mut self) -> std::io::Result<Spawned> {
        let prepared = platform::prepare(&mut self.cmd);
        let mut child = self.cmd.spawn()?;
        // Windows starts the process suspended and resumes it once it is in its job, which
        // can fail (the process is then killed); nothing on Unix can.
        #[cfg(windows)]
        let group = platform::Group::started(prepared, &mut child)?;
        #[cfg(unix)]
        let group = platform::Group::started(prepared, &child);
        let stderr = match child.stderr.take() {
            Some(pipe) => StderrTail::collect(pipe),
            None => StderrTail::closed(),
        };
        let tree = Tree(Arc::new(group));
        tracing::debug!(pid = child.id(), group = tree.id(), program = %self.program.display(), "harness process started");
        Ok(Spawned {
            child,
            tree,
            stderr,
        })
    }

    /// Runs a short command to its end (`--version`): stdout kept (up to 64 KB), stdin
    /// closed. Past `limit` the tree is killed. A tool it left running is killed when it
    /// exits, so a pipe it inherited cannot keep the read waiting.
    pub async fn output(mut self, limit: Duration) -> Result<Output, OutputError> {
        self.stdin_null();
        let Spawned {
            mut child,
            tree,
            stderr,
        } = self.spawn().map_err(OutputError::Spawn)?;
        let stdout = child.stdout.take();
        let read = async {
            let mut buf = Vec::new();
            if let Some(pipe) = stdout {
                let _ = pipe.take(OUTPUT_LIMIT).read_to_end(&mut buf).await;
            }
            buf
        };
        let run = async {
            let status = child.wait().await;
            tree.kill();
            status
        };
        let (stdout, status) = tokio::time::timeout(limit, async { tokio::join!(read, run) })
            .await
            .map_err(|_| {
                tree.kill();
                OutputError::Timeout(limit)
            })?;
        let status = status.map_err(OutputError::Wait)?;
        stderr.wait_closed(Duration::from_millis(500)).await;
        Ok(Output {
            stdout,
            code: status.code(),
            stderr: stderr.text(),
        })
    }
}

/// The error of a harness that could not be started: not found (or not allowed to run) is
/// `HarnessNotFound`, anything else `HarnessFailed`.
pub(crate) fn start_error(kind: HarnessKind, program: &Path, err: std::io::Error) -> HarnessError {
    match err.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            HarnessError::HarnessNotFound {
                harness: kind,
                detail: format!("{} could not start: {err}", program.display()),
            }
        }
        _ => HarnessError::failed(
            kind,
            format!("could not start {}: {err}", program.display()),
            "",
        ),
    }
}

/// The PATH harness children get: the folders harnesses are looked up in (the login shell's
/// PATH on a GUI launch), so an npm shim finds `node` and the agents find their tools.
fn child_path() -> Option<std::ffi::OsString> {
    Some(crate::search_path::child_path()).filter(|p| !p.is_empty())
}

// The tree with real processes, on each platform (Unix's process group, Windows' job).
#[cfg(all(test, unix))]
mod unix_tests;
#[cfg(all(test, windows))]
mod windows_tests;
