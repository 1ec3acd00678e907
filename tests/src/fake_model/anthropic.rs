//! Anthropic Messages: `POST /v1/messages` (SSE or JSON) and `count_tokens`.

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::history::{args_text, content_text, HistoryBuilder, Role};
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
    if !parsed.stream {
        return axum::Json(json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": parsed.model,
            "content": [block], "stop_reason": stop_reason, "stop_sequence": null,
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
    match plan {
        Plan::Text(text) => {
            events.push(Event::named(
                "content_block_start",
                &json!({ "type": "content_block_start", "index": 0,
                         "content_block": { "type": "text", "text": "" } }),
            ));
            for piece in split_text(text, ctx.delta_count) {
                events.push(
                    Event::named(
                        "content_block_delta",
                        &json!({ "type": "content_block_delta", "index": 0,
                                 "delta": { "type": "text_delta", "text": piece } }),
                    )
                    .after(ctx.delta_delay),
                );
            }
        }
        Plan::ToolCall { .. } => {
            let mut start = block.clone();
            start["input"] = json!({});
            events.push(Event::named(
                "content_block_start",
                &json!({ "type": "content_block_start", "index": 0, "content_block": start }),
            ));
            let args = block["input"].to_string();
            for piece in split_text(&args, 2) {
                events.push(Event::named(
                    "content_block_delta",
                    &json!({ "type": "content_block_delta", "index": 0,
                             "delta": { "type": "input_json_delta", "partial_json": piece } }),
                ));
            }
        }
    }
    events.push(Event::named(
        "content_block_stop",
        &json!({ "type": "content_block_stop", "index": 0 }),
    ));
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
