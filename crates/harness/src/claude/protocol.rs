//! The stream-json protocol of `claude -p --input-format stream-json --output-format
//! stream-json --verbose` ("Claude Code 2.1.197: the stream-json runtime and lazy fork" in
//! docs/harness-behaviour.md): what goes to stdin, and stdout lines read into
//! the few shapes the runtime acts on. Nothing here panics on what the CLI prints: a line that
//! is not JSON, or not an object, is [`Output::Unknown`].

use serde_json::{json, Value};

use super::approvals::ToolPermission;

/// One stdout line, reduced to what the runtime needs. Events of subagents
/// (`parent_tool_use_id` set) are [`Output::Unknown`]: they are not the session's own turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Output {
    /// `system/init`: printed at the start of every turn.
    Init {
        session_id: Option<String>,
    },
    /// `stream_event` `message_start`: a streamed API message begins.
    MessageStart {
        message_id: Option<String>,
    },
    /// `stream_event` `content_block_delta` / `text_delta`.
    TextDelta(String),
    /// An `assistant` record (one per content block), as it is persisted.
    Assistant(AssistantRecord),
    /// A `user` record: the replayed prompt, tool results, or an interruption marker.
    User(UserRecord),
    /// The turn's end.
    Result(TurnResult),
    /// The CLI asks whether it may use a tool (`control_request` `can_use_tool`).
    Permission(ToolPermission),
    /// The CLI withdrew a request of its own (`control_cancel_request`).
    Cancel {
        request_id: String,
    },
    /// The answer to one of our control requests.
    ControlResponse {
        request_id: Option<String>,
        error: Option<String>,
    },
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AssistantRecord {
    pub uuid: Option<String>,
    pub message_id: Option<String>,
    pub texts: Vec<String>,
    pub tool_calls: Vec<ToolUse>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolUse {
    pub id: Option<String>,
    pub name: String,
    pub input: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UserRecord {
    pub uuid: Option<String>,
    /// The echo of a prompt we sent (`--replay-user-messages`).
    pub replay: bool,
    pub tool_results: Vec<ToolOutput>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutput {
    pub id: Option<String>,
    pub output: String,
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnResult {
    /// `subtype: success` and not `is_error`. An API failure is `success` + `is_error`.
    pub ok: bool,
    /// The `result` text (the reply, or the API error).
    pub text: Option<String>,
    /// `errors`: why the run failed (e.g. "No conversation found with session ID: …").
    pub errors: Vec<String>,
    pub num_turns: Option<u64>,
    /// The turn's tokens (`usage`), its cost not yet known ([`super::usage`]).
    pub usage: Option<crate::contract::TurnUsage>,
    /// `total_cost_usd`: every turn of this process so far.
    pub total_cost_usd: Option<f64>,
}

impl TurnResult {
    /// A short reason for a failed turn.
    pub(crate) fn failure(&self) -> String {
        if !self.errors.is_empty() {
            return self.errors.join("; ");
        }
        self.text
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "the turn failed".into())
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Reads one stdout line.
pub(crate) fn parse_line(line: &[u8]) -> Output {
    let Ok(v) = serde_json::from_slice::<Value>(line) else {
        return Output::Unknown;
    };
    let is_subagent = v.get("parent_tool_use_id").is_some_and(|p| !p.is_null());
    match v.get("type").and_then(Value::as_str) {
        Some("system") if v.get("subtype").and_then(Value::as_str) == Some("init") => {
            Output::Init {
                session_id: str_field(&v, "session_id"),
            }
        }
        Some("stream_event") if !is_subagent => parse_stream_event(v.get("event")),
        Some("assistant") if !is_subagent => Output::Assistant(parse_assistant(&v)),
        Some("user") if !is_subagent => Output::User(parse_user(&v)),
        Some("result") => Output::Result(parse_result(&v)),
        Some("control_response") => parse_control_response(v.get("response")),
        Some("control_request") => parse_control_request(&v),
        Some("control_cancel_request") => str_field(&v, "request_id")
            .map_or(Output::Unknown, |request_id| Output::Cancel { request_id }),
        _ => Output::Unknown,
    }
}

fn parse_stream_event(event: Option<&Value>) -> Output {
    let Some(event) = event else {
        return Output::Unknown;
    };
    match event.get("type").and_then(Value::as_str) {
        Some("message_start") => Output::MessageStart {
            message_id: event.get("message").and_then(|m| str_field(m, "id")),
        },
        Some("content_block_delta") => {
            let delta = event.get("delta");
            match delta.and_then(|d| d.get("type")).and_then(Value::as_str) {
                Some("text_delta") => delta
                    .and_then(|d| str_field(d, "text"))
                    .map_or(Output::Unknown, Output::TextDelta),
                _ => Output::Unknown,
            }
        }
        _ => Output::Unknown,
    }
}

fn content_blocks(message: Option<&Value>) -> &[Value] {
    message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn parse_assistant(v: &Value) -> AssistantRecord {
    let message = v.get("message");
    let mut record = AssistantRecord {
        uuid: str_field(v, "uuid"),
        message_id: message.and_then(|m| str_field(m, "id")),
        texts: Vec::new(),
        tool_calls: Vec::new(),
    };
    for block in content_blocks(message) {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => record.texts.extend(str_field(block, "text")),
            Some("tool_use") => record.tool_calls.push(ToolUse {
                id: str_field(block, "id"),
                name: str_field(block, "name").unwrap_or_default(),
                input: block.get("input").cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
    record
}

fn parse_user(v: &Value) -> UserRecord {
    let tool_results = content_blocks(v.get("message"))
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|b| ToolOutput {
            id: str_field(b, "tool_use_id"),
            output: tool_result_text(b.get("content")),
            is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
        })
        .collect();
    UserRecord {
        uuid: str_field(v, "uuid"),
        replay: v.get("isReplay").and_then(Value::as_bool) == Some(true),
        tool_results,
    }
}

/// A tool result's content is a string, or an array of blocks of which the text ones count.
fn tool_result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn parse_result(v: &Value) -> TurnResult {
    let success = v.get("subtype").and_then(Value::as_str) == Some("success");
    let is_error = v
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(!success);
    TurnResult {
        ok: success && !is_error,
        text: str_field(v, "result"),
        errors: v
            .get("errors")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str().map(str::to_owned))
            .collect(),
        num_turns: v.get("num_turns").and_then(Value::as_u64),
        usage: super::usage::result_usage(v),
        total_cost_usd: v.get("total_cost_usd").and_then(Value::as_f64),
    }
}

/// A control request from the CLI; only `can_use_tool` is one the runtime answers.
fn parse_control_request(v: &Value) -> Output {
    let (Some(request_id), Some(request)) = (str_field(v, "request_id"), v.get("request")) else {
        return Output::Unknown;
    };
    if request.get("subtype").and_then(Value::as_str) != Some("can_use_tool") {
        return Output::Unknown;
    }
    Output::Permission(ToolPermission {
        request_id,
        tool_name: str_field(request, "tool_name").unwrap_or_default(),
        input: request.get("input").cloned().unwrap_or(json!({})),
        suggestions: request
            .get("permission_suggestions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        tool_use_id: str_field(request, "tool_use_id"),
    })
}

fn parse_control_response(response: Option<&Value>) -> Output {
    let Some(response) = response else {
        return Output::Unknown;
    };
    let error = match response.get("subtype").and_then(Value::as_str) {
        Some("success") => None,
        _ => Some(str_field(response, "error").unwrap_or_else(|| "control request failed".into())),
    };
    Output::ControlResponse {
        request_id: str_field(response, "request_id"),
        error,
    }
}

/// A prompt, with the transcript uuid we choose for its record (the CLI uses it as given),
/// so the turn's native ref is known before the CLI answers.
pub(crate) fn user_message(uuid: &str, prompt: &str) -> String {
    json!({
        "type": "user",
        "uuid": uuid,
        "session_id": "",
        "parent_tool_use_id": null,
        "message": { "role": "user", "content": prompt },
    })
    .to_string()
}

/// Stops the running turn; the CLI ends it with an `error_during_execution` result.
pub(crate) fn interrupt_request(request_id: &str) -> String {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": { "subtype": "interrupt" },
    })
    .to_string()
}

/// Changes the running CLI's permission mode (what shift+tab does in its terminal UI).
pub(crate) fn set_mode_request(request_id: &str, mode: &str) -> String {
    json!({
        "type": "control_request",
        "request_id": request_id,
        "request": { "subtype": "set_permission_mode", "mode": mode },
    })
    .to_string()
}

/// Why a CLI run ended before it could start a turn, from its error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartupFailure {
    SessionNotFound,
    CheckpointNotFound,
}

pub(crate) fn classify_failure(text: &str) -> Option<StartupFailure> {
    if text.contains("No conversation found") {
        Some(StartupFailure::SessionNotFound)
    } else if text.contains("No message found with message.uuid") {
        Some(StartupFailure::CheckpointNotFound)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_are_unknown() {
        for line in [
            "",
            "not json",
            "[1,2]",
            "{\"type\":3}",
            "{\"type\":\"stream_event\"}",
        ] {
            assert_eq!(parse_line(line.as_bytes()), Output::Unknown, "{line}");
        }
    }

    #[test]
    fn reads_a_turn() {
        let init = r#"{"type":"system","subtype":"init","session_id":"s1","uuid":"x"}"#;
        assert_eq!(
            parse_line(init.as_bytes()),
            Output::Init {
                session_id: Some("s1".into())
            }
        );
        let delta = r#"{"type":"stream_event","event":{"delta":{"text":"hi","type":"text_delta"},"index":0,"type":"content_block_delta"},"parent_tool_use_id":null}"#;
        assert_eq!(parse_line(delta.as_bytes()), Output::TextDelta("hi".into()));
        let sub = delta.replace(
            "\"parent_tool_use_id\":null",
            "\"parent_tool_use_id\":\"toolu_1\"",
        );
        assert_eq!(parse_line(sub.as_bytes()), Output::Unknown, "a subagent's");
        let tool = r#"{"type":"assistant","uuid":"a1","message":{"id":"msg_1","content":[{"id":"toolu_1","input":{"command":"ls"},"name":"Bash","type":"tool_use"}]},"parent_tool_use_id":null}"#;
        let Output::Assistant(a) = parse_line(tool.as_bytes()) else {
            panic!("not an assistant record")
        };
        assert_eq!(a.uuid.as_deref(), Some("a1"));
        assert_eq!(a.tool_calls[0].name, "Bash");
        assert_eq!(a.tool_calls[0].input, json!({"command":"ls"}));
        let result = r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true}]},"uuid":"u2"}"#;
        let Output::User(u) = parse_line(result.as_bytes()) else {
            panic!("not a user record")
        };
        assert_eq!(u.tool_results[0].output, "a\nb");
        assert!(u.tool_results[0].is_error && !u.replay);
        let end = r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: x","num_turns":1}"#;
        let Output::Result(r) = parse_line(end.as_bytes()) else {
            panic!("not a result")
        };
        assert!(!r.ok);
        assert_eq!(r.failure(), "API Error: x");
    }

    #[test]
    fn reads_permission_requests_and_their_withdrawal() {
        let ask = r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"touch a"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a"}],"behavior":"allow","destination":"localSettings"}],"blocked_path":"/w/a","tool_use_id":"toolu_1"}}"#;
        let Output::Permission(p) = parse_line(ask.as_bytes()) else {
            panic!("not a permission request")
        };
        assert_eq!(
            (p.request_id.as_str(), p.tool_name.as_str()),
            ("r1", "Bash")
        );
        assert_eq!(p.input, json!({"command": "touch a"}));
        assert_eq!(p.suggestions.len(), 1);
        assert_eq!(p.tool_use_id.as_deref(), Some("toolu_1"));
        let other =
            r#"{"type":"control_request","request_id":"r2","request":{"subtype":"hook_callback"}}"#;
        assert_eq!(parse_line(other.as_bytes()), Output::Unknown);
        let cancel = r#"{"type":"control_cancel_request","request_id":"r1"}"#;
        assert_eq!(
            parse_line(cancel.as_bytes()),
            Output::Cancel {
                request_id: "r1".into()
            }
        );
    }

    #[test]
    fn classifies_startup_failures() {
        assert_eq!(
            classify_failure("No conversation found with session ID: abc"),
            Some(StartupFailure::SessionNotFound)
        );
        assert_eq!(
            classify_failure("No message found with message.uuid of: abc"),
            Some(StartupFailure::CheckpointNotFound)
        );
        assert_eq!(classify_failure("something else"), None);
    }

    #[test]
    fn messages_are_one_json_line() {
        let line = user_message("u-1", "two\nlines \"quoted\"");
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["uuid"], "u-1");
        assert_eq!(v["message"]["content"], "two\nlines \"quoted\"");
        let v: Value = serde_json::from_str(&interrupt_request("r1")).unwrap();
        assert_eq!(v["request"]["subtype"], "interrupt");
    }
}
