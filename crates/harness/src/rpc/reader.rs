//! The task that owns the child, reads its stdout, and reports its end.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Child;
use tokio::sync::watch;

use super::client::{RpcClient, Shared};
use super::{lock, Event, ExitReport, Protocol, Routed};
use crate::process::{describe_exit, Tree};

/// After stdout closed, how long the child may take to exit before it is killed.
const REAP_GRACE: Duration = Duration::from_secs(5);
/// After the exit, how long stdout may take to reach its end.
const STDOUT_DRAIN: Duration = Duration::from_secs(1);
/// After the exit, how long stderr may take to reach its end.
const STDERR_DRAIN: Duration = Duration::from_millis(200);

pub(super) type Handler<M> = Box<dyn FnMut(Event<M>) + Send>;

pub(super) struct Reader<P: Protocol> {
    pub child: Child,
    pub tree: Tree,
    pub shared: Arc<Shared<P>>,
    pub exited: watch::Sender<Option<ExitReport>>,
    pub handler: Handler<P::Message>,
}

enum Step {
    Read(std::io::Result<usize>),
    Exited(std::io::Result<std::process::ExitStatus>),
}

impl<P: Protocol> Reader<P> {
    pub async fn run(mut self, stdout: impl AsyncRead + Unpin) {
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
        lock(&self.shared.pending).take();
        // Let stderr drain to its end so the tail holds the last words; a grandchild that
        // inherited the pipe may keep it open, so don't wait for long.
        self.shared.stderr.wait_closed(STDERR_DRAIN).await;
        let report = ExitReport {
            expected: self.shared.closing.load(Ordering::SeqCst),
            status,
            stderr_tail: self.shared.stderr.text(),
        };
        tracing::debug!(
            server = P::NAME,
            expected = report.expected,
            status = %report.status,
            "rpc process exited"
        );
        (self.handler)(Event::Exited(report.clone()));
        let _ = self.exited.send(Some(report));
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
        // Lines end at LF only (U+2028 inside strings is no boundary); CRLF is fine.
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match self.shared.protocol.route(line) {
            Routed::Response { id, response } => {
                let waiter = id.and_then(|id| lock(&self.shared.pending).as_mut()?.remove(&id));
                match waiter {
                    Some(tx) => {
                        let _ = tx.send(response);
                    }
                    // Its request timed out already, or was never ours.
                    None => tracing::debug!(server = P::NAME, ?id, "a response nobody waits for"),
                }
            }
            Routed::Message(message) => (self.handler)(Event::Message(message)),
            Routed::Reply(reply) => {
                let _ = RpcClient(self.shared.clone()).write_line(&reply).await;
            }
            Routed::Skip => {}
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
