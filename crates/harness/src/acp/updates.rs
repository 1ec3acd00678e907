//! What an agent's `session/update` notifications mean, two ways: live, during a turn, as the
//! Host's [`RuntimeEvent`]s; and replayed, when `session/load` plays a stored session back,
//! as its [`Turn`]s (a thread's history comes from the agent itself, never from a copy).
//!
//! The updates read: `agent_message_chunk` (reply text), `user_message_chunk` (a prompt, in a
//! replay), `tool_call` and `tool_call_update` (a call, then its status and output). Plans,
//! thoughts, mode and command lists are passed over here.

use serde_json::Value;

use crate::contract::{RuntimeEvent, TurnUsage};
use crate::history::{Message, Role, ToolCall, Turn};

/// The Host's events for one live update.
pub(crate) fn live_events(update: &Value) -> Vec<RuntimeEvent> {
    match kind(update) {
        "agent_message_chunk" => text_of(update)
            .map(|text| vec![RuntimeEvent::TextDelta { text }])
            .unwrap_or_default(),
        "tool_call" => vec![RuntimeEvent::ToolCall {
            id: str_of(update, "toolCallId"),
            name: tool_name(update),
            input: update.get("rawInput").cloned().unwrap_or(Value::Null),
        }],
        "tool_call_update" => match finished(update) {
            Some(is_error) => vec![RuntimeEvent::ToolResult {
                id: str_of(update, "toolCallId"),
                output: tool_output(update),
                is_error,
            }],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// A turn's usage from `session/prompt`'s answer (`usage`: input, output, cached and thought
/// tokens), where the agent reports it. Gemini CLI (0.61.0) reports none there, but its own
/// count in `_meta.quota.token_count` (`input_tokens`, `output_tokens`).
pub(crate) fn prompt_usage(answer: &Value) -> Option<TurnUsage> {
    let Some(usage) = answer.get("usage") else {
        let count = answer.pointer("/_meta/quota/token_count")?;
        let n = |key: &str| count.get(key).and_then(Value::as_u64);
        return Some(TurnUsage {
            input_tokens: n("input_tokens")?,
            output_tokens: n("output_tokens")?,
            cached_input_tokens: None,
            cache_write_tokens: None,
            reasoning_tokens: None,
            cost_usd: None,
        });
    };
    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
    Some(TurnUsage {
        input_tokens: n("inputTokens")?,
        output_tokens: n("outputTokens")?,
        cached_input_tokens: n("cachedReadTokens"),
        cache_write_tokens: n("cachedWriteTokens"),
        reasoning_tokens: n("thoughtTokens"),
        cost_usd: None,
    })
}

/// A session as `session/load` plays it back, update by update, cut into turns: a prompt
/// opens a turn, and everything up to the next prompt belongs to it.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    turns: Vec<Turn>,
    /// Whether the last message read was part of a prompt (a prompt comes in chunks).
    in_prompt: bool,
}

impl Replay {
    pub fn add(&mut self, update: &Value) {
        match kind(update) {
            "user_message_chunk" => {
                let text = text_of(update).unwrap_or_default();
                if !self.in_prompt || self.turns.is_empty() {
                    let index = self.turns.len();
                    let turn_ref =
                        str_of(update, "messageId").unwrap_or_else(|| format!("turn-{index}"));
                    self.turns.push(Turn {
                        native_turn_ref: turn_ref.clone(),
                        native_checkpoint_ref: None,
                        messages: vec![Message::new(Role::User, text).with_ref(Some(turn_ref))],
                        complete: true,
                        usage: None,
                        model: None,
                    });
                } else if let Some(prompt) = self.last_message() {
                    prompt.text.push_str(&text);
                }
                self.in_prompt = true;
            }
            "agent_message_chunk" => {
                self.in_prompt = false;
                let text = text_of(update).unwrap_or_default();
                let id = str_of(update, "messageId");
                let Some(turn) = self.turns.last_mut() else {
                    return;
                };
                match turn.messages.last_mut() {
                    Some(last)
                        if last.role == Role::Assistant
                            && (id.is_none() || last.native_ref == id) =>
                    {
                        last.text.push_str(&text)
                    }
                    _ => turn
                        .messages
                        .push(Message::new(Role::Assistant, text).with_ref(id)),
                }
            }
            "tool_call" => {
                self.in_prompt = false;
                let call = ToolCall {
                    id: str_of(update, "toolCallId"),
                    name: tool_name(update),
                    input: update.get("rawInput").cloned().unwrap_or(Value::Null),
                    output: None,
                    is_error: false,
                };
                if let Some(turn) = self.turns.last_mut() {
                    turn.messages.push(Message::for_tool(call));
                }
            }
            "tool_call_update" => {
                let id = str_of(update, "toolCallId");
                let Some(is_error) = finished(update) else {
                    return;
                };
                let output = tool_output(update);
                let call = self
                    .turns
                    .last_mut()
                    .into_iter()
                    .flat_map(|t| t.messages.iter_mut().rev())
                    .filter_map(|m| m.tool.as_mut())
                    .find(|c| c.id == id);
                if let Some(call) = call {
                    call.output = Some(output);
                    call.is_error = is_error;
                }
            }
            _ => {}
        }
    }

    fn last_message(&mut self) -> Option<&mut Message> {
        self.turns.last_mut()?.messages.last_mut()
    }

    /// The turns read, oldest first.
    pub fn turns(self) -> Vec<Turn> {
        self.turns
    }
}

fn kind(update: &Value) -> &str {
    update
        .get("sessionUpdate")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn str_of(update: &Value, key: &str) -> Option<String> {
    update.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A chunk's text (`content` is one content block; only text blocks carry text).
fn text_of(update: &Value) -> Option<String> {
    let content = update.get("content")?;
    (content.get("type").and_then(Value::as_str) == Some("text"))
        .then(|| content.get("text").and_then(Value::as_str))
        .flatten()
        .map(str::to_owned)
}

/// A call's name as the agent shows it: its title, else its kind.
fn tool_name(update: &Value) -> String {
    str_of(update, "title")
        .or_else(|| str_of(update, "kind"))
        .unwrap_or_else(|| "tool".to_owned())
}

/// `Some(is_error)` once a call's status is final.
fn finished(update: &Value) -> Option<bool> {
    match update.get("status").and_then(Value::as_str) {
        Some("completed") => Some(false),
        Some("failed") => Some(true),
        _ => None,
    }
}

/// A finished call's output: the text of its content blocks, else its raw output's `output`.
fn tool_output(update: &Value) -> String {
    let texts: Vec<&str> = update
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|block| block.get("content")?.get("text")?.as_str())
        .collect();
    if !texts.is_empty() {
        return texts.join("\n");
    }
    update
        .get("rawOutput")
        .and_then(|o| o.get("output"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(kind: &str, id: &str, text: &str) -> Value {
        json!({"sessionUpdate": kind, "messageId": id, "content": {"type": "text", "text": text}})
    }

    #[test]
    fn live_updates_become_text_tool_calls_and_results() {
        assert_eq!(
            live_events(&chunk("agent_message_chunk", "m", "hi")),
            [RuntimeEvent::TextDelta { text: "hi".into() }]
        );
        let call = json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "bash",
            "kind": "execute", "status": "pending", "rawInput": {"cwd": "/w"}});
        assert!(matches!(&live_events(&call)[..],
            [RuntimeEvent::ToolCall { id: Some(id), name, .. }] if id == "c1" && name == "bash"));
        let running = json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
            "status": "in_progress"});
        assert!(live_events(&running).is_empty());
        let done = json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
            "status": "completed", "content": [{"type": "content",
            "content": {"type": "text", "text": "a.txt\n"}}]});
        assert_eq!(
            live_events(&done),
            [RuntimeEvent::ToolResult {
                id: Some("c1".into()),
                output: "a.txt\n".into(),
                is_error: false
            }]
        );
        assert!(live_events(&json!({"sessionUpdate": "plan", "entries": []})).is_empty());
    }

    #[test]
    fn a_replay_is_cut_into_turns_at_each_prompt() {
        let mut replay = Replay::default();
        for update in [
            chunk("user_message_chunk", "u1", "first "),
            chunk("user_message_chunk", "u1", "prompt"),
            chunk("agent_message_chunk", "a1", "reply "),
            chunk("agent_message_chunk", "a1", "one"),
            json!({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "ls", "rawInput": {"command": "ls"}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "failed",
                "rawOutput": {"output": "denied"}}),
            chunk("user_message_chunk", "u2", "second"),
            chunk("agent_message_chunk", "a2", "reply two"),
        ] {
            replay.add(&update);
        }
        let turns = replay.turns();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].native_turn_ref, "u1");
        let texts: Vec<_> = turns[0]
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        assert_eq!(
            texts[..2],
            [(Role::User, "first prompt"), (Role::Assistant, "reply one")]
        );
        let tool = turns[0].messages[2].tool.as_ref().unwrap();
        assert_eq!(
            (tool.output.as_deref(), tool.is_error),
            (Some("denied"), true)
        );
        assert_eq!(turns[1].messages[1].text, "reply two");
    }

    #[test]
    fn usage_is_read_where_the_agent_reports_it() {
        let answer = json!({"stopReason": "end_turn",
            "usage": {"inputTokens": 7748, "outputTokens": 22, "totalTokens": 7770}});
        let usage = prompt_usage(&answer).unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.cost_usd),
            (7748, 22, None)
        );
        assert_eq!(prompt_usage(&json!({"stopReason": "end_turn"})), None);
        // Gemini CLI's count of its own.
        let gemini = json!({"stopReason": "end_turn", "_meta": {"quota": {
            "token_count": {"input_tokens": 5, "output_tokens": 3},
            "model_usage": [{"model": "m", "token_count": {"input_tokens": 5, "output_tokens": 3}}]}}});
        let usage = prompt_usage(&gemini).unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (5, 3));
    }
}
