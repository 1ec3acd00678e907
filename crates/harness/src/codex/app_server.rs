//! One `codex app-server` process and a small JSON-RPC client over its stdio.
//!
//! The wire format (harness notes §4): one JSON object per line, no `"jsonrpc"` field.
//! Requests carry a numeric `id`; responses come back with the same `id` and a `result` or an
//! `error{code,message}`; notifications have a `method` and no `id`; the server's own requests
//! (approvals) have both.
//!
//! A reader task owns the child and its stdout. It routes each response to the request waiting
//! for it, hands notifications to the caller's handler in arrival order, answers server
//! requests itself, and when stdout closes reaps the child and reports the exit once. A
//! malformed line is skipped, never a panic.
//!
//! The child runs in a process tree of its own ([`crate::process`]) so that tool processes it
//! started go with it; `kill_on_drop` and [`Drop`] make sure no process outlives its handle.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::process::{describe_exit, start_error, HarnessCommand, Spawned, StderrTail, Tree};
use crate::{HarnessBinary, HarnessError, HarnessKind};

/// After stdout closed, how long the child may take to exit before it is killed.
const REAP_GRACE: Duration = Duration::from_secs(5);
/// After the exit, how long stdout may take to reach its end.
const STDOUT_DRAIN: Duration = Duration::from_secs(1);
/// After the exit, how long stderr may take to reach its end.
const STDERR_DRAIN: Duration = Duration::from_millis(200);

/// A notification from the server, or the end of the process.
#[derive(Debug)]
pub(crate) enum Incoming {
    Notification {
        method: String,
        params: Value,
    },
    /// The process is gone (reported once, after every notification before it).
    Exited(ExitReport),
}

#[derive(Debug, Clone)]
pub(crate) struct ExitReport {
    /// Whether [`AppServer::close`] asked for it.
    pub expected: bool,
    /// "exited with code 0", "killed by signal 9 (SIGKILL)", ...
    pub status: String,
    pub stderr_tail: String,
}

/// Why a request got no result.
#[derive(Debug)]
pub(crate) enum RpcFailure {
    /// The server answered with an error object.
    Rpc { code: i64, message: String },
    /// The process is gone (or its stdin is closed).
    Exited,
    /// No answer in time.
    Timeout { method: String, after: Duration },
}

type Pending = HashMap<u64, oneshot::Sender<Result<Value, RpcFailure>>>;

/// Requests waiting for their response; `None` once the reader has stopped, so a late request
/// fails at once instead of waiting for its timeout.
type PendingMap = Arc<Mutex<Option<Pending>>>;

/// A poisoned lock only means another task panicked mid-update; the data is still usable.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What to spawn.
pub(crate) struct Launch<'a> {
    pub binary: &'a HarnessBinary,
    /// The working directory; `None` inherits ours.
    pub cwd: Option<&'a Path>,
    pub env: &'a [(String, String)],
}

/// A running `codex app-server`.
pub(crate) struct AppServer {
    pid: Option<u32>,
    tree: Tree,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    pending: PendingMap,
    next_id: AtomicU64,
    stderr: StderrTail,
    closing: Arc<AtomicBool>,
    /// Flips to `true` once the process exited and the reader finished.
    exited: watch::Receiver<bool>,
    reader: Option<JoinHandle<()>>,
}

impl AppServer {
    /// Starts `codex app-server` (stdio transport). `handler` sees every notification and,
    /// last, the exit; it runs on the reader task, so it must not block.
    pub fn spawn(
        launch: Launch<'_>,
        handler: impl FnMut(Incoming) + Send + 'static,
    ) -> Result<AppServer, HarnessError> {
        let program = &launch.binary.path;
        let mut cmd = HarnessCommand::new(program);
        cmd.arg("app-server").envs(launch.env);
        if let Some(cwd) = launch.cwd {
            cmd.cwd(cwd);
        }
        let Spawned {
            mut child,
            tree,
            stderr: tail,
        } = cmd
            .spawn()
            .map_err(|err| start_error(HarnessKind::Codex, program, err))?;
        let pid = child.id();
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                return Err(HarnessError::failed(
                    HarnessKind::Codex,
                    "app-server started without its stdio pipes",
                    "",
                ))
            }
        };
        let stdin = Arc::new(tokio::sync::Mutex::new(Some(stdin)));
        let pending: PendingMap = Arc::new(Mutex::new(Some(HashMap::new())));
        let closing = Arc::new(AtomicBool::new(false));
        let (exited_tx, exited) = watch::channel(false);
        let reader = tokio::spawn(
            Reader {
                child,
                tree: tree.clone(),
                stdin: stdin.clone(),
                pending: pending.clone(),
                stderr: tail.clone(),
                closing: closing.clone(),
                exited: exited_tx,
                handler: Box::new(handler),
            }
            .run(stdout),
        );
        tracing::debug!(pid, "codex app-server spawned");
        Ok(AppServer {
            pid,
            tree,
            stdin,
            pending,
            next_id: AtomicU64::new(1),
            stderr: tail,
            closing,
            exited,
            reader: Some(reader),
        })
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// Sends a request and waits for its result.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcFailure> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        match lock(&self.pending).as_mut() {
            Some(pending) => pending.insert(id, tx),
            None => return Err(RpcFailure::Exited),
        };
        let started = Instant::now();
        let sent = self
            .write(&json!({ "id": id, "method": method, "params": params }))
            .await;
        if let Err(failure) = sent {
            self.forget(id);
            return Err(failure);
        }
        let outcome = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            // The reader dropped the sender: the process is gone.
            Ok(Err(_)) => Err(RpcFailure::Exited),
            Err(_) => {
                self.forget(id);
                Err(RpcFailure::Timeout {
                    method: method.to_owned(),
                    after: timeout,
                })
            }
        };
        tracing::debug!(
            method,
            id,
            ok = outcome.is_ok(),
            ms = started.elapsed().as_millis() as u64,
            "codex app-server request"
        );
        outcome
    }

    /// Sends a notification (no answer).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RpcFailure> {
        let msg = match params {
            Some(params) => json!({ "method": method, "params": params }),
            None => json!({ "method": method }),
        };
        self.write(&msg).await
    }

    fn forget(&self, id: u64) {
        if let Some(pending) = lock(&self.pending).as_mut() {
            pending.remove(&id);
        }
    }

    async fn write(&self, msg: &Value) -> Result<(), RpcFailure> {
        let mut line = serde_json::to_vec(msg).map_err(|_| RpcFailure::Exited)?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(RpcFailure::Exited);
        };
        let written = async {
            pipe.write_all(&line).await?;
            pipe.flush().await
        }
        .await;
        written.map_err(|_| RpcFailure::Exited)
    }

    /// Whether the process has exited (crashed or closed).
    pub fn has_exited(&self) -> bool {
        *self.exited.borrow()
    }

    /// Ends the process: closes its stdin (the server exits on EOF), waits up to `grace`, then
    /// terminates its process group, then kills it. Returns once the child is reaped.
    pub async fn close(mut self, grace: Duration) {
        self.closing.store(true, Ordering::SeqCst);
        let started = Instant::now();
        self.stdin.lock().await.take();
        let mut how = "stdin closed";
        if !self.wait_exit(grace).await {
            how = "terminated";
            self.tree.terminate();
            if !self.wait_exit(Duration::from_secs(2)).await {
                how = "killed";
                self.tree.kill();
                self.wait_exit(Duration::from_secs(5)).await;
            }
        }
        if let Some(reader) = self.reader.take() {
            if !self.has_exited() {
                // Still there: dropping the reader's `Child` kills it (`kill_on_drop`).
                reader.abort();
            }
            // The reader ends right after the exit; don't hang on a wedged pipe.
            let _ = tokio::time::timeout(Duration::from_secs(5), reader).await;
        }
        tracing::debug!(
            pid = self.pid,
            how,
            ms = started.elapsed().as_millis() as u64,
            "codex app-server closed"
        );
    }

    async fn wait_exit(&mut self, limit: Duration) -> bool {
        let mut rx = self.exited.clone();
        let done = tokio::time::timeout(limit, rx.wait_for(|done| *done)).await;
        matches!(done, Ok(Ok(_)))
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            // Dropped without `close`: kill at once. Aborting the reader drops the `Child`,
            // whose `kill_on_drop` then reaps it in the background.
            self.closing.store(true, Ordering::SeqCst);
            if !self.has_exited() {
                self.tree.kill();
            }
            reader.abort();
        }
    }
}

/// The task that owns the child and reads its stdout.
struct Reader {
    child: Child,
    tree: Tree,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    pending: PendingMap,
    stderr: StderrTail,
    closing: Arc<AtomicBool>,
    exited: watch::Sender<bool>,
    handler: Box<dyn FnMut(Incoming) + Send>,
}

impl Reader {
    async fn run(mut self, stdout: impl AsyncRead + Unpin) {
        let mut lines = BufReader::new(stdout);
        let mut buf = Vec::new();
        let mut exit = None;
        // Once the child is gone, stdout gets a moment to drain: a tool process that
        // inherited the pipe must not keep the reader (and the exit report) waiting.
        let mut drain_until: Option<tokio::time::Instant> = None;
        loop {
            let step = tokio::select! {
                // Cancel-safe: a partial line stays in `buf` for the next call.
                read = lines.read_until(b'\n', &mut buf) => Step::Read(read),
                status = self.child.wait(), if exit.is_none() => Step::Exited(status),
                _ = sleep_until(drain_until), if drain_until.is_some() => break,
            };
            match step {
                Step::Read(Ok(0) | Err(_)) => break,
                Step::Read(Ok(_)) => {
                    self.dispatch(&buf).await;
                    buf.clear();
                }
                Step::Exited(status) => {
                    exit = Some(status);
                    drain_until = Some(tokio::time::Instant::now() + STDOUT_DRAIN);
                }
            }
        }
        let status = match exit {
            Some(Ok(status)) => describe_exit(status),
            Some(Err(err)) => format!("unknown exit ({err})"),
            None => self.reap().await,
        };
        // Whatever the server left running (a crashed server cannot clean up after itself)
        // goes with it.
        self.tree.kill();
        // Fail every waiting request before anyone hears of the exit.
        if let Some(pending) = lock(&self.pending).take() {
            for (_, tx) in pending {
                let _ = tx.send(Err(RpcFailure::Exited));
            }
        }
        // Let stderr drain to its end so the tail holds the last words; a grandchild that
        // inherited the pipe may keep it open, so don't wait for long.
        self.stderr.wait_closed(STDERR_DRAIN).await;
        let report = ExitReport {
            expected: self.closing.load(Ordering::SeqCst),
            status,
            stderr_tail: self.stderr.text(),
        };
        tracing::debug!(expected = report.expected, status = %report.status, "codex app-server exited");
        (self.handler)(Incoming::Exited(report));
        let _ = self.exited.send(true);
    }

    async fn reap(&mut self) -> String {
        let status = match tokio::time::timeout(REAP_GRACE, self.child.wait()).await {
            Ok(status) => status,
            Err(_) => {
                // Closed stdout but still running: not a server we can talk to any more.
                let _ = self.child.start_kill();
                self.child.wait().await
            }
        };
        match status {
            Ok(s) => describe_exit(s),
            Err(err) => format!("unknown exit ({err})"),
        }
    }

    async fn dispatch(&mut self, line: &[u8]) {
        let Ok(Value::Object(mut msg)) = serde_json::from_slice::<Value>(line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                tracing::warn!(
                    bytes = line.len(),
                    "codex app-server wrote a line that is not a JSON object; skipped"
                );
            }
            return;
        };
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.remove("id");
        match (id, method) {
            (Some(id), Some(method)) => self.answer_server_request(id, &method).await,
            (Some(id), None) => self.route_response(&id, &mut msg),
            (None, Some(method)) => {
                let params = msg.remove("params").unwrap_or(Value::Null);
                (self.handler)(Incoming::Notification { method, params });
            }
            (None, None) => {
                tracing::warn!("codex app-server message without id or method; skipped")
            }
        }
    }

    fn route_response(&mut self, id: &Value, msg: &mut serde_json::Map<String, Value>) {
        let Some(id) = id.as_u64() else {
            tracing::warn!("codex app-server response with a foreign id; skipped");
            return;
        };
        let Some(tx) = lock(&self.pending).as_mut().and_then(|p| p.remove(&id)) else {
            // Its request timed out already.
            return;
        };
        let outcome = match msg.remove("error") {
            Some(err) => Err(RpcFailure::Rpc {
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error without a message")
                    .to_owned(),
            }),
            None => Ok(msg.remove("result").unwrap_or(Value::Null)),
        };
        let _ = tx.send(outcome);
    }

    /// Forkhost has no approval prompt: approvals are declined (the harness's config should
    /// say `approval_policy = "never"`), anything else is answered "method not found" so the
    /// server never waits on us.
    async fn answer_server_request(&mut self, id: Value, method: &str) {
        tracing::warn!(method, "codex app-server asked the client; declined");
        const REASON: &str = "Forkhost has no approval prompt";
        let reply = match method {
            "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" => {
                json!({ "id": id, "result": { "decision": "decline" } })
            }
            "execCommandApproval" | "applyPatchApproval" => {
                json!({ "id": id, "result": { "decision": { "denied": { "rejection": REASON } } } })
            }
            _ => {
                json!({ "id": id, "error": { "code": -32601, "message": format!("{REASON}: {method} is not handled") } })
            }
        };
        let Ok(mut line) = serde_json::to_vec(&reply) else {
            return;
        };
        line.push(b'\n');
        if let Some(pipe) = self.stdin.lock().await.as_mut() {
            let _ = pipe.write_all(&line).await;
            let _ = pipe.flush().await;
        }
    }
}

enum Step {
    Read(std::io::Result<usize>),
    Exited(std::io::Result<std::process::ExitStatus>),
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A stand-in server: a malformed line, a notification, the answer to request 1, a
    /// server request (whose answer it echoes to stderr), then a failing exit.
    const SCRIPT: &str = r#"#!/bin/sh
echo 'not json at all'
echo '{"method":"hello","params":{"n":1}}'
read request
echo '{"id":1,"result":{"ok":true}}'
echo '{"id":"s1","method":"item/commandExecution/requestApproval","params":{}}'
read answer
echo "$answer" >&2
exit 3
"#;

    fn fake_server(dir: &Path) -> HarnessBinary {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("codex");
        std::fs::write(&path, SCRIPT).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        HarnessBinary {
            kind: HarnessKind::Codex,
            path,
            version: "0.171.0".into(),
        }
    }

    #[tokio::test]
    async fn routes_answers_skips_garbage_and_reports_an_unasked_exit() {
        let dir = tempfile::tempdir().unwrap();
        let binary = fake_server(dir.path());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let launch = Launch {
            binary: &binary,
            cwd: Some(dir.path()),
            env: &[],
        };
        let server = AppServer::spawn(launch, move |i| lock(&log).push(i)).unwrap();
        let limit = Duration::from_secs(10);
        let result = server.request("ping", json!({}), limit).await.unwrap();
        assert_eq!(result, json!({"ok": true}));
        let mut exited = server.exited.clone();
        tokio::time::timeout(limit, exited.wait_for(|d| *d))
            .await
            .unwrap()
            .unwrap();
        let late = server.request("ping", json!({}), limit).await;
        assert!(matches!(late, Err(RpcFailure::Exited)));
        let seen = std::mem::take(&mut *lock(&seen));
        assert!(matches!(&seen[0], Incoming::Notification { method, .. } if method == "hello"));
        let Some(Incoming::Exited(report)) = seen.last() else {
            panic!("no exit report: {seen:?}");
        };
        assert!(!report.expected);
        assert_eq!(report.status, "exited with code 3");
        assert!(
            report.stderr_tail.contains(r#""decision":"decline""#),
            "{report:?}"
        );
        assert!(report.stderr_tail.contains(r#""id":"s1""#), "{report:?}");
        assert_eq!(seen.len(), 2);
        server.close(Duration::from_secs(1)).await;
    }
}
