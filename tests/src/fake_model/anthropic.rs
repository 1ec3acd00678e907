//! Anthropic Messages: `POST /v1/messages` (SSE or JSON) and `count_tokens`.

use std::time::Duration;

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::history::{args_text, content_text, last_user_index, HistoryBuilder, Role};
use super::sse::Event;
use super::{split_text, sse_body, Ctx, Parsed, Plan, ToolKind, ToolSpec};

pub(crate) fn parse(body: &Value) -> Parsed {
    let mut h = HistoryBuilder::default();
    if let Some(system) = body.get("system") {
        h.text(Role::System, &content_text(system));
        h.end_message();
    }
    for msg in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = msg.get("role").and_then(Value::as_str).unwrap_or("user");
        let content = msg.get("content").unwrap_or(&Value::Null);
        match role {
            "system" | "developer" => h.text(Role::System, &content_text(content)),
            "assistant" => match content {
                Value::Array(blocks) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str).unwrap_or("") {
                            "text" => h.text(Role::Assistant, &content_text(b)),
                            "tool_use" | "server_tool_use" => h.tool_call(
                                b.get("name").and_then(Value::as_str).unwrap_or("?"),
                                &args_text(b.get("input").unwrap_or(&Value::Null)),
                            ),
                            _ => {} // thinking, redacted_thinking, …
                        }
                    }
                }
                other => h.text(Role::Assistant, &content_text(other)),
            },
            _ => match content {
                Value::Array(blocks) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str).unwrap_or("") {
                            "text" => h.user_text(&content_text(b)),
                            "tool_result" => h.tool_result(&content_text(
                                b.get("content").unwrap_or(&Value::Null),
                            )),
                            "image" => h.user_text("[image]"),
                            "document" => h.user_text("[document]"),
                            _ => {}
                        }
                    }
                }
                other => h.user_text(&content_text(other)),
            },
        }
        h.end_message();
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some(ToolSpec {
                name: t.get("name")?.as_str()?.to_string(),
                kind: ToolKind::Function,
                schema: t.get("input_schema").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    Parsed {
        history: h.out,
        tools,
        model: body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("claude-fake")
            .to_string(),
        stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
    }
}

fn usage(ctx: &Ctx, output_tokens: u64) -> Value {
    json!({
        "input_tokens": ctx.input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard"
    })
}

/// A prompt holding this gets its tool call after a text block of the same message (the
/// shape of a model that says what it is about to do): Claude Code writes such a message as
/// one transcript record per block. Anthropic only; the other protocols ignore it.
pub const SAY_FIRST: &str = "SAY_FIRST";

/// The text block [`SAY_FIRST`] puts before the tool call.
pub const SAID_FIRST: &str = "Let me run it.";

/// How long the tool call's block follows the text block, as a real stream takes a while.
const BETWEEN_BLOCKS: Duration = Duration::from_millis(300);

pub(crate) fn respond(parsed: &Parsed, plan: &Plan, ctx: &Ctx) -> Response {
    let msg_id = format!("msg_fake{}", ctx.id);
    let output_tokens = ctx.output_tokens;
    let (block, stop_reason) = match plan {
        Plan::Text(text) => (json!({ "type": "text", "text": text }), "end_turn"),
        Plan::ToolCall { tool, args } => (
            json!({ "type": "tool_use", "id": format!("toolu_fake{}", ctx.id), "name": tool.name, "input": args }),
            "tool_use",
        ),
    };
    let say_first = matches!(plan, Plan::ToolCall { .. })
        && last_user_index(&parsed.history)
            .is_some_and(|i| parsed.history[i].text.contains(SAY_FIRST));
    let said = json!({ "type": "text", "text": SAID_FIRST });
    if !parsed.stream {
        let content = if say_first {
            json!([said, block])
        } else {
            json!([block])
        };
        return axum::Json(json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": parsed.model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": usage(ctx, output_tokens)
        }))
        .into_response();
    }
    let mut events = vec![
        Event::named(
            "message_start",
            &json!({ "type": "message_start", "message": {
                "id": msg_id, "type": "message", "role": "assistant", "model": parsed.model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage(ctx, 1)
            }}),
        ),
        Event::named("ping", &json!({ "type": "ping" })),
    ];
    let mut index = 0;
    if say_first {
        text_block(&mut events, 0, SAID_FIRST, ctx);
        index = 1;
    }
    match plan {
        Plan::Text(text) => text_block(&mut events, index, text, ctx),
        Plan::ToolCall { .. } => {
            let mut start = block.clone();
            start["input"] = json!({});
            let delay = if say_first {
                BETWEEN_BLOCKS
            } else {
                Duration::ZERO
            };
            events.push(
                Event::named(
                    "content_block_start",
                    &json!({ "type": "content_block_start", "index": index,
                             "content_block": start }),
                )
                .after(delay),
            );
            let args = block["input"].to_string();
            for piece in split_text(&args, 2) {
                events.push(Event::named(
                    "content_block_delta",
                    &json!({ "type": "content_block_delta", "index": index,
                             "delta": { "type": "input_json_delta", "partial_json": piece } }),
                ));
            }
            block_stop(&mut events, index);
        }
    }
    events.push(Event::named(
        "message_delta",
        &json!({ "type": "message_delta",
                 "delta": { "stop_reason": stop_reason, "stop_sequence": null },
                 "usage": { "output_tokens": output_tokens } }),
    ));
    events.push(Event::named(
        "message_stop",
        &json!({ "type": "message_stop" }),
    ));
    sse_body(events)
}

/// A text block of the stream, at `index`, in `ctx`'s deltas.
fn text_block(events: &mut Vec<Event>, index: usize, text: &str, ctx: &Ctx) {
    events.push(Event::named(
        "content_block_start",
        &json!({ "type": "content_block_start", "index": index,
                 "content_block": { "type": "text", "text": "" } }),
    ));
    for piece in split_text(text, ctx.delta_count) {
        events.push(
            Event::named(
                "content_block_delta",
                &json!({ "type": "content_block_delta", "index": index,
                         "delta": { "type": "text_delta", "text": piece } }),
            )
            .after(ctx.delta_delay),
        );
    }
    block_stop(events, index);
}

fn block_stop(events: &mut Vec<Event>, index: usize) {
    events.push(Event::named(
        "content_block_stop",
        &json!({ "type": "content_block_stop", "index": index }),
    ));
}
