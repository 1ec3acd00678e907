//! One `pi --mode rpc` child process, spoken to through the shared line-protocol client
//! ([`crate::rpc`]).
//!
//! Responses go to the command waiting for them; extension dialogs go to the runtime, which
//! asks the user, or are cancelled at once where nobody could answer (a fork's short-lived
//! process: an unanswered dialog would block Pi); session events go to the channel returned
//! by [`RpcProcess::spawn`], which closes once the process is gone.

use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::protocol::{self, Record, Response};
use crate::process::{start_error, HarnessCommand};
use crate::rpc::{self, CallError, Event, Protocol, Routed, RpcChild};
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

/// A handle for sending commands; cheap to clone, shared with the runtime's event task.
#[derive(Clone)]
pub(super) struct RpcClient(rpc::RpcClient<PiRpc>);

/// The owner of the process. Dropping it kills the process tree.
pub(super) struct RpcProcess {
    child: RpcChild<PiRpc>,
    /// Whether extension dialogs reach the event channel (else they are cancelled).
    ask_user: Arc<AtomicBool>,
}

impl RpcProcess {
    /// Spawns `binary` with `args` in `cwd` (its own process tree, stdin/stdout piped) and
    /// returns it with the channel of its session events, extension dialogs among them when
    /// `ask_user` (else they are cancelled).
    pub async fn spawn(
        binary: &HarnessBinary,
        args: &[OsString],
        cwd: &Path,
        env: &[(String, String)],
        ask_user: bool,
    ) -> HarnessResult<(RpcProcess, mpsc::UnboundedReceiver<Value>)> {
        let mut command = HarnessCommand::new(&binary.path);
        command.args(args).cwd(cwd).envs(env);
        let spawned = command
            .spawn()
            .map_err(|err| start_error(HarnessKind::Pi, &binary.path, err))?;
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let mut events = Some(events_tx);
        let ask_user = Arc::new(AtomicBool::new(ask_user));
        let protocol = PiRpc {
            ask_user: ask_user.clone(),
        };
        let child = RpcChild::start(
            |m| HarnessError::failed(HarnessKind::Pi, m, ""),
            spawned,
            protocol,
            move |event| match event {
                Event::Message(event) => {
                    if let Some(events) = &events {
                        let _ = events.send(event);
                    }
                }
                // The channel closes: the process is gone.
                Event::Exited(_) => events = None,
            },
        )?;
        Ok((RpcProcess { child, ask_user }, events_rx))
    }

    pub fn client(&self) -> RpcClient {
        RpcClient(self.child.client().clone())
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.pid()
    }

    /// From now on extension dialogs reach the event channel (a warm spare that became a
    /// runtime; until then nobody could answer them).
    pub fn ask_user(&self) {
        self.ask_user.store(true, Ordering::Release);
    }

    /// Whether the process has exited and its output is read to the end.
    pub fn has_exited(&self) -> bool {
        self.child.client().has_exited()
    }

    /// Ends the process: closes stdin (Pi's orderly shutdown, which also aborts a running
    /// turn), waits up to `grace`, then ends the whole process tree. Always reaps the child;
    /// tool processes Pi left behind go with it.
    pub async fn shutdown(&self, grace: Duration) {
        self.child.close(grace).await;
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
        self.0
            .request(kind, fields, timeout)
            .await
            .map_err(|err| match err {
                CallError::Gone => RpcError::Closed,
                CallError::Timeout => RpcError::Timeout,
                CallError::Write(e) => RpcError::Write(e),
            })
    }

    /// The last lines Pi wrote to stderr, once stderr is closed or `wait` has passed.
    pub async fn stderr_tail(&self, wait: Duration) -> String {
        self.0.stderr_tail_after(wait).await
    }

    /// `HarnessFailed` with `message` and the tail of stderr.
    /// Writes a line Pi reads without answering (an `extension_ui_response`).
    pub async fn write_line(&self, line: &str) -> Result<(), RpcError> {
        self.0.write_line(line).await.map_err(|err| match err {
            CallError::Gone => RpcError::Closed,
            CallError::Timeout => RpcError::Timeout,
            CallError::Write(e) => RpcError::Write(e),
        })
    }

    pub async fn failure(&self, message: impl Into<String>, wait: Duration) -> HarnessError {
        HarnessError::failed(HarnessKind::Pi, message, self.stderr_tail(wait).await)
    }

    /// Waits up to `wait` for the process to exit and describes how it ended.
    pub async fn exit_status(&self, wait: Duration) -> String {
        match self.0.wait_exit(wait).await {
            Some(report) => report.status,
            None => "closed its output but is still running".into(),
        }
    }
}

/// Pi's RPC mode: commands carry an `id` (`fh-<n>`), which their response echoes.
struct PiRpc {
    /// Whether extension dialogs reach the runtime (to ask the user) rather than being
    /// cancelled here.
    ask_user: Arc<AtomicBool>,
}

const ID_PREFIX: &str = "fh-";

impl Protocol for PiRpc {
    type Response = Response;
    /// A session event, kept as JSON.
    type Message = Value;
    const NAME: &'static str = "pi";

    fn request_line(&self, id: u64, kind: &str, fields: Value) -> String {
        protocol::command_line(&format!("{ID_PREFIX}{id}"), kind, fields)
    }

    fn route(&self, line: &[u8]) -> Routed<Response, Value> {
        match protocol::parse_record(line) {
            Some(Record::Response(response)) => Routed::Response {
                id: response
                    .id
                    .as_deref()
                    .and_then(|id| id.strip_prefix(ID_PREFIX)?.parse().ok()),
                response,
            },
            Some(Record::UiRequest { method, .. })
                if self.ask_user.load(Ordering::Acquire) && protocol::is_dialog(&method) =>
            {
                match serde_json::from_slice(line) {
                    Ok(value) => Routed::Message(value),
                    Err(_) => Routed::Skip,
                }
            }
            Some(Record::UiRequest { id, method }) if protocol::is_dialog(&method) => {
                tracing::warn!(%method, "pi extension asked for a dialog nobody can answer; cancelled");
                Routed::Reply(protocol::cancel_dialog_line(&id))
            }
            Some(Record::UiRequest { .. }) => Routed::Skip,
            Some(Record::Event(event)) => Routed::Message(event),
            None => {
                tracing::debug!(bytes = line.len(), "skipped a malformed pi stdout line");
                Routed::Skip
            }
        }
    }
}
