//! Building one turn's messages out of native records, the parts all three readers share:
//! joining a tool call with its result, and merging an assistant reply that the harness wrote
//! in several records.

use serde_json::Value;

use crate::history::{Message, Role, ToolCall, Turn, TurnAnchor};

#[derive(Default)]
pub struct TurnMessages {
    pub messages: Vec<Message>,
    /// The key of the assistant reply the last message belongs to, while more of it may follow.
    open_reply: Option<String>,
}

impl TurnMessages {
    /// The turn these messages make, with the coordinates the index pass found for it.
    pub fn into_turn(self, anchor: &TurnAnchor) -> Turn {
        Turn {
            native_turn_ref: anchor.native_turn_ref.clone(),
            native_checkpoint_ref: anchor.native_checkpoint_ref.clone(),
            messages: self.messages,
            complete: anchor.complete,
        }
    }

    pub fn push(&mut self, message: Message) {
        self.open_reply = None;
        self.messages.push(message);
    }

    pub fn text(&mut self, role: Role, text: String, native_ref: Option<&str>) {
        self.push(Message::new(role, text).with_ref(native_ref));
    }

    /// Assistant text; joins the previous message when both carry the same `reply` key
    /// (Claude writes one record per content block of one API message).
    pub fn reply_text(&mut self, reply: Option<&str>, text: &str, native_ref: Option<&str>) {
        if let (Some(key), Some(open), Some(last)) =
            (reply, self.open_reply.as_deref(), self.messages.last_mut())
        {
            if key == open && last.role == Role::Assistant {
                if !last.text.is_empty() && !text.is_empty() {
                    last.text.push_str("\n\n");
                }
                last.text.push_str(text);
                if let Some(r) = native_ref {
                    last.native_ref = Some(r.to_owned());
                }
                return;
            }
        }
        self.push(Message::new(Role::Assistant, text).with_ref(native_ref));
        self.open_reply = reply.map(str::to_owned);
    }

    /// Keep an open reply open across records that add nothing visible (thinking blocks).
    pub fn continue_reply(&mut self, reply: Option<&str>) {
        if self.open_reply.is_some() && self.open_reply.as_deref() != reply {
            self.open_reply = None;
        }
    }

    pub fn tool_call(&mut self, call: ToolCall, native_ref: Option<&str>) {
        self.push(Message::for_tool(call).with_ref(native_ref));
    }

    /// A tool's result: fills in its call when the call is in this turn, else stands alone.
    pub fn tool_result(
        &mut self,
        call_id: Option<&str>,
        output: String,
        is_error: bool,
        native_ref: Option<&str>,
    ) {
        if let Some(id) = call_id {
            let pending = self.messages.iter_mut().rev().find_map(|m| {
                m.tool
                    .as_mut()
                    .filter(|t| t.output.is_none() && t.id.as_deref() == Some(id))
            });
            if let Some(call) = pending {
                call.output = Some(output);
                call.is_error = is_error;
                self.open_reply = None;
                return;
            }
        }
        self.tool_call(
            ToolCall {
                id: call_id.map(str::to_owned),
                name: String::new(),
                input: Value::Null,
                output: Some(output),
                is_error,
            },
            native_ref,
        );
    }
}

/// The readable text of a content value: a string, or the text of an array of blocks
/// (`{"type":"text","text":…}` and kin), one block per line; images show as `[image]`.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let mut out = String::new();
            for block in blocks {
                let part = match block {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => match o.get("text").and_then(Value::as_str) {
                        Some(t) => Some(t),
                        None if is_image(o.get("type")) => Some("[image]"),
                        None => None,
                    },
                    _ => None,
                };
                if let Some(part) = part {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(part);
                }
            }
            out
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn is_image(ty: Option<&Value>) -> bool {
    ty.and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("image") || t.contains("image"))
}

/// A tool call block of an assistant message (`{"id","name",<input_key>}`), not yet answered.
pub(crate) fn tool_call_block(block: &Value, input_key: &str) -> ToolCall {
    ToolCall {
        id: str_of(block, "id").map(str::to_owned),
        name: str_of(block, "name").unwrap_or_default().to_owned(),
        input: block.get(input_key).cloned().unwrap_or(Value::Null),
        output: None,
        is_error: false,
    }
}

pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
