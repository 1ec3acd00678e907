//! The part of the app-server protocol (v2, camelCase) that Forkhost speaks: typed request
//! params, the fields of results it reads, notifications turned into [`RuntimeEvent`]s, and
//! the server's error messages turned into [`HarnessError`]s.
//!
//! Field names follow `codex app-server generate-ts --experimental` of the pinned version
//! (0.171.0). Results are read leniently: a field Forkhost does not need may be missing or
//! change shape without breaking anything.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::app_server::{AppServer, RpcFailure};
use crate::contract::{RuntimeEvent, TurnOutcome};
use crate::{HarnessError, HarnessKind};

/// How long `initialize` may take: a cold start pages in a 300 MB binary.
pub(crate) const INIT_TIMEOUT: Duration = Duration::from_secs(60);
/// How long thread and turn requests may take (they answer in milliseconds when healthy).
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// `initialize` then `initialized`. `experimental` opts into experimental fields such as
/// `thread/fork.beforeTurnId`. Returns `$CODEX_HOME` as the server resolved it.
pub(crate) async fn initialize(
    server: &AppServer,
    experimental: bool,
) -> Result<Option<PathBuf>, HarnessError> {
    let params = json!({
        "clientInfo": {
            "name": "forkhost",
            "title": "Forkhost",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "capabilities": {
            "experimentalApi": experimental,
            "requestAttestation": false,
        },
    });
    let result = server
        .request("initialize", params, INIT_TIMEOUT)
        .await
        .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    server
        .notify("initialized", None)
        .await
        .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    Ok(result
        .get("codexHome")
        .and_then(Value::as_str)
        .map(PathBuf::from))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadStartParams {
    pub cwd: String,
    /// `untrusted`, `on-request`, `never`; `None` leaves the config's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    /// `read-only`, `workspace-write`, `danger-full-access`; `None` leaves the config's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadResumeParams {
    pub thread_id: String,
    /// The history is read from the rollout; hydrating it here is deprecated and slow.
    pub exclude_turns: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadForkParams {
    pub thread_id: String,
    /// Inclusive: keep turns up to and including this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_turn_id: Option<String>,
    /// Exclusive (experimental): keep the turns before this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_turn_id: Option<String>,
    /// The fork's working directory; `None` keeps the source's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The fork's approval policy and sandbox, when it runs in the server that forks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    pub exclude_turns: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadIdParams {
    pub thread_id: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnStartParams {
    pub thread_id: String,
    pub input: Vec<UserInput>,
    /// A changed approval policy, for this turn and the next ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<String>,
    /// A changed sandbox, for this turn and the next ones ([`sandbox_policy`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox_policy: Option<Value>,
    /// A chosen model, for this turn and the next ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// A sandbox word (`thread/start`'s `SandboxMode`) as `turn/start`'s `SandboxPolicy` object,
/// with Codex's defaults (no network, no extra writable roots).
pub(crate) fn sandbox_policy(sandbox: &str) -> Option<Value> {
    Some(match sandbox {
        "read-only" => serde_json::json!({ "type": "readOnly", "networkAccess": false }),
        "workspace-write" => serde_json::json!({
            "type": "workspaceWrite",
            "writableRoots": [],
            "networkAccess": false,
            "excludeTmpdirEnvVar": false,
            "excludeSlashTmp": false,
        }),
        "danger-full-access" => serde_json::json!({ "type": "dangerFullAccess" }),
        _ => return None,
    })
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum UserInput {
    Text {
        text: String,
        /// Spelled in snake case on the wire, unlike its neighbours.
        #[serde(rename = "text_elements")]
        text_elements: Vec<Value>,
    },
}

impl UserInput {
    pub fn text(text: &str) -> Self {
        UserInput::Text {
            text: text.to_owned(),
            text_elements: Vec::new(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnInterruptParams {
    pub thread_id: String,
    pub turn_id: String,
}

/// Params as the JSON value a request takes.
pub(crate) fn params(p: &impl Serialize) -> Value {
    serde_json::to_value(p).unwrap_or(Value::Null)
}

/// What Forkhost reads of a `Thread` (in `thread/start|resume|fork` results).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThreadInfo {
    pub id: String,
    /// The rollout file ([UNSTABLE] in the schema, so it is also looked up when missing).
    #[serde(default)]
    pub path: Option<PathBuf>,
    #[serde(default)]
    pub forked_from_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

/// `{thread: Thread, ...}`.
pub(crate) fn thread_of(result: &Value) -> Result<ThreadInfo, HarnessError> {
    result
        .get("thread")
        .cloned()
        .and_then(|t| serde_json::from_value(t).ok())
        .ok_or_else(|| protocol_error("a thread result without thread.id"))
}

/// `{turn: {id, ...}}` of `turn/start`.
pub(crate) fn turn_id_of(result: &Value) -> Option<String> {
    result
        .pointer("/turn/id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

pub(crate) fn protocol_error(what: &str) -> HarnessError {
    HarnessError::failed(
        HarnessKind::Codex,
        format!("unexpected app-server answer: {what}"),
        "",
    )
}

/// A notification that matters to a runtime.
#[derive(Debug, PartialEq)]
pub(crate) enum Notice {
    TurnStarted {
        thread_id: String,
        turn_id: String,
    },
    TurnCompleted {
        thread_id: String,
        turn_id: String,
        outcome: TurnOutcome,
    },
    /// The server no longer waits for the answer to its request (answered or withdrawn).
    Resolved {
        thread_id: String,
        request_id: String,
    },
    /// A runtime event about one item (text delta, tool call, tool result).
    Item {
        thread_id: String,
        event: ItemEvent,
    },
    Other,
}

#[derive(Debug, PartialEq)]
pub(crate) enum ItemEvent {
    Delta {
        item_id: String,
        text: String,
    },
    /// An agent message finished; its full text, for when no delta was streamed.
    MessageDone {
        item_id: String,
        text: String,
    },
    Event(RuntimeEvent),
}

/// Reads one notification; anything unexpected is [`Notice::Other`].
pub(crate) fn parse_notice(method: &str, params: &Value) -> Notice {
    parse_known(method, params).unwrap_or(Notice::Other)
}

fn parse_known(method: &str, p: &Value) -> Option<Notice> {
    let thread_id = str_at(p, "/threadId")?;
    let notice = match method {
        "turn/started" => Notice::TurnStarted {
            thread_id,
            turn_id: str_at(p, "/turn/id")?,
        },
        "turn/completed" => Notice::TurnCompleted {
            thread_id,
            turn_id: str_at(p, "/turn/id")?,
            outcome: outcome_of(p.get("turn")?),
        },
        "serverRequest/resolved" => Notice::Resolved {
            thread_id,
            request_id: super::approvals::id_text(p.get("requestId")?),
        },
        "item/agentMessage/delta" => Notice::Item {
            thread_id,
            event: ItemEvent::Delta {
                item_id: str_at(p, "/itemId").unwrap_or_default(),
                text: str_at(p, "/delta")?,
            },
        },
        "item/started" => Notice::Item {
            thread_id,
            event: ItemEvent::Event(tool_call(p.get("item")?)?),
        },
        "item/completed" => Notice::Item {
            thread_id,
            event: item_completed(p.get("item")?)?,
        },
        _ => return None,
    };
    Some(notice)
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn outcome_of(turn: &Value) -> TurnOutcome {
    let error = || str_at(turn, "/error/message").unwrap_or_else(|| "the turn failed".to_owned());
    match turn.get("status").and_then(Value::as_str) {
        Some("completed") => TurnOutcome::Completed,
        Some("interrupted") => TurnOutcome::Interrupted,
        Some("failed") => TurnOutcome::Failed { message: error() },
        other => TurnOutcome::Failed {
            message: format!("turn ended with status {}", other.unwrap_or("(none)")),
        },
    }
}

/// The tool call an `item/started` announces, if the item is a tool.
fn tool_call(item: &Value) -> Option<RuntimeEvent> {
    let id = str_at(item, "/id");
    let (name, input) = match item.get("type")?.as_str()? {
        "commandExecution" => (
            "shell".to_owned(),
            json!({ "command": item.get("command"), "cwd": item.get("cwd") }),
        ),
        "mcpToolCall" => (
            format!(
                "{}.{}",
                str_at(item, "/server").unwrap_or_default(),
                str_at(item, "/tool").unwrap_or_default()
            ),
            item.get("arguments").cloned().unwrap_or(Value::Null),
        ),
        "dynamicToolCall" => (
            str_at(item, "/tool").unwrap_or_default(),
            item.get("arguments").cloned().unwrap_or(Value::Null),
        ),
        "fileChange" => (
            "apply_patch".to_owned(),
            json!({ "changes": item.get("changes") }),
        ),
        "webSearch" => (
            "web_search".to_owned(),
            json!({ "query": item.get("query") }),
        ),
        _ => return None,
    };
    Some(RuntimeEvent::ToolCall { id, name, input })
}

/// What an `item/completed` adds: a tool's result, or an agent message's full text.
fn item_completed(item: &Value) -> Option<ItemEvent> {
    let id = str_at(item, "/id");
    let status = str_at(item, "/status").unwrap_or_default();
    let failed = matches!(status.as_str(), "failed" | "declined");
    let (output, is_error) = match item.get("type")?.as_str()? {
        "agentMessage" => {
            return Some(ItemEvent::MessageDone {
                item_id: id.unwrap_or_default(),
                text: str_at(item, "/text").unwrap_or_default(),
            })
        }
        "commandExecution" => {
            let exit = item.get("exitCode").and_then(Value::as_i64);
            (
                str_at(item, "/aggregatedOutput").unwrap_or_default(),
                failed || exit.is_some_and(|c| c != 0),
            )
        }
        "mcpToolCall" => match item.get("error").filter(|e| !e.is_null()) {
            Some(err) => (
                str_at(err, "/message").unwrap_or_else(|| err.to_string()),
                true,
            ),
            None => (json_text(item.get("result")), failed),
        },
        "dynamicToolCall" => (
            json_text(item.get("contentItems")),
            failed || item.get("success").and_then(Value::as_bool) == Some(false),
        ),
        "fileChange" => (status, failed),
        "webSearch" => (String::new(), false),
        _ => return None,
    };
    Some(ItemEvent::Event(RuntimeEvent::ToolResult {
        id,
        output,
        is_error,
    }))
}

fn json_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Maps a failed request onto the typed error. The server's messages are matched on the
/// phrases 0.171.0 uses ("Codex: the app-server's error messages" in
/// docs/harness-behaviour.md); anything else is a harness failure carrying the stderr tail.
pub(crate) fn to_harness_error(failure: RpcFailure, stderr_tail: &str) -> HarnessError {
    let message = match failure {
        RpcFailure::Rpc { code, message } => return rpc_error(code, message, stderr_tail),
        RpcFailure::Exited => "the codex app-server exited".to_owned(),
        RpcFailure::Timeout { method, after } => {
            format!("the codex app-server did not answer {method} within {after:?}")
        }
    };
    HarnessError::failed(HarnessKind::Codex, message, stderr_tail)
}

fn rpc_error(code: i64, message: String, stderr_tail: &str) -> HarnessError {
    let has = |phrase: &str| message.contains(phrase);
    if has("no rollout found") || has("invalid session id") || has("thread not found") {
        HarnessError::SessionNotFound(message)
    } else if has("turn not found") || has("in-progress turn") {
        HarnessError::CheckpointNotFound(message)
    } else if has("already has an active writer") {
        HarnessError::Busy(message)
    } else if has("requires experimentalApi") {
        HarnessError::Unsupported(message)
    } else {
        HarnessError::failed(
            HarnessKind::Codex,
            format!("{message} (JSON-RPC error {code})"),
            stderr_tail,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_use_the_wire_names() {
        let p = params(&TurnStartParams {
            thread_id: "t".into(),
            input: vec![UserInput::text("hi")],
            approval_policy: None,
            sandbox_policy: None,
            model: None,
        });
        assert_eq!(
            p,
            json!({"threadId": "t", "input": [{"type": "text", "text": "hi", "text_elements": []}]})
        );
        let p = params(&TurnStartParams {
            thread_id: "t".into(),
            input: vec![],
            approval_policy: Some("never".into()),
            sandbox_policy: sandbox_policy("danger-full-access"),
            model: Some("gpt-x".into()),
        });
        assert_eq!(p["approvalPolicy"], "never");
        assert_eq!(p["model"], "gpt-x");
        assert_eq!(p["sandboxPolicy"], json!({"type": "dangerFullAccess"}));
        assert_eq!(sandbox_policy("read-only").unwrap()["type"], "readOnly");
        assert_eq!(
            sandbox_policy("workspace-write").unwrap()["type"],
            "workspaceWrite"
        );
        assert_eq!(sandbox_policy("yolo"), None);
        let p = params(&ThreadForkParams {
            thread_id: "t".into(),
            last_turn_id: None,
            before_turn_id: Some("b".into()),
            cwd: None,
            approval_policy: None,
            sandbox: None,
            exclude_turns: true,
        });
        assert_eq!(
            p,
            json!({"threadId": "t", "beforeTurnId": "b", "excludeTurns": true})
        );
        let p = params(&ThreadForkParams {
            thread_id: "t".into(),
            last_turn_id: Some("l".into()),
            before_turn_id: None,
            cwd: Some("/wt".into()),
            approval_policy: Some("never".into()),
            sandbox: Some("read-only".into()),
            exclude_turns: true,
        });
        assert_eq!(
            p,
            json!({"threadId": "t", "lastTurnId": "l", "cwd": "/wt", "excludeTurns": true,
                   "approvalPolicy": "never", "sandbox": "read-only"})
        );
        let p = params(&ThreadStartParams {
            cwd: "/w".into(),
            approval_policy: Some("untrusted".into()),
            sandbox: Some("read-only".into()),
        });
        assert_eq!(
            p,
            json!({"cwd": "/w", "approvalPolicy": "untrusted", "sandbox": "read-only"})
        );
        // No mode chosen: the fields stay out and config.toml decides.
        let p = params(&ThreadResumeParams {
            thread_id: "t".into(),
            exclude_turns: true,
            approval_policy: None,
            sandbox: None,
        });
        assert_eq!(p, json!({"threadId": "t", "excludeTurns": true}));
    }

    #[test]
    fn reads_turn_and_item_notifications() {
        let done = json!({"threadId": "t", "turn": {"id": "u", "status": "interrupted"}});
        assert_eq!(
            parse_notice("turn/completed", &done),
            Notice::TurnCompleted {
                thread_id: "t".into(),
                turn_id: "u".into(),
                outcome: TurnOutcome::Interrupted
            }
        );
        let failed = json!({"threadId": "t", "turn": {"id": "u", "status": "failed",
                             "error": {"message": "boom"}}});
        assert!(matches!(
            parse_notice("turn/completed", &failed),
            Notice::TurnCompleted { outcome: TurnOutcome::Failed { message }, .. } if message == "boom"
        ));
        let cmd = json!({"threadId": "t", "turnId": "u", "item": {"type": "commandExecution",
            "id": "call_1", "command": "echo hi", "cwd": "/w", "status": "completed",
            "aggregatedOutput": "hi\n", "exitCode": 0}});
        assert_eq!(
            parse_notice("item/completed", &cmd),
            Notice::Item {
                thread_id: "t".into(),
                event: ItemEvent::Event(RuntimeEvent::ToolResult {
                    id: Some("call_1".into()),
                    output: "hi\n".into(),
                    is_error: false
                })
            }
        );
        assert!(matches!(
            parse_notice("item/started", &cmd),
            Notice::Item { event: ItemEvent::Event(RuntimeEvent::ToolCall { name, .. }), .. } if name == "shell"
        ));
    }

    #[test]
    fn a_resolved_request_names_its_id_as_text() {
        let resolved = json!({"threadId": "t", "requestId": 0});
        assert_eq!(
            parse_notice("serverRequest/resolved", &resolved),
            Notice::Resolved {
                thread_id: "t".into(),
                request_id: "0".into()
            }
        );
    }

    #[test]
    fn malformed_notifications_are_other() {
        assert_eq!(parse_notice("turn/completed", &json!({})), Notice::Other);
        assert_eq!(parse_notice("turn/started", &json!("x")), Notice::Other);
        assert_eq!(
            parse_notice("item/agentMessage/delta", &json!({"threadId": 3})),
            Notice::Other
        );
        let user = json!({"threadId": "t", "item": {"type": "userMessage", "id": "i"}});
        assert_eq!(parse_notice("item/started", &user), Notice::Other);
    }

    #[test]
    fn server_errors_become_typed_errors() {
        let rpc = |m: &str| RpcFailure::Rpc {
            code: -32600,
            message: m.into(),
        };
        assert!(matches!(
            to_harness_error(rpc("no rollout found for thread id x"), ""),
            HarnessError::SessionNotFound(_)
        ));
        assert!(matches!(
            to_harness_error(rpc("turn not found: x"), ""),
            HarnessError::CheckpointNotFound(_)
        ));
        assert!(matches!(
            to_harness_error(rpc("thread x already has an active writer"), ""),
            HarnessError::Busy(_)
        ));
        assert!(matches!(
            to_harness_error(RpcFailure::Exited, "tail"),
            HarnessError::HarnessFailed { stderr_tail, .. } if stderr_tail == "tail"
        ));
    }
}
