//! Pi's RPC wire format (`pi --mode rpc`): one JSON object per LF-terminated line on stdin and
//! stdout ("Pi RPC mode" in docs/harness-behaviour.md; the npm package ships its own `rpc.md`
//! and `json.md` under its docs folder).
//!
//! stdout carries three kinds of records: `response` (answers a command, echoing its `id`),
//! session events (no `id`), and `extension_ui_request` (an extension asks the user something).
//! Everything here is pure: parsing never panics, and a line that is not a JSON object is
//! skipped by the caller.

use serde_json::{json, Map, Value};

/// The answer to one command.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Response {
    /// The command's `id`; Pi omits it for unparsable commands.
    pub id: Option<String>,
    pub command: String,
    pub success: bool,
    pub data: Value,
    pub error: Option<String>,
}

/// One stdout record.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Record {
    Response(Response),
    /// An extension dialog or notification; dialogs block Pi until answered.
    UiRequest {
        id: String,
        method: String,
    },
    /// A session event (`agent_start`, `message_update`, …), kept as JSON.
    Event(Value),
}

/// Parses one stdout line (without its line ending). `None` for anything that is not a JSON
/// object with a string `type`.
pub(super) fn parse_record(line: &[u8]) -> Option<Record> {
    let value: Value = serde_json::from_slice(line).ok()?;
    let kind = value.get("type")?.as_str()?;
    match kind {
        "response" => Some(Record::Response(Response {
            id: str_field(&value, "id"),
            command: str_field(&value, "command").unwrap_or_default(),
            success: value.get("success").and_then(Value::as_bool) == Some(true),
            error: str_field(&value, "error"),
            data: value.get("data").cloned().unwrap_or(Value::Null),
        })),
        "extension_ui_request" => Some(Record::UiRequest {
            id: str_field(&value, "id")?,
            method: str_field(&value, "method").unwrap_or_default(),
        }),
        _ => Some(Record::Event(value)),
    }
}

/// A command line: `{"id":…,"type":…,…fields}` followed by LF.
pub(super) fn command_line(id: &str, kind: &str, fields: Value) -> String {
    let mut object = match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    object.insert("id".into(), Value::String(id.into()));
    object.insert("type".into(), Value::String(kind.into()));
    let mut line = Value::Object(object).to_string();
    line.push('\n');
    line
}

/// Dialog methods block Pi until the client answers; Forkhost has no UI for them here, so it
/// cancels them (Pi then takes the dialog's default).
pub(super) fn is_dialog(method: &str) -> bool {
    matches!(method, "select" | "confirm" | "input" | "editor")
}

pub(super) fn cancel_dialog_line(id: &str) -> String {
    let mut line =
        json!({ "type": "extension_ui_response", "id": id, "cancelled": true }).to_string();
    line.push('\n');
    line
}

/// What the runtime cares about in a session event.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    AgentStart,
    /// A user prompt was recorded.
    UserMessage,
    /// An assistant message finished: its stop reason, error and any tool calls.
    AssistantMessage {
        stop_reason: Option<String>,
        error: Option<String>,
        tool_calls: Vec<ToolCallBlock>,
        /// This model call's tokens and cost (`super::usage`).
        usage: Option<crate::contract::TurnUsage>,
    },
    ToolResult {
        id: Option<String>,
        output: String,
        is_error: bool,
    },
    TextDelta(String),
    /// A tool call's arguments are complete (streamed before its message ends).
    ToolCallDone(ToolCallBlock),
    /// Pi will not continue on its own: the prompt's run is over.
    AgentSettled {
        aborted: bool,
    },
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct ToolCallBlock {
    pub id: Option<String>,
    pub name: String,
    pub input: Value,
}

pub(super) fn classify(event: &Value) -> Event {
    match event.get("type").and_then(Value::as_str) {
        Some("agent_start") => Event::AgentStart,
        Some("agent_settled") => Event::AgentSettled {
            aborted: event.get("aborted").and_then(Value::as_bool) == Some(true),
        },
        Some("message_end") => classify_message(event.get("message").unwrap_or(&Value::Null)),
        Some("message_update") => classify_update(event.get("assistantMessageEvent")),
        _ => Event::Other,
    }
}

fn classify_message(message: &Value) -> Event {
    match message.get("role").and_then(Value::as_str) {
        Some("user") => Event::UserMessage,
        Some("assistant") => {
            let blocks = message.get("content").and_then(Value::as_array);
            let tool_calls = blocks
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                .map(tool_call_block)
                .collect();
            Event::AssistantMessage {
                stop_reason: str_field(message, "stopReason"),
                error: str_field(message, "errorMessage").filter(|e| !e.is_empty()),
                tool_calls,
                usage: super::usage::message_usage(message),
            }
        }
        Some("toolResult") => Event::ToolResult {
            id: str_field(message, "toolCallId"),
            output: content_text(message.get("content").unwrap_or(&Value::Null)),
            is_error: message.get("isError").and_then(Value::as_bool) == Some(true),
        },
        _ => Event::Other,
    }
}

fn classify_update(update: Option<&Value>) -> Event {
    let Some(update) = update else {
        return Event::Other;
    };
    match update.get("type").and_then(Value::as_str) {
        Some("text_delta") => match update.get("delta").and_then(Value::as_str) {
            Some(delta) if !delta.is_empty() => Event::TextDelta(delta.to_owned()),
            _ => Event::Other,
        },
        Some("toolcall_end") => match update.get("toolCall") {
            Some(call) => Event::ToolCallDone(tool_call_block(call)),
            None => Event::Other,
        },
        _ => Event::Other,
    }
}

fn tool_call_block(block: &Value) -> ToolCallBlock {
    ToolCallBlock {
        id: str_field(block, "id"),
        name: str_field(block, "name").unwrap_or_default(),
        input: block.get("arguments").cloned().unwrap_or(Value::Null),
    }
}

/// Text of a message content: a string, or the `text` parts of an array joined.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `get_state` data: the session file and id Pi is writing (the file may not exist yet).
pub(super) fn state_session(data: &Value) -> Option<(String, String)> {
    Some((
        str_field(data, "sessionFile")?,
        str_field(data, "sessionId")?,
    ))
}

/// `get_entries` data: the id of the last user message among the returned entries.
pub(super) fn last_user_entry(data: &Value) -> Option<String> {
    entries(data)
        .rev()
        .find(|e| is_user_message(e))
        .and_then(|e| str_field(e, "id"))
}

/// `get_entries` data: the current leaf.
pub(super) fn leaf_id(data: &Value) -> Option<String> {
    str_field(data, "leafId")
}

/// `get_entries` data: the user message whose parent is `parent` (the prompt that followed it).
pub(super) fn user_child_of(data: &Value, parent: &str) -> Option<String> {
    entries(data)
        .find(|e| is_user_message(e) && e.get("parentId").and_then(Value::as_str) == Some(parent))
        .and_then(|e| str_field(e, "id"))
}

/// `get_entries` data: the types of the returned entries.
pub(super) fn entry_types(data: &Value) -> Vec<String> {
    entries(data)
        .map(|e| str_field(e, "type").unwrap_or_default())
        .collect()
}

fn entries(data: &Value) -> impl DoubleEndedIterator<Item = &Value> {
    data.get("entries")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn is_user_message(entry: &Value) -> bool {
    entry.get("type").and_then(Value::as_str) == Some("message")
        && entry.pointer("/message/role").and_then(Value::as_str) == Some("user")
}

fn str_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_responses_events_and_ui_requests() {
        let r = parse_record(br#"{"id":"fh-1","type":"response","command":"fork","success":false,"error":"Invalid entry ID for forking"}"#);
        assert_eq!(
            r,
            Some(Record::Response(Response {
                id: Some("fh-1".into()),
                command: "fork".into(),
                success: false,
                data: Value::Null,
                error: Some("Invalid entry ID for forking".into()),
            }))
        );
        let ui = parse_record(br#"{"type":"extension_ui_request","id":"u1","method":"confirm"}"#);
        assert_eq!(
            ui,
            Some(Record::UiRequest {
                id: "u1".into(),
                method: "confirm".into()
            })
        );
        assert!(matches!(
            parse_record(br#"{"type":"agent_start"}"#),
            Some(Record::Event(_))
        ));
    }

    #[test]
    fn malformed_lines_are_skipped_not_fatal() {
        for line in [
            &b""[..],
            b"{",
            b"[1,2]",
            b"\"text\"",
            b"{\"type\":3}",
            b"\xff\xfe",
        ] {
            assert_eq!(parse_record(line), None, "{line:?}");
        }
    }

    #[test]
    fn classifies_the_events_a_turn_needs() {
        let delta = json!({"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"re"}});
        assert_eq!(classify(&delta), Event::TextDelta("re".into()));
        let call = json!({"type":"message_update","assistantMessageEvent":{"type":"toolcall_end","toolCall":{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo"}}}});
        assert_eq!(
            classify(&call),
            Event::ToolCallDone(ToolCallBlock {
                id: Some("c1".into()),
                name: "bash".into(),
                input: json!({"command":"echo"})
            })
        );
        let result = json!({"type":"message_end","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"ok\n"}],"isError":false}});
        assert_eq!(
            classify(&result),
            Event::ToolResult {
                id: Some("c1".into()),
                output: "ok\n".into(),
                is_error: false
            }
        );
        let aborted = json!({"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Request was aborted"}});
        assert!(matches!(
            classify(&aborted),
            Event::AssistantMessage { stop_reason: Some(s), error: Some(_), .. } if s == "aborted"
        ));
        assert_eq!(
            classify(&json!({"type":"agent_settled","aborted":true})),
            Event::AgentSettled { aborted: true }
        );
        assert_eq!(classify(&json!({"type":"message_update"})), Event::Other);
    }

    #[test]
    fn reads_entry_coordinates() {
        let data = json!({"entries":[
            {"type":"message","id":"u1","parentId":"s0","message":{"role":"user"}},
            {"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant"}},
            {"type":"message","id":"u2","parentId":"a1","message":{"role":"user"}},
            {"type":"label","id":"l1","parentId":"u2"}
        ],"leafId":"l1"});
        assert_eq!(last_user_entry(&data).as_deref(), Some("u2"));
        assert_eq!(user_child_of(&data, "a1").as_deref(), Some("u2"));
        assert_eq!(user_child_of(&data, "u2"), None);
        assert_eq!(leaf_id(&data).as_deref(), Some("l1"));
        assert_eq!(
            entry_types(&data),
            ["message", "message", "message", "label"]
        );
        assert_eq!(last_user_entry(&Value::Null), None);
    }

    #[test]
    fn command_lines_are_one_json_object_per_line() {
        let line = command_line("fh-7", "fork", json!({"entryId":"ab12"}));
        assert!(line.ends_with('\n') && !line.trim_end().contains('\n'));
        let v: Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(v, json!({"id":"fh-7","type":"fork","entryId":"ab12"}));
    }
}
