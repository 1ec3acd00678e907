//! One `pi --mode rpc` child process: spawning it in its own process tree
//! ([`crate::process`]), correlating commands with their responses, and ending it.
//!
//! A stdout reader task routes each record: responses to the command waiting for them,
//! extension dialogs are cancelled at once (nothing here can answer them, and an unanswered
//! dialog would block Pi), and session events go to the channel returned by [`RpcProcess::spawn`].
//! The channel closes when Pi's stdout does, i.e. when the process is gone.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};

use super::protocol::{self, Record, Response};
use crate::process::{describe_exit, start_error, HarnessCommand, Spawned, StderrTail, Tree};
use crate::{HarnessBinary, HarnessError, HarnessKind, HarnessResult};

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
    stderr: StderrTail,
}

/// A handle for sending commands; cheap to clone, shared with the runtime's event task.
#[derive(Clone)]
pub(super) struct RpcClient(Arc<Shared>);

/// The owner of the process. Dropping it kills the process tree.
pub(super) struct RpcProcess {
    client: RpcClient,
    pid: Option<u32>,
    tree: Tree,
}

impl RpcProcess {
    /// Spawns `binary` with `args` in `cwd` (its own process tree, stdin/stdout piped) and
    /// returns it with the channel of its session events.
    pub async fn spawn(
        binary: &HarnessBinary,
        args: &[OsString],
        cwd: &Path,
        env: &[(String, String)],
    ) -> HarnessResult<(RpcProcess, mpsc::UnboundedReceiver<Value>)> {
        let mut command = HarnessCommand::new(&binary.path);
        command.args(args).cwd(cwd).envs(env);
        let Spawned {
            mut child,
            tree,
            stderr,
        } = command
            .spawn()
            .map_err(|err| start_error(HarnessKind::Pi, &binary.path, err))?;
        let pid = child.id();
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let shared = Arc::new(Shared {
            stdin: tokio::sync::Mutex::new(stdin),
            child: tokio::sync::Mutex::new(Some(child)),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            stderr,
        });
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        if let Some(stdout) = stdout {
            tokio::spawn(read_stdout(shared.clone(), stdout, events_tx));
        }
        tracing::debug!(pid, "pi rpc process started");
        Ok((
            RpcProcess {
                client: RpcClient(shared),
                pid,
                tree,
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
    /// turn), waits up to `grace`, then kills the whole process tree. Always reaps the child;
    /// tool processes Pi left behind go with it.
    pub async fn shutdown(&self, grace: Duration) -> Option<ExitStatus> {
        self.client.0.stdin.lock().await.take();
        let mut guard = self.client.0.child.lock().await;
        let child = guard.as_mut()?;
        let status = match tokio::time::timeout(grace, child.wait()).await {
            Ok(status) => status.ok(),
            Err(_) => {
                tracing::debug!(pid = self.pid, "pi did not exit in time; killing its tree");
                self.tree.kill();
                let _ = child.start_kill();
                child.wait().await.ok()
            }
        };
        guard.take();
        self.tree.kill();
        status
    }
}

impl Drop for RpcProcess {
    fn drop(&mut self) {
        // Not shut down (the runtime was dropped): the tree goes now, whoever holds the client.
        self.tree.kill();
        if let Ok(mut guard) = self.client.0.child.try_lock() {
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
        self.0.stderr.wait_closed(wait).await;
        self.0.stderr.text()
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
                describe_exit(status)
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
