//! Google's Gemini API as Gemini CLI speaks it (`GOOGLE_GEMINI_BASE_URL`):
//! `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` for a turn,
//! `:generateContent` for its side questions, `:countTokens`.
//!
//! Gemini CLI 0.61.0 asks side questions before a turn without streaming: a router asks the
//! model to score the prompt's complexity (`complexity_reasoning`, `complexity_score`), older
//! versions ask who speaks next (`reasoning`, `next_speaker`). They are not turns; one JSON
//! text answers every such schema (unknown keys are dropped by the CLI's parser).

use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::history::{args_text, HistoryBuilder, Role};
use super::sse::Event;
use super::{split_text, sse_body, Ctx, Parsed, Plan, ToolKind, ToolSpec};

/// What a side question gets: a value for every field its known schemas require.
const SIDE_ANSWER: &str = r#"{"complexity_reasoning":"a fake model","complexity_score":10,"reasoning":"a fake model","next_speaker":"user"}"#;

/// The model named in a path `…/models/{model}:{method}`.
fn model_of(path: &str) -> String {
    path.rsplit_once("/models/")
        .map(|(_, rest)| rest.split(':').next().unwrap_or(rest).to_owned())
        .unwrap_or_default()
}

pub(crate) fn parse(path: &str, body: &Value) -> Parsed {
    let mut h = HistoryBuilder::default();
    if let Some(system) = body.get("systemInstruction") {
        for part in parts(system) {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                h.text(Role::System, text);
            }
        }
        h.end_message();
    }
    for content in body
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let model = content.get("role").and_then(Value::as_str) == Some("model");
        for part in parts(content) {
            // Thoughts are the model's reasoning, dropped as the other protocols drop theirs.
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                if model {
                    h.text(Role::Assistant, text);
                } else {
                    h.user_text(text);
                }
            } else if let Some(call) = part.get("functionCall") {
                h.tool_call(
                    call.get("name").and_then(Value::as_str).unwrap_or("?"),
                    &args_text(call.get("args").unwrap_or(&Value::Null)),
                );
            } else if let Some(result) = part.get("functionResponse") {
                let response = result.get("response").unwrap_or(&Value::Null);
                let output = response
                    .get("output")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| response.to_string());
                h.tool_result(&output);
            }
        }
        h.end_message();
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|t| {
            t.get("functionDeclarations")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|f| {
            Some(ToolSpec {
                name: f.get("name")?.as_str()?.to_owned(),
                kind: ToolKind::Function,
                schema: f
                    .get("parametersJsonSchema")
                    .or_else(|| f.get("parameters"))
                    .cloned()
                    .unwrap_or(Value::Null),
            })
        })
        .collect();
    Parsed {
        history: h.out,
        tools,
        model: model_of(path),
        stream: path.contains(":streamGenerateContent"),
    }
}

fn parts(content: &Value) -> impl Iterator<Item = &Value> {
    content
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn usage(ctx: &Ctx) -> Value {
    json!({
        "promptTokenCount": ctx.input_tokens,
        "candidatesTokenCount": ctx.output_tokens,
        "totalTokenCount": ctx.input_tokens + ctx.output_tokens,
    })
}

fn candidate(parts: Value, finish: Option<&str>) -> Value {
    let mut c = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
    if let Some(finish) = finish {
        c["finishReason"] = json!(finish);
    }
    c
}

/// A turn's answer, streamed: the text in pieces (or one function call), then the finish
/// reason with the usage.
pub(crate) fn respond_stream(parsed: &Parsed, plan: &Plan, ctx: &Ctx) -> Response {
    let chunk = |parts: Value, finish: Option<&str>, usage: Option<Value>| {
        let mut body =
            json!({ "candidates": [candidate(parts, finish)], "modelVersion": parsed.model });
        if let Some(usage) = usage {
            body["usageMetadata"] = usage;
        }
        Event::data(body.to_string())
    };
    let mut events = Vec::new();
    match plan {
        Plan::Text(text) => {
            for piece in split_text(text, ctx.delta_count) {
                events.push(chunk(json!([{ "text": piece }]), None, None).after(ctx.delta_delay));
            }
        }
        Plan::ToolCall { tool, args } => {
            events.push(chunk(
                json!([{ "functionCall": { "name": tool.name, "args": args } }]),
                None,
                None,
            ));
        }
    }
    events.push(chunk(
        json!([{ "text": "" }]),
        Some("STOP"),
        Some(usage(ctx)),
    ));
    sse_body(events)
}

/// A side question's answer (`:generateContent`), not a turn.
pub(crate) fn respond_side(model: &str, ctx: &Ctx) -> Response {
    axum::Json(json!({
        "candidates": [candidate(json!([{ "text": SIDE_ANSWER }]), Some("STOP"))],
        "usageMetadata": usage(ctx),
        "modelVersion": model,
    }))
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_model::history::Msg;

    #[test]
    fn a_request_reads_as_the_other_protocols_do() {
        let body = json!({
            "systemInstruction": { "parts": [{ "text": "be brief" }] },
            "contents": [
                { "role": "user", "parts": [{ "text": "<session_context>\nfolder\n</session_context>" }] },
                { "role": "user", "parts": [{ "text": "first" }] },
                { "role": "model", "parts": [{ "text": "thinking", "thought": true }, { "text": "reply one" }] },
                { "role": "model", "parts": [{ "functionCall": { "name": "run_shell_command", "args": { "command": "ls" } } }] },
                { "role": "user", "parts": [{ "functionResponse": { "name": "run_shell_command", "response": { "output": "a.txt" } } }] },
                { "role": "user", "parts": [{ "text": "second" }] }
            ],
            "tools": [{ "functionDeclarations": [{ "name": "run_shell_command", "parametersJsonSchema": { "properties": { "command": {} } } }] }]
        });
        let parsed = parse("/v1beta/models/gemini-x:streamGenerateContent", &body);
        assert_eq!(parsed.model, "gemini-x");
        assert!(parsed.stream);
        assert_eq!(parsed.tools.len(), 1);
        let said: Vec<Msg> = parsed
            .history
            .into_iter()
            .filter(|m| m.role != Role::System)
            .collect();
        assert_eq!(
            said,
            vec![
                Msg::user("first"),
                Msg::assistant("reply one"),
                Msg::assistant(r#"tool_call run_shell_command {"command":"ls"}"#),
                Msg::tool("a.txt"),
                Msg::user("second"),
            ]
        );
        assert!(!parse("/v1beta/models/m:generateContent", &body).stream);
    }
}
