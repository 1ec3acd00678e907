//! The handle that sends requests and waits for their answers; cheap to clone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::{oneshot, watch};

use super::{lock, CallError, ExitReport, Protocol};
use crate::process::StderrTail;

/// Requests waiting for their answer; `None` once the reader has stopped, so a late request
/// fails at once instead of waiting for its timeout.
pub(super) type Pending<R> = Mutex<Option<HashMap<u64, oneshot::Sender<R>>>>;

/// What the owner, the reader task and every client share.
pub(super) struct Shared<P: Protocol> {
    pub protocol: P,
    pub stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pub pending: Pending<P::Response>,
    pub next_id: AtomicU64,
    pub stderr: StderrTail,
    /// Set when the owner ends the process: its exit is then expected.
    pub closing: AtomicBool,
    /// The exit, once the reader reported it.
    pub exited: watch::Receiver<Option<ExitReport>>,
}

pub(crate) struct RpcClient<P: Protocol>(pub(super) Arc<Shared<P>>);

impl<P: Protocol> Clone for RpcClient<P> {
    fn clone(&self) -> Self {
        RpcClient(self.0.clone())
    }
}

impl<P: Protocol> RpcClient<P> {
    /// Sends request `method` with `params` and waits up to `timeout` for its answer.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<P::Response, CallError> {
        let shared = &self.0;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        match lock(&shared.pending).as_mut() {
            Some(pending) => pending.insert(id, tx),
            None => return Err(CallError::Gone),
        };
        let started = Instant::now();
        let line = shared.protocol.request_line(id, method, params);
        if let Err(err) = self.write_line(&line).await {
            self.forget(id);
            return Err(err);
        }
        let outcome = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(response)) => Ok(response),
            // The reader dropped the sender: the process is gone.
            Ok(Err(_)) => Err(CallError::Gone),
            Err(_) => {
                self.forget(id);
                Err(CallError::Timeout)
            }
        };
        tracing::debug!(
            server = P::NAME,
            method,
            id,
            ok = outcome.is_ok(),
            ms = started.elapsed().as_millis() as u64,
            "rpc request"
        );
        outcome
    }

    fn forget(&self, id: u64) {
        if let Some(pending) = lock(&self.0.pending).as_mut() {
            pending.remove(&id);
        }
    }

    /// Writes one LF-terminated line to the child's stdin.
    pub async fn write_line(&self, line: &str) -> Result<(), CallError> {
        let mut stdin = self.0.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(CallError::Write("stdin is closed".into()));
        };
        let written = async {
            pipe.write_all(line.as_bytes()).await?;
            pipe.flush().await
        };
        written.await.map_err(|e| CallError::Write(e.to_string()))
    }

    /// The last lines the child wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.0.stderr.text()
    }

    /// The last lines the child wrote to stderr, once stderr is closed or `wait` has passed.
    pub async fn stderr_tail_after(&self, wait: Duration) -> String {
        self.0.stderr.wait_closed(wait).await;
        self.0.stderr.text()
    }

    /// Whether the process has exited (crashed or closed) and the reader finished.
    pub fn has_exited(&self) -> bool {
        self.0.exited.borrow().is_some()
    }

    /// Waits up to `limit` for the exit report.
    pub async fn wait_exit(&self, limit: Duration) -> Option<ExitReport> {
        let mut rx = self.0.exited.clone();
        let done = tokio::time::timeout(limit, rx.wait_for(Option::is_some)).await;
        match done {
            Ok(Ok(report)) => report.clone(),
            _ => None,
        }
    }
}
