//! The text pass over rollout lines: a record of a known kind becomes messages.

use serde_json::Value;

use super::Kind;
use crate::contract::TurnUsage;
use crate::history::{Message, Role, ToolCall};
use crate::messages::{content_text, str_of, TurnMessages};

/// Turn one record into messages (the text pass, on demand).
pub(super) fn add_record(msgs: &mut TurnMessages, kind: Kind, v: &Value, prefer_items: bool) {
    let payload = v.get("payload").unwrap_or(v);
    match kind {
        Kind::UserEvent | Kind::AgentEvent if prefer_items => {}
        Kind::UserEvent => msgs.text(
            Role::User,
            str_of(payload, "message").unwrap_or_default().to_owned(),
            None,
        ),
        Kind::AgentEvent => msgs.push(Message::new(
            Role::Assistant,
            str_of(payload, "message").unwrap_or_default(),
        )),
        Kind::UserItem | Kind::AgentItem => {
            let item = payload.get("item").unwrap_or(&Value::Null);
            let text = content_text(item.get("content").unwrap_or(&Value::Null));
            let role = if kind == Kind::UserItem {
                Role::User
            } else {
                Role::Assistant
            };
            msgs.push(Message::new(role, text).with_ref(str_of(item, "id")));
        }
        Kind::BareUser | Kind::InjectedUser => msgs.text(
            Role::User,
            content_text(payload.get("content").unwrap_or(&Value::Null)),
            str_of(payload, "id"),
        ),
        Kind::BareAssistant | Kind::InjectedAssistant => msgs.push(
            Message::new(
                Role::Assistant,
                content_text(payload.get("content").unwrap_or(&Value::Null)),
            )
            .with_ref(str_of(payload, "id")),
        ),
        Kind::Tool => add_tool(msgs, payload),
        Kind::Error => msgs.push(Message::error(
            Role::Other,
            str_of(payload, "message").unwrap_or("error"),
        )),
        Kind::TokenCount => {
            if let Some(usage) = payload.pointer("/info/last_token_usage").and_then(tokens) {
                msgs.call_usage(None, usage, None);
            }
        }
        Kind::Context => msgs.model_in_use(str_of(payload, "model")),
        Kind::Compacted => {
            let text = str_of(payload, "message").unwrap_or_default().to_owned();
            msgs.text(Role::Other, text, None);
        }
    }
}

/// One response's tokens (`last_token_usage`): `input_tokens` counts the cached ones, and
/// `output_tokens` the reasoning ones. Codex writes no price.
fn tokens(usage: &Value) -> Option<TurnUsage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    Some(TurnUsage {
        input_tokens: count("input_tokens")?,
        output_tokens: count("output_tokens")?,
        cached_input_tokens: count("cached_input_tokens"),
        cache_write_tokens: count("cache_write_input_tokens"),
        reasoning_tokens: count("reasoning_output_tokens"),
        cost_usd: None,
    })
}

fn add_tool(msgs: &mut TurnMessages, item: &Value) {
    let call_id = str_of(item, "call_id").or_else(|| str_of(item, "id"));
    let call = |name: &str, input: Value| ToolCall {
        id: call_id.map(str::to_owned),
        name: name.to_owned(),
        input,
        output: None,
        is_error: false,
    };
    let item_ref = str_of(item, "id");
    match str_of(item, "type").unwrap_or_default() {
        "function_call" => {
            // Arguments are a JSON document in a string.
            let args = str_of(item, "arguments").unwrap_or_default();
            let input = serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.into()));
            msgs.tool_call(
                call(str_of(item, "name").unwrap_or_default(), input),
                item_ref,
            );
        }
        "custom_tool_call" => {
            let input = item.get("input").cloned().unwrap_or(Value::Null);
            msgs.tool_call(
                call(str_of(item, "name").unwrap_or_default(), input),
                item_ref,
            );
        }
        "local_shell_call" => {
            let input = item.get("action").cloned().unwrap_or(Value::Null);
            msgs.tool_call(call("shell", input), item_ref);
        }
        "web_search_call" | "tool_search_call" => {
            let name = str_of(item, "type")
                .unwrap_or_default()
                .trim_end_matches("_call");
            let input = item.get("action").cloned().unwrap_or(Value::Null);
            let mut c = call(name, input);
            c.output = str_of(item, "status").map(str::to_owned);
            msgs.tool_call(c, item_ref);
        }
        _ => {
            let (output, is_error) = tool_output(item.get("output").unwrap_or(&Value::Null));
            msgs.tool_result(call_id, output, is_error, item_ref);
        }
    }
}

/// A tool output: a string, `{"content", "success"}`, or a list of content items.
fn tool_output(output: &Value) -> (String, bool) {
    match output {
        Value::Object(o) => {
            let text = content_text(o.get("content").unwrap_or(&Value::Null));
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            (text, failed)
        }
        other => (content_text(other), false),
    }
}
