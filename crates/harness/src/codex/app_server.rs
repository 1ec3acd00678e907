//! One `codex app-server` process, spoken to through the shared line-protocol client
//! ([`crate::rpc`]).
//!
//! The wire format ("Codex app-server JSON-RPC" in `docs/harness-behaviour.md`): one JSON
//! object per line, no `"jsonrpc"` field. Requests carry a numeric `id`; responses come back
//! with the same `id` and a `result` or an `error{code,message}`; notifications have a
//! `method` and no `id`; the server's own requests (approvals) have both: the ones the user
//! sees go to the Host with a reply, which writes the answer through [`Replies`]; any other
//! is declined here at once ([`approvals::decline_unshown`]).

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};

use super::approvals;
use crate::process::{start_error, HarnessCommand};
use crate::rpc::{CallError, Event, Protocol, Routed, RpcChild, RpcClient};
use crate::{HarnessBinary, HarnessError, HarnessKind};

pub(crate) use crate::rpc::ExitReport;

/// Where the answers to the server's requests are written: the server's stdin, once it runs.
/// The event handler holds it before the process exists (it is made for the spawn), so it is
/// filled right after; an answer comes from the user, long after that.
#[derive(Clone, Default)]
pub(crate) struct Replies(Arc<OnceLock<RpcClient<AppServerRpc>>>);

impl Replies {
    /// Writes the answer `line` to one of the server's requests.
    pub async fn write(&self, line: &str) -> Result<(), RpcFailure> {
        let client = self.0.get().ok_or(RpcFailure::Exited)?;
        client
            .write_line(line)
            .await
            .map_err(|_| RpcFailure::Exited)
    }

    /// The tail of the server's stderr, for a write that failed.
    pub fn stderr_tail(&self) -> String {
        self.0.get().map(|c| c.stderr_tail()).unwrap_or_default()
    }
}

/// A notification from the server, or the end of the process.
#[derive(Debug)]
pub(crate) enum Incoming {
    Notification {
        method: String,
        params: Value,
    },
    /// The server asks the user (an approval); it waits for [`AppServer::reply`] with `id`.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// The process is gone (reported once, after every notification before it).
    Exited(ExitReport),
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

/// What to spawn.
pub(crate) struct Launch<'a> {
    pub binary: &'a HarnessBinary,
    /// The working directory; `None` inherits ours.
    pub cwd: Option<&'a Path>,
    pub env: &'a [(String, String)],
    /// Arguments after `app-server` (folder trust's `-c` overrides, codex/trust.rs).
    pub args: Vec<String>,
}

/// A running `codex app-server`.
pub(crate) struct AppServer {
    rpc: RpcChild<AppServerRpc>,
}

impl AppServer {
    /// Starts `codex app-server` (stdio transport). `handler` sees every notification and,
    /// last, the exit; it runs on the reader task, so it must not block.
    pub fn spawn(
        launch: Launch<'_>,
        mut handler: impl FnMut(Incoming) + Send + 'static,
    ) -> Result<AppServer, HarnessError> {
        let program = &launch.binary.path;
        let mut cmd = HarnessCommand::new(program);
        cmd.arg("app-server").args(&launch.args).envs(launch.env);
        if let Some(cwd) = launch.cwd {
            cmd.cwd(cwd);
        }
        let spawned = cmd
            .spawn()
            .map_err(|err| start_error(HarnessKind::Codex, program, err))?;
        let rpc = RpcChild::start(
            |m| HarnessError::failed(HarnessKind::Codex, m, ""),
            spawned,
            AppServerRpc,
            move |event| {
                handler(match event {
                    Event::Message(incoming) => incoming,
                    Event::Exited(report) => Incoming::Exited(report),
                })
            },
        )?;
        Ok(AppServer { rpc })
    }

    pub fn pid(&self) -> Option<u32> {
        self.rpc.pid()
    }

    /// Points `replies` at this server's stdin.
    pub fn answer_through(&self, replies: &Replies) {
        let _ = replies.0.set(self.rpc.client().clone());
    }

    pub fn stderr_tail(&self) -> String {
        self.rpc.client().stderr_tail()
    }

    /// Whether the process has exited.
    pub fn has_exited(&self) -> bool {
        self.rpc.client().has_exited()
    }

    /// Sends a request and waits for its result.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, RpcFailure> {
        match self.rpc.client().request(method, params, timeout).await {
            Ok(answer) => answer,
            Err(CallError::Timeout) => Err(RpcFailure::Timeout {
                method: method.to_owned(),
                after: timeout,
            }),
            Err(CallError::Gone | CallError::Write(_)) => Err(RpcFailure::Exited),
        }
    }

    /// Sends a notification (no answer).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RpcFailure> {
        let msg = match params {
            Some(params) => json!({ "method": method, "params": params }),
            None => json!({ "method": method }),
        };
        let line = format!("{msg}\n");
        let written = self.rpc.client().write_line(&line).await;
        written.map_err(|_| RpcFailure::Exited)
    }

    /// Ends the process: closes its stdin (the server exits on EOF), waits up to `grace`, then
    /// terminates its process group, then kills it. Returns once the child is reaped.
    pub async fn close(self, grace: Duration) {
        self.rpc.close(grace).await;
    }
}

/// The app-server's JSON-RPC dialect.
pub(crate) struct AppServerRpc;

impl Protocol for AppServerRpc {
    /// A `result`, or the `error` object's code and message.
    type Response = Result<Value, RpcFailure>;
    /// A notification, or a server request the user answers.
    type Message = Incoming;
    const NAME: &'static str = "codex app-server";

    fn request_line(&self, id: u64, method: &str, params: Value) -> String {
        format!(
            "{}\n",
            json!({ "id": id, "method": method, "params": params })
        )
    }

    fn route(&self, line: &[u8]) -> Routed<Self::Response, Self::Message> {
        let Ok(Value::Object(mut msg)) = serde_json::from_slice::<Value>(line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                tracing::warn!(
                    bytes = line.len(),
                    "codex app-server wrote a line that is not a JSON object; skipped"
                );
            }
            return Routed::Skip;
        };
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.remove("id");
        match (id, method) {
            (Some(id), Some(method)) if approvals::is_shown(&method) => {
                let params = msg.remove("params").unwrap_or(Value::Null);
                Routed::Message(Incoming::Request { id, method, params })
            }
            (Some(id), Some(method)) => Routed::Reply(approvals::decline_unshown(id, &method)),
            (Some(id), None) => {
                if id.as_u64().is_none() {
                    tracing::warn!("codex app-server response with a foreign id; skipped");
                }
                let response = match msg.remove("error") {
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
                Routed::Response {
                    id: id.as_u64(),
                    response,
                }
            }
            (None, Some(method)) => {
                let params = msg.remove("params").unwrap_or(Value::Null);
                Routed::Message(Incoming::Notification { method, params })
            }
            (None, None) => {
                tracing::warn!("codex app-server message without id or method; skipped");
                Routed::Skip
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A stand-in server: a malformed line, a notification, the answer to request 1, an
    /// approval request (handed on, unanswered), a request Forkhost does not show (whose
    /// answer it echoes to stderr), then a failing exit.
    const SCRIPT: &str = r#"#!/bin/sh
echo 'not json at all'
echo '{"method":"hello","params":{"n":1}}'
read request
echo '{"id":1,"result":{"ok":true}}'
echo '{"id":"s1","method":"item/commandExecution/requestApproval","params":{"command":"ls"}}'
echo '{"id":"s2","method":"item/permissions/requestApproval","params":{}}'
read answer
echo "$answer" >&2
exit 3
"#;

    fn fake_server(dir: &Path) -> HarnessBinary {
        let path = dir.join("codex");
        forkhost_test_script::write_executable(&path, SCRIPT).unwrap();
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
            args: Vec::new(),
        };
        let server = AppServer::spawn(launch, move |i| lock(&log).push(i)).unwrap();
        let limit = Duration::from_secs(10);
        let result = server.request("ping", json!({}), limit).await.unwrap();
        assert_eq!(result, json!({"ok": true}));
        let exited = server.rpc.client().wait_exit(limit).await;
        exited.unwrap();
        let late = server.request("ping", json!({}), limit).await;
        assert!(matches!(late, Err(RpcFailure::Exited)));
        let seen = std::mem::take(&mut *lock(&seen));
        assert!(matches!(&seen[0], Incoming::Notification { method, .. } if method == "hello"));
        let Some(Incoming::Exited(report)) = seen.last() else {
            panic!("no exit report: {seen:?}");
        };
        assert!(!report.expected);
        assert_eq!(report.status, "exited with code 3");
        assert!(report.stderr_tail.contains("-32601"), "{report:?}");
        assert!(report.stderr_tail.contains(r#""id":"s2""#), "{report:?}");
        assert!(
            matches!(&seen[1], Incoming::Request { id, method, .. }
                if id == "s1" && method == "item/commandExecution/requestApproval"),
            "{seen:?}"
        );
        assert_eq!(seen.len(), 3);
        server.close(Duration::from_secs(1)).await;
    }
}
