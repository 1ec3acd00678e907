//! Building one turn's messages out of native records, the parts all three readers share:
//! joining a tool call with its result, merging an assistant reply that the harness wrote in
//! several records, and summing the usage of the turn's model calls, each call once.
//!
//! Usage is gathered in the same pass that reads the messages, so a thread's figures cost no
//! second read of its file.

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::contract::TurnUsage;
use crate::history::{Message, Role, ToolCall, Turn, TurnAnchor};

#[derive(Default)]
pub struct TurnMessages {
    pub messages: Vec<Message>,
    /// The key of the assistant reply the last message belongs to, while more of it may follow.
    open_reply: Option<String>,
    /// Each model call's usage, in the order the calls were first reported.
    calls: Vec<TurnUsage>,
    /// Where a keyed call's usage is in `calls`.
    call_at: FxHashMap<Box<str>, usize>,
    /// The model of the last call reported.
    model: Option<String>,
    /// The model the harness said it uses, for calls that do not name theirs (Codex).
    model_in_use: Option<String>,
}

impl TurnMessages {
    /// The turn these messages make, with the coordinates the index pass found for it.
    pub fn into_turn(self, anchor: &TurnAnchor) -> Turn {
        let mut usage = None;
        for call in self.calls {
            TurnUsage::add_to(&mut usage, call);
        }
        Turn {
            native_turn_ref: anchor.native_turn_ref.clone(),
            native_checkpoint_ref: anchor.native_checkpoint_ref.clone(),
            messages: self.messages,
            complete: anchor.complete,
            usage,
            model: self.model,
        }
    }

    /// One model call's usage. `call` is the call's id where the harness reports a call more
    /// than once (Claude writes its API message once per content block, each record with the
    /// message's `usage`): a later report of the same call replaces the earlier one, since
    /// the last record of a message is the one written when the call's output was counted.
    /// `None`: every report is a call of its own. `model`: the call's model, else the one in
    /// use.
    pub fn call_usage(&mut self, call: Option<&str>, usage: TurnUsage, model: Option<&str>) {
        let at = call.and_then(|key| self.call_at.get(key).copied());
        match at {
            Some(i) => self.calls[i] = usage,
            None => {
                if let Some(key) = call {
                    self.call_at.insert(key.into(), self.calls.len());
                }
                self.calls.push(usage);
            }
        }
        if let Some(m) = model
            .map(str::to_owned)
            .or_else(|| self.model_in_use.clone())
        {
            self.model = Some(m);
        }
    }

    /// The model the calls reported after this use, when they do not name theirs.
    pub fn model_in_use(&mut self, model: Option<&str>) {
        if let Some(m) = model.filter(|m| !m.is_empty()) {
            self.model_in_use = Some(m.to_owned());
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
