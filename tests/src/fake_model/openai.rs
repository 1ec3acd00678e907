//! OpenAI Responses (`POST /v1/responses`) and Chat Completions (`POST /v1/chat/completions`).

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::history::{args_text, content_text, HistoryBuilder, Role};
use super::sse::Event;
use super::{split_text, sse_body, Ctx, Parsed, Plan, ToolKind, ToolSpec};

fn model_of(body: &Value) -> String {
    body.get("model")
        .and_then(Value::as_str)
        .unwrap_or("fake-model")
        .to_string()
}

fn stream_of(body: &Value) -> bool {
    body.get("stream").and_then(Value::as_bool).unwrap_or(false)
}

/// Text of a message's `content`, part by part, handed to `f`.
fn for_each_part(content: &Value, mut f: impl FnMut(&str)) {
    match content {
        Value::Array(parts) => {
            for p in parts {
                match p.get("type").and_then(Value::as_str).unwrap_or("") {
                    "input_image" | "image_url" | "image" => f("[image]"),
                    "input_file" | "file" => f("[file]"),
                    "refusal" => f(p.get("refusal").and_then(Value::as_str).unwrap_or("")),
                    _ => f(&content_text(p)),
                }
            }
        }
        other => f(&content_text(other)),
    }
}

// ---------------------------------------------------------------------------------------------
// Responses

pub(crate) fn parse_responses(body: &Value) -> Parsed {
    let mut h = HistoryBuilder::default();
    if let Some(instructions) = body.get("instructions") {
        h.text(Role::System, &content_text(instructions));
        h.end_message();
    }
    match body.get("input") {
        Some(Value::String(s)) => h.user_text(s),
        Some(Value::Array(items)) => {
            for item in items {
                let ty = item
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("message");
                let name = item.get("name").and_then(Value::as_str).unwrap_or("?");
                match ty {
                    "message" => {
                        let content = item.get("content").unwrap_or(&Value::Null);
                        match item.get("role").and_then(Value::as_str).unwrap_or("user") {
                            "system" | "developer" => {
                                for_each_part(content, |t| h.text(Role::System, t))
                            }
                            "assistant" => for_each_part(content, |t| h.text(Role::Assistant, t)),
                            _ => for_each_part(content, |t| h.user_text(t)),
                        }
                    }
                    "function_call" => h.tool_call(
                        name,
                        &args_text(item.get("arguments").unwrap_or(&Value::Null)),
                    ),
                    "custom_tool_call" => {
                        h.tool_call(name, &args_text(item.get("input").unwrap_or(&Value::Null)))
                    }
                    "local_shell_call" => h.tool_call(
                        "local_shell",
                        &args_text(item.get("action").unwrap_or(&Value::Null)),
                    ),
                    "function_call_output"
                    | "custom_tool_call_output"
                    | "local_shell_call_output" => {
                        h.tool_result(&content_text(item.get("output").unwrap_or(&Value::Null)))
                    }
                    _ => {} // reasoning, compaction, …
                }
                h.end_message();
            }
        }
        _ => {}
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let ty = t.get("type").and_then(Value::as_str).unwrap_or("function");
            let name = t
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or(ty)
                .to_string();
            let kind = match ty {
                "function" => ToolKind::Function,
                "custom" => ToolKind::Custom,
                "local_shell" => ToolKind::LocalShell,
                _ => return None, // hosted tools (web_search, …) cannot be called here
            };
            Some(ToolSpec {
                name,
                kind,
                schema: t.get("parameters").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    Parsed {
        history: h.out,
        tools,
        model: model_of(body),
        stream: stream_of(body),
    }
}

pub(crate) fn respond_responses(parsed: &Parsed, plan: &Plan, ctx: &Ctx) -> Response {
    let resp_id = format!("resp_fake{}", ctx.id);
    let created_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (item_done, output_tokens) = match plan {
        Plan::Text(text) => (
            json!({ "type": "message", "id": format!("msg_fake{}", ctx.id), "status": "completed",
                    "role": "assistant",
                    "content": [{ "type": "output_text", "text": text, "annotations": [] }] }),
            ctx.output_tokens,
        ),
        Plan::ToolCall { tool, args } => {
            let call_id = format!("call_fake{}", ctx.id);
            let item = match tool.kind {
                ToolKind::Function => json!({
                    "type": "function_call", "id": format!("fc_fake{}", ctx.id), "status": "completed",
                    "call_id": call_id, "name": tool.name, "arguments": args.to_string() }),
                ToolKind::Custom => json!({
                    "type": "custom_tool_call", "id": format!("ctc_fake{}", ctx.id), "status": "completed",
                    "call_id": call_id, "name": tool.name, "input": args_text(args) }),
                ToolKind::LocalShell => json!({
                    "type": "local_shell_call", "id": format!("lsh_fake{}", ctx.id), "status": "completed",
                    "call_id": call_id, "action": args }),
            };
            (item, ctx.output_tokens)
        }
    };
    let usage = json!({
        "input_tokens": ctx.input_tokens,
        "input_tokens_details": { "cached_tokens": 0 },
        "output_tokens": output_tokens,
        "output_tokens_details": { "reasoning_tokens": 0 },
        "total_tokens": ctx.input_tokens + output_tokens
    });
    let response = |status: &str, output: Value, usage: Value| {
        json!({ "id": resp_id, "object": "response", "created_at": created_at, "status": status,
                "model": parsed.model, "output": output, "usage": usage,
                "error": null, "incomplete_details": null })
    };
    if !parsed.stream {
        return axum::Json(response("completed", json!([item_done]), usage)).into_response();
    }

    let mut seq = 0u64;
    let mut ev = |ty: &str, mut data: Value| {
        data["type"] = json!(ty);
        data["sequence_number"] = json!(seq);
        seq += 1;
        Event::named(ty, &data)
    };
    let mut events = vec![
        ev(
            "response.created",
            json!({ "response": response("in_progress", json!([]), Value::Null) }),
        ),
        ev(
            "response.in_progress",
            json!({ "response": response("in_progress", json!([]), Value::Null) }),
        ),
    ];
    let item_id = item_done["id"].clone();
    let mut item_added = item_done.clone();
    item_added["status"] = json!("in_progress");
    match plan {
        Plan::Text(text) => {
            item_added["content"] = json!([]);
            events.push(ev(
                "response.output_item.added",
                json!({ "output_index": 0, "item": item_added }),
            ));
            events.push(ev(
                "response.content_part.added",
                json!({ "item_id": item_id, "output_index": 0, "content_index": 0,
                        "part": { "type": "output_text", "text": "", "annotations": [] } }),
            ));
            for piece in split_text(text, ctx.delta_count) {
                events.push(
                    ev(
                        "response.output_text.delta",
                        json!({ "item_id": item_id, "output_index": 0, "content_index": 0,
                                "delta": piece, "logprobs": [] }),
                    )
                    .after(ctx.delta_delay),
                );
            }
            events.push(ev(
                "response.output_text.done",
                json!({ "item_id": item_id, "output_index": 0, "content_index": 0,
                        "text": text, "logprobs": [] }),
            ));
            events.push(ev(
                "response.content_part.done",
                json!({ "item_id": item_id, "output_index": 0, "content_index": 0,
                        "part": { "type": "output_text", "text": text, "annotations": [] } }),
            ));
        }
        Plan::ToolCall { tool, args } => {
            let args_str = match tool.kind {
                ToolKind::Custom => args_text(args),
                _ => args.to_string(),
            };
            match tool.kind {
                ToolKind::Function => item_added["arguments"] = json!(""),
                ToolKind::Custom => item_added["input"] = json!(""),
                ToolKind::LocalShell => {}
            }
            events.push(ev(
                "response.output_item.added",
                json!({ "output_index": 0, "item": item_added }),
            ));
            let (delta_ty, done_ty, done_field) = match tool.kind {
                ToolKind::Custom => (
                    "response.custom_tool_call_input.delta",
                    "response.custom_tool_call_input.done",
                    "input",
                ),
                _ => (
                    "response.function_call_arguments.delta",
                    "response.function_call_arguments.done",
                    "arguments",
                ),
            };
            if tool.kind != ToolKind::LocalShell {
                for piece in split_text(&args_str, 2) {
                    events.push(ev(
                        delta_ty,
                        json!({ "item_id": item_id, "output_index": 0, "delta": piece }),
                    ));
                }
                events.push(ev(
                    done_ty,
                    json!({ "item_id": item_id, "output_index": 0, done_field: args_str }),
                ));
            }
        }
    }
    events.push(ev(
        "response.output_item.done",
        json!({ "output_index": 0, "item": item_done }),
    ));
    events.push(ev(
        "response.completed",
        json!({ "response": response("completed", json!([item_done]), usage) }),
    ));
    sse_body(events)
}

// ---------------------------------------------------------------------------------------------
// Chat Completions

pub(crate) fn parse_chat(body: &Value) -> Parsed {
    let mut h = HistoryBuilder::default();
    for msg in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = msg.get("content").unwrap_or(&Value::Null);
        match msg.get("role").and_then(Value::as_str).unwrap_or("user") {
            "system" | "developer" => for_each_part(content, |t| h.text(Role::System, t)),
            "assistant" => {
                for_each_part(content, |t| h.text(Role::Assistant, t));
                for call in msg
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let f = call.get("function").unwrap_or(&Value::Null);
                    h.tool_call(
                        f.get("name").and_then(Value::as_str).unwrap_or("?"),
                        &args_text(f.get("arguments").unwrap_or(&Value::Null)),
                    );
                }
            }
            "tool" | "function" => h.tool_result(&content_text(content)),
            _ => for_each_part(content, |t| h.user_text(t)),
        }
        h.end_message();
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let f = t.get("function")?;
            Some(ToolSpec {
                name: f.get("name")?.as_str()?.to_string(),
                kind: ToolKind::Function,
                schema: f.get("parameters").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    Parsed {
        history: h.out,
        tools,
        model: model_of(body),
        stream: stream_of(body),
    }
}

pub(crate) fn respond_chat(parsed: &Parsed, plan: &Plan, ctx: &Ctx, body: &Value) -> Response {
    let id = format!("chatcmpl-fake{}", ctx.id);
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let call_id = format!("call_fake{}", ctx.id);
    let (message, finish, output_tokens) = match plan {
        Plan::Text(text) => (
            json!({ "role": "assistant", "content": text }),
            "stop",
            ctx.output_tokens,
        ),
        Plan::ToolCall { tool, args } => (
            json!({ "role": "assistant", "content": null, "tool_calls": [{
                "id": call_id, "type": "function",
                "function": { "name": tool.name, "arguments": args.to_string() } }] }),
            "tool_calls",
            ctx.output_tokens,
        ),
    };
    let usage = json!({
        "prompt_tokens": ctx.input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": ctx.input_tokens + output_tokens,
        "prompt_tokens_details": { "cached_tokens": 0 },
        "completion_tokens_details": { "reasoning_tokens": 0 }
    });
    if !parsed.stream {
        return axum::Json(json!({
            "id": id, "object": "chat.completion", "created": created, "model": parsed.model,
            "choices": [{ "index": 0, "message": message, "finish_reason": finish, "logprobs": null }],
            "usage": usage
        }))
        .into_response();
    }
    let chunk = |delta: Value, finish: Value| {
        Event::data(
            json!({ "id": id, "object": "chat.completion.chunk", "created": created,
                    "model": parsed.model,
                    "choices": [{ "index": 0, "delta": delta, "finish_reason": finish, "logprobs": null }] })
            .to_string(),
        )
    };
    let mut events = vec![chunk(
        json!({ "role": "assistant", "content": "" }),
        Value::Null,
    )];
    match plan {
        Plan::Text(text) => {
            for piece in split_text(text, ctx.delta_count) {
                events.push(chunk(json!({ "content": piece }), Value::Null).after(ctx.delta_delay));
            }
        }
        Plan::ToolCall { tool, args } => {
            events.push(chunk(
                json!({ "tool_calls": [{ "index": 0, "id": call_id, "type": "function",
                                         "function": { "name": tool.name, "arguments": "" } }] }),
                Value::Null,
            ));
            for piece in split_text(&args.to_string(), 2) {
                events.push(chunk(
                    json!({ "tool_calls": [{ "index": 0, "function": { "arguments": piece } }] }),
                    Value::Null,
                ));
            }
        }
    }
    events.push(chunk(json!({}), json!(finish)));
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if include_usage {
        events.push(Event::data(
            json!({ "id": id, "object": "chat.completion.chunk", "created": created,
                    "model": parsed.model, "choices": [], "usage": usage })
            .to_string(),
        ));
    }
    events.push(Event::data("[DONE]"));
    sse_body(events)
}
