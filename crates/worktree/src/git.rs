//! Running the `git` program. Every call goes through here so that every call gets the same
//! protections: no terminal prompts, no user hooks, no fsmonitor hook, no filter driver the
//! repository's own config defines (see `repo.rs`), C locale, no optional
//! locks (a read such as `status` must never rewrite the user's index), and none of the
//! repository-selecting variables a parent process may have exported. And every call has a
//! deadline: a git that hangs (a slow network filesystem, a smudge or clean filter waiting on
//! the network, a lock held by a stuck process) is killed with its process group and reported
//! as [`WorktreeError::GitTimedOut`], never waited on forever.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::error::{Result, WorktreeError};

/// Variables that would point git at another repository, index or object store than the folder
/// we name. A parent (a hook, an editor, a test harness) may have exported them.
const INHERITED_REPO_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
];

/// How much of a failed command's stderr an error keeps: enough to explain, never a whole dump.
const STDERR_TAIL: usize = 2000;

/// How long one git call may run by default. Generous: the slowest legitimate call is a
/// `worktree add` checking out a large repository (42 s for 1 GB in the benchmark); a call
/// past this is stuck, not slow.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The git program and the environment every call runs with. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Git {
    program: PathBuf,
    extra_env: Vec<(OsString, OsString)>,
    /// An empty folder given as `core.hooksPath`, so no hook of the user's runs (update-ref runs
    /// `reference-transaction`, worktree add runs `post-checkout`). Lives as long as any clone.
    no_hooks: Arc<tempfile::TempDir>,
    /// The deadline of each call (see [`DEFAULT_TIMEOUT`]).
    timeout: Duration,
    /// Settings every call gets on top of the repository's (as `GIT_CONFIG_COUNT`,
    /// `GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`: a key is never split at an `=`): the
    /// repository's own filter drivers turned off ([`crate::repo::Repo::discover`]).
    config: Vec<(String, String)>,
}

impl Git {
    /// `git` found on `PATH`.
    pub fn new() -> Result<Self> {
        Self::with_program("git")
    }

    /// A resolved program path: a GUI launch on Windows or macOS may not have git on `PATH`.
    pub fn with_program(program: impl Into<PathBuf>) -> Result<Self> {
        let no_hooks = tempfile::Builder::new()
            .prefix("forkhost-no-hooks-")
            .tempdir()?;
        Ok(Git {
            program: program.into(),
            extra_env: Vec::new(),
            no_hooks: Arc::new(no_hooks),
            timeout: DEFAULT_TIMEOUT,
            config: Vec::new(),
        })
    }

    /// The deadline of each call from now on; a call still running then is killed and is
    /// [`WorktreeError::GitTimedOut`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// `key=value` for every call from now on, above every config file (as `-c` would be).
    pub(crate) fn with_config(mut self, pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        for pair in pairs {
            if !self.config.contains(&pair) {
                self.config.push(pair);
            }
        }
        self
    }

    /// An extra variable for every call (for example `HOME` or `GIT_CONFIG_GLOBAL`).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.extra_env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// A call in `cwd`; add arguments, variables and stdin, then run it.
    pub(crate) fn call(&self, cwd: &Path) -> Call<'_> {
        Call {
            git: self,
            cwd: cwd.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            stderr_lines: None,
            worktree_lock: None,
        }
    }

    fn command(&self, cwd: &Path) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.current_dir(cwd);
        for var in INHERITED_REPO_VARS {
            cmd.env_remove(var);
        }
        cmd.env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .env("GIT_PAGER", "cat")
            .env("GIT_ASKPASS", "")
            .env("SSH_ASKPASS", "");
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        if !self.config.is_empty() {
            cmd.env("GIT_CONFIG_COUNT", self.config.len().to_string());
            for (i, (key, value)) in self.config.iter().enumerate() {
                cmd.env(format!("GIT_CONFIG_KEY_{i}"), key)
                    .env(format!("GIT_CONFIG_VALUE_{i}"), value);
            }
        }
        let mut hooks = OsString::from("core.hooksPath=");
        hooks.push(self.no_hooks.path());
        cmd.arg("-c")
            .arg(hooks)
            .args(["-c", "core.fsmonitor=false"])
            .args(["-c", "core.splitIndex=false"])
            .args(["-c", "color.ui=false"])
            // Non-ASCII names as UTF-8 in patch headers, not octal escapes.
            .args(["-c", "core.quotePath=false"]);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        own_group(&mut cmd);
        cmd
    }
}

/// Git leads a process group of its own on Unix, so that a timeout kills what it started too (a
/// filter, `git-lfs`, an ssh transport), not git alone with its children left holding the pipes.
/// On Windows it gets no console window (one platform's code per function body, like
/// [`kill_tree`], so the function is one whole wherever it is built and mutation-tested).
fn own_group(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        use windows_sys::Win32::System::Threading::CREATE_NO_WINDOW;
        // A GUI app must not flash a console per git call.
        cmd.creation_flags(CREATE_NO_WINDOW);
    }
    #[cfg(not(any(unix, windows)))]
    let _ = cmd;
}

/// Kills a timed-out call: its whole process group on Unix, its process tree on Windows.
fn kill_tree(child: &mut Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) with a negative pid signals the group git leads (`process_group(0)`
        // made its pid the group id); the child is not reaped yet, so the id is still ours.
        let pid = child.id() as libc::pid_t;
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(windows)]
    {
        let _ = Command::new("taskkill")
            .args(["/F", "/T", "/PID", &child.id().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

/// Reads a pipe to its end on a thread of its own; the bytes arrive on the channel.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    drain_watching(pipe, None)
}

/// Sees the lines of a call's stderr as they come (git ends a progress line with `\r`).
pub(crate) type LineWatcher = Box<dyn FnMut(&str) + Send>;

/// [`drain`], handing each line to `watch` as soon as it is complete.
fn drain_watching(
    pipe: Option<impl Read + Send + 'static>,
    mut watch: Option<LineWatcher>,
) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let mut chunk = [0u8; 4096];
            let mut line_start = 0;
            loop {
                let n = match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                bytes.extend_from_slice(&chunk[..n]);
                let Some(watch) = watch.as_mut() else {
                    continue;
                };
                while let Some(end) = bytes[line_start..]
                    .iter()
                    .position(|b| *b == b'\r' || *b == b'\n')
                {
                    watch(&String::from_utf8_lossy(
                        &bytes[line_start..line_start + end],
                    ));
                    line_start += end + 1;
                }
            }
            let _ = tx.send(bytes);
        });
    } else {
        let _ = tx.send(Vec::new());
    }
    rx
}

/// What a finished call printed.
pub(crate) struct Output {
    pub success: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

pub(crate) struct Call<'g> {
    git: &'g Git,
    cwd: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    stderr_lines: Option<LineWatcher>,
    /// The shared git folder whose worktree lock this call holds while git runs.
    worktree_lock: Option<PathBuf>,
}

impl Call<'_> {
    /// Holds the worktree lock of the repository whose shared git folder is `common_dir` while
    /// git runs: for calls that write or walk the list of worktrees (see `worktree_lock.rs`).
    pub fn holding_worktree_lock(mut self, common_dir: &Path) -> Self {
        self.worktree_lock = Some(common_dir.to_owned());
        self
    }

    /// Hands each line git writes to stderr to `watch` while the call runs (progress).
    pub fn watch_stderr(mut self, watch: impl FnMut(&str) + Send + 'static) -> Self {
        self.stderr_lines = Some(Box::new(watch));
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    pub fn stdin(mut self, bytes: Vec<u8>) -> Self {
        self.stdin = Some(bytes);
        self
    }

    /// Runs and returns stdout; a non-zero exit is [`WorktreeError::GitFailed`].
    pub fn run(self) -> Result<Vec<u8>> {
        let command = self.describe();
        let out = self.output()?;
        if out.success {
            Ok(out.stdout)
        } else {
            Err(failed(command, &out.stderr))
        }
    }

    /// Runs and returns the exit status with the output, for commands whose non-zero exit is an
    /// answer (`rev-parse --verify`, `apply --check`) rather than a failure.
    pub fn output(mut self) -> Result<Output> {
        let _held = match &self.worktree_lock {
            Some(common_dir) => crate::worktree_lock::lock(common_dir, self.git.timeout)?,
            None => None,
        };
        let mut cmd = self.git.command(&self.cwd);
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if self.stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        tracing::trace!(command = %self.describe(), cwd = %self.cwd.display(), "git");
        let mut child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => WorktreeError::GitMissing(self.git.program.clone()),
            _ => WorktreeError::Io(e),
        })?;
        // Feed stdin from its own thread: a large patch or path list must not deadlock against a
        // child that is already filling its stdout pipe.
        let command = self.describe();
        let writer = match (self.stdin, child.stdin.take()) {
            (Some(bytes), Some(mut pipe)) => Some(std::thread::spawn(move || {
                // A child that exits early closes the pipe; its exit status tells the story.
                let _ = pipe.write_all(&bytes);
            })),
            _ => None,
        };
        let stdout = drain(child.stdout.take());
        let stderr = drain_watching(child.stderr.take(), self.stderr_lines.take());
        // The end of stdout (git closed it: it exited or was killed) or the deadline, whichever
        // comes first; then the exit status.
        let deadline = std::time::Instant::now() + self.git.timeout;
        let out = match stdout.recv_timeout(self.git.timeout) {
            Ok(bytes) => Some(bytes),
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(Vec::new()),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
        };
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let finished = match out {
            Some(bytes) => wait_until(&mut child, left)?.map(|status| (status, bytes)),
            None => None,
        };
        let Some((status, stdout)) = finished else {
            kill_tree(&mut child);
            let _ = child.wait();
            tracing::warn!(%command, secs = self.git.timeout.as_secs(), "git timed out and was killed");
            return Err(WorktreeError::GitTimedOut {
                command,
                after: self.git.timeout,
            });
        };
        // Git has exited; what it wrote to stderr is all there (a grandchild that kept the pipe
        // is not waited on for long).
        let stderr = stderr
            .recv_timeout(Duration::from_secs(2))
            .unwrap_or_default();
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        Ok(Output {
            success: status.success(),
            stdout,
            stderr,
        })
    }

    fn describe(&self) -> String {
        let mut text = String::from("git");
        for arg in self.args.iter().take(6) {
            text.push(' ');
            text.push_str(&arg.to_string_lossy());
        }
        if self.args.len() > 6 {
            text.push_str(" …");
        }
        text
    }
}

/// The child's exit status once it exits within `left`, else `None` (still running).
fn wait_until(child: &mut Child, left: Duration) -> Result<Option<std::process::ExitStatus>> {
    // Stdout is closed, so git is exiting; a short poll, not a busy loop, covers the rest.
    let deadline = std::time::Instant::now() + left;
    let mut pause = Duration::from_micros(100);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if std::time::Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

pub(crate) fn failed(command: String, stderr: &[u8]) -> WorktreeError {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    let start = text
        .char_indices()
        .rev()
        .nth(STDERR_TAIL)
        .map_or(0, |(i, _)| i);
    WorktreeError::GitFailed {
        command,
        stderr_tail: text[start..].to_owned(),
    }
}

/// Splits `-z` output into its NUL-terminated fields.
pub(crate) fn nul_fields(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    nul_records(bytes).map(|f| String::from_utf8_lossy(f).into_owned())
}

/// Splits `-z` output into its NUL-terminated fields, as bytes (a path need not be UTF-8).
pub(crate) fn nul_records(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|b| *b == 0).filter(|f| !f.is_empty())
}

/// A record of `ls-tree` (`<mode> <type> <oid>\t<path>`) or `ls-files --stage`
/// (`<mode> <oid> <stage>\t<path>`): its three words, and its path.
pub(crate) fn words_and_path(record: &[u8]) -> Option<([&[u8]; 3], &[u8])> {
    let tab = record.iter().position(|b| *b == b'\t')?;
    let mut words = record[..tab].split(|b| *b == b' ');
    let words = [words.next()?, words.next()?, words.next()?];
    Some((words, &record[tab + 1..]))
}

/// Joins paths as NUL-terminated stdin for `--stdin -z` / `--pathspec-file-nul`.
pub(crate) fn nul_joined<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = Vec::new();
    for p in paths {
        out.extend_from_slice(p.as_bytes());
        out.push(0);
    }
    out
}

#[cfg(test)]
mod tests {
    /// Errors name a command by its first six arguments, and say when it had more.
    #[test]
    fn a_command_is_named_by_its_first_six_arguments() {
        let git = super::Git::new().unwrap();
        let named = |n: usize| {
            git.call(std::path::Path::new("."))
                .args((1..=n).map(|i| format!("a{i}")))
                .describe()
        };
        assert_eq!(named(0), "git");
        assert_eq!(named(5), "git a1 a2 a3 a4 a5");
        assert_eq!(named(6), "git a1 a2 a3 a4 a5 a6");
        assert_eq!(named(7), "git a1 a2 a3 a4 a5 a6 …");
    }
}
