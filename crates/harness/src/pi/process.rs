//! One `pi --mode rpc` child process: spawning it in its own process group, correlating
//! commands with their responses, keeping the tail of its stderr, and ending it.
//!
//! A stdout reader task routes each record: responses to the command waiting for them,
//! extension dialogs are cancelled at once (nothing here can answer them, and an unanswered
//! dialog would block Pi), and session events go to the channel returned by [`RpcProcess::spawn`].
//! The channel closes when Pi's stdout does, i.e. when the process is gone.

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

use super::protocol::{self, Record, Response};
use crate::{HarnessBinary, HarnessError, HarnessKind, HarnessResult};

/// Lines of stderr kept for error reports.
const STDERR_LINES: usize = 20;
/// Longest stderr line kept (bytes); the rest of a line is cut.
const STDERR_LINE_BYTES: usize = 400;

/// Why a command got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RpcError {
    /// Pi's stdout closed (the process exited or crashed).
    Closed,
    Timeout,
    /// Writing the command failed (stdin closed).
    Write(String),
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Closed => f.write_str("pi exited before answering"),
            RpcError::Timeout => f.write_str("pi did not answer in time"),
            RpcError::Write(e) => write!(f, "cannot write to pi: {e}"),
        }
    }
}

/// State shared by the owner, the reader tasks and clients.
struct Shared {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    child: tokio::sync::Mutex<Option<Child>>,
    pending: Mutex<HashMap<String, oneshot::Sender<Response>>>,
    next_id: AtomicU64,
    stderr: Mutex<VecDeque<String>>,
    stderr_done: tokio::sync::Notify,
    stderr_closed: std::sync::atomic::AtomicBool,
}

/// A handle for sending commands; cheap to clone, shared with the runtime's event task.
#[derive(Clone)]
pub(super) struct RpcClient(Arc<Shared>);

/// The owner of the process. Dropping it kills the process group if the process is still there.
pub(super) struct RpcProcess {
    client: RpcClient,
    pid: Option<u32>,
}

impl RpcProcess {
    /// Spawns `binary` with `args` in `cwd` (its own process group, stdin/stdout piped) and
    /// returns it with the channel of its session events.
    pub async fn spawn(
        binary: &HarnessBinary,
        args: &[OsString],
        cwd: &Path,
        env: &[(String, String)],
    ) -> HarnessResult<(RpcProcess, mpsc::UnboundedReceiver<Value>)> {
        let mut command = Command::new(&binary.path);
        command
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own group, so tool processes Pi starts can be killed with it.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|err| spawn_error(binary, err))?;
        let pid = child.id();
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let shared = Arc::new(Shared {
            stdin: tokio::sync::Mutex::new(stdin),
            child: tokio::sync::Mutex::new(Some(child)),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            stderr: Mutex::new(VecDeque::new()),
            stderr_done: tokio::sync::Notify::new(),
            stderr_closed: false.into(),
        });
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        if let Some(stdout) = stdout {
            tokio::spawn(read_stdout(shared.clone(), stdout, events_tx));
        }
        if let Some(stderr) = stderr {
            tokio::spawn(read_stderr(shared.clone(), stderr));
        }
        tracing::debug!(pid, "pi rpc process started");
        Ok((
            RpcProcess {
                client: RpcClient(shared),
                pid,
            },
            events_rx,
        ))
    }

    pub fn client(&self) -> RpcClient {
        self.client.clone()
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Ends the process: closes stdin (Pi's orderly shutdown, which also aborts a running
    /// turn), waits up to `grace`, then kills the whole process group. Always reaps the child.
    pub async fn shutdown(&self, grace: Duration) -> Option<ExitStatus> {
        self.client.0.stdin.lock().await.take();
        let mut guard = self.client.0.child.lock().await;
        let child = guard.as_mut()?;
        let status = match tokio::time::timeout(grace, child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                tracing::debug!(pid = self.pid, "pi did not exit in time; killing its group");
                // The child is not reaped yet, so its pid (= the group id) cannot be reused.
                kill_group(self.pid);
                let _ = child.start_kill();
                child.wait().await.ok()
            }
        };
        guard.take();
        status
    }
}

impl Drop for RpcProcess {
    fn drop(&mut self) {
        // Not shut down (the runtime was dropped): kill the group while the child is unreaped.
        if let Ok(mut guard) = self.client.0.child.try_lock() {
            if let Some(child) = guard.as_mut() {
                if matches!(child.try_wait(), Ok(None)) {
                    kill_group(self.pid);
                }
            }
            // Dropping the Child (kill_on_drop) leaves reaping to tokio: no zombie.
            guard.take();
        }
    }
}

impl RpcClient {
    /// Sends command `kind` with `fields` and waits up to `timeout` for its response.
    pub async fn request(
        &self,
        kind: &str,
        fields: Value,
        timeout: Duration,
    ) -> Result<Response, RpcError> {
        let id = format!("fh-{}", self.0.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.0.pending).insert(id.clone(), tx);
        if let Err(err) = self.write(&protocol::command_line(&id, kind, fields)).await {
            lock(&self.0.pending).remove(&id);
            return Err(err);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(_)) => Err(RpcError::Closed),
            Err(_) => {
                lock(&self.0.pending).remove(&id);
                Err(RpcError::Timeout)
            }
        }
    }

    async fn write(&self, line: &str) -> Result<(), RpcError> {
        let mut stdin = self.0.stdin.lock().await;
        let Some(stdin) = stdin.as_mut() else {
            return Err(RpcError::Write("stdin is closed".into()));
        };
        let result = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        };
        result.await.map_err(|e| RpcError::Write(e.to_string()))
    }

    /// The last lines Pi wrote to stderr, once stderr is closed or `wait` has passed.
    pub async fn stderr_tail(&self, wait: Duration) -> String {
        let done = self.0.stderr_done.notified();
        if !self.0.stderr_closed.load(Ordering::Acquire) {
            let _ = tokio::time::timeout(wait, done).await;
        }
        let lines = lock(&self.0.stderr);
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// `HarnessFailed` with `message` and the tail of stderr.
    pub async fn failure(&self, message: impl Into<String>, wait: Duration) -> HarnessError {
        HarnessError::failed(HarnessKind::Pi, message, self.stderr_tail(wait).await)
    }

    /// Waits up to `wait` for the process to exit and describes how it ended.
    pub async fn exit_status(&self, wait: Duration) -> String {
        let mut guard = self.0.child.lock().await;
        let Some(child) = guard.as_mut() else {
            return "exited".into();
        };
        match tokio::time::timeout(wait, child.wait()).await {
            Ok(Ok(status)) => {
                guard.take();
                describe_status(status)
            }
            Ok(Err(err)) => format!("exit status unavailable: {err}"),
            Err(_) => "closed its output but is still running".into(),
        }
    }
}

async fn read_stdout(
    shared: Arc<Shared>,
    stdout: impl AsyncRead + Unpin,
    events: mpsc::UnboundedSender<Value>,
) {
    let client = RpcClient(shared.clone());
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // Records are split on LF only (U+2028 inside strings is not a boundary); CRLF is fine.
        let trimmed = line.strip_suffix(b"\n").unwrap_or(&line);
        let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
        match protocol::parse_record(trimmed) {
            Some(Record::Response(response)) => route_response(&shared, response),
            Some(Record::UiRequest { id, method }) => {
                if protocol::is_dialog(&method) {
                    tracing::warn!(%method, "pi extension asked for a dialog; cancelled");
                    let _ = client.write(&protocol::cancel_dialog_line(&id)).await;
                }
            }
            Some(Record::Event(event)) => {
                let _ = events.send(event);
            }
            None => tracing::debug!(bytes = trimmed.len(), "skipped a malformed pi stdout line"),
        }
    }
    // Every waiting command learns that no answer will come.
    lock(&shared.pending).clear();
}

fn route_response(shared: &Shared, response: Response) {
    let waiter = response
        .id
        .as_ref()
        .and_then(|id| lock(&shared.pending).remove(id));
    match waiter {
        Some(tx) => {
            let _ = tx.send(response);
        }
        None => tracing::debug!(
            command = %response.command,
            success = response.success,
            "pi response nobody waits for"
        ),
    }
}

async fn read_stderr(shared: Arc<Shared>, stderr: impl AsyncRead + Unpin) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut text = String::from_utf8_lossy(&line).trim_end().to_owned();
        if text.is_empty() {
            continue;
        }
        if text.len() > STDERR_LINE_BYTES {
            let cut = (0..=STDERR_LINE_BYTES)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            text.truncate(cut);
            text.push('…');
        }
        let mut lines = lock(&shared.stderr);
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(text);
    }
    shared.stderr_closed.store(true, Ordering::Release);
    shared.stderr_done.notify_waiters();
}

fn spawn_error(binary: &HarnessBinary, err: std::io::Error) -> HarnessError {
    match err.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            HarnessError::HarnessNotFound {
                harness: HarnessKind::Pi,
                detail: format!("cannot run {}: {err}", binary.path.display()),
            }
        }
        _ => HarnessError::failed(HarnessKind::Pi, format!("cannot start pi: {err}"), ""),
    }
}

fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with code {code}"),
        None => "exited".into(),
    }
}

fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| libc::pid_t::try_from(p).ok()) {
        // SAFETY: plain syscall; a negative pid addresses the process group we created.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
