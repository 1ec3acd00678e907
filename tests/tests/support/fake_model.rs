//! The fake model server over real HTTP: each protocol, streaming and not, turn counting, the
//! tool-call script, the slow stream and the request log.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg, Protocol, Reply, Role};
use futures::StreamExt as _;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};

struct Http {
    base: String,
    client: Client<hyper_util::client::legacy::connect::HttpConnector, Body>,
}

struct Resp {
    status: StatusCode,
    content_type: String,
    body: String,
    /// When each body chunk arrived, relative to the request.
    chunk_times: Vec<Duration>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// `(event name, data)` of each SSE event.
    fn sse(&self) -> Vec<(Option<String>, String)> {
        assert!(
            self.content_type.starts_with("text/event-stream"),
            "{}",
            self.content_type
        );
        self.body
            .split("\n\n")
            .filter(|b| !b.trim().is_empty())
            .map(|block| {
                let mut event = None;
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(e) = line.strip_prefix("event: ") {
                        event = Some(e.to_string());
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push(d);
                    }
                }
                (event, data.join("\n"))
            })
            .collect()
    }

    /// The JSON data of each SSE event (skipping `[DONE]`).
    fn sse_json(&self) -> Vec<Value> {
        self.sse()
            .into_iter()
            .filter(|(_, d)| d != "[DONE]")
            .map(|(_, d)| serde_json::from_str(&d).unwrap())
            .collect()
    }
}

impl Http {
    fn new(fake: &FakeModel) -> Self {
        Http {
            base: fake.base_url(),
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    async fn send(&self, method: Method, path: &str, body: Option<Value>) -> Resp {
        let req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .header("x-api-key", "secret")
            .body(match body {
                Some(b) => Body::from(b.to_string()),
                None => Body::empty(),
            })
            .unwrap();
        let start = Instant::now();
        let resp = self.client.request(req).await.unwrap();
        let status = resp.status();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut stream = Body::new(resp.into_body()).into_data_stream();
        let mut bytes = Vec::new();
        let mut chunk_times = Vec::new();
        while let Some(chunk) = stream.next().await {
            bytes.extend_from_slice(&chunk.unwrap());
            chunk_times.push(start.elapsed());
        }
        Resp {
            status,
            content_type,
            body: String::from_utf8(bytes).unwrap(),
            chunk_times,
        }
    }

    async fn post(&self, path: &str, body: Value) -> Resp {
        self.send(Method::POST, path, Some(body)).await
    }
}

async fn start() -> (FakeModel, Http) {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let http = Http::new(&fake);
    (fake, http)
}

/// The tools each harness offers, cut down to the shell tool and one other.
fn anthropic_tools() -> Value {
    json!([
        { "name": "Read", "input_schema": { "type": "object", "properties": { "file_path": { "type": "string" } } } },
        { "name": "Bash", "input_schema": { "type": "object",
            "properties": { "command": { "type": "string" }, "description": { "type": "string" },
                            "timeout": { "type": "number" } },
            "required": ["command"] } }
    ])
}

fn responses_tools() -> Value {
    json!([
        { "type": "function", "name": "exec_command", "parameters": { "type": "object",
            "properties": { "cmd": { "type": "string" }, "workdir": { "type": "string" } },
            "required": ["cmd"] } },
        { "type": "web_search" }
    ])
}

fn chat_tools() -> Value {
    json!([
        { "type": "function", "function": { "name": "read", "parameters": { "type": "object",
            "properties": { "path": { "type": "string" } } } } },
        { "type": "function", "function": { "name": "bash", "parameters": { "type": "object",
            "properties": { "command": { "type": "string" } }, "required": ["command"] } } }
    ])
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

#[tokio::test]
async fn anthropic_stream_counts_turns_and_logs_history() {
    let (fake, http) = start().await;
    let resp = http
        .post(
            "/v1/messages?beta=true",
            json!({
                "model": "claude-opus-4-8", "max_tokens": 64000, "stream": true,
                "system": [{ "type": "text", "text": "You are Claude Code." }],
                "messages": [
                    { "role": "user", "content": [
                        { "type": "text", "text": "<system-reminder>\ncontext\n</system-reminder>\n\n" },
                        { "type": "text", "text": "first message", "cache_control": { "type": "ephemeral" } } ] },
                    { "role": "system", "content": "Available agent types: …" },
                    { "role": "assistant", "content": [{ "type": "text", "text": "reply (turn 1) to: first message" }] },
                    { "role": "user", "content": "second message" }
                ]
            }),
        )
        .await;
    assert_eq!(resp.status, StatusCode::OK);
    let events = resp.sse();
    let names: Vec<&str> = events.iter().filter_map(|(e, _)| e.as_deref()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    for required in [
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
    ] {
        assert!(names.contains(&required), "{names:?}");
    }
    // Each event's `type` matches its `event:` name.
    for (name, data) in &events {
        let v: Value = serde_json::from_str(data).unwrap();
        assert_eq!(Some(v["type"].as_str().unwrap()), name.as_deref());
    }
    let data = resp.sse_json();
    let text: String = data
        .iter()
        .filter(|v| v["type"] == "content_block_delta")
        .map(|v| v["delta"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "reply (turn 2) to: second message");
    let delta = data.iter().find(|v| v["type"] == "message_delta").unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
    assert_eq!(data[0]["message"]["model"], "claude-opus-4-8");

    let log = fake.requests();
    assert_eq!(log.len(), 1);
    let r = &log[0];
    assert_eq!(r.protocol, Protocol::AnthropicMessages);
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.query.as_deref(), Some("beta=true"));
    assert_eq!(r.turn, 2);
    assert!(r.stream);
    assert_eq!(r.header("x-api-key"), Some("<masked>"));
    assert_eq!(
        r.history,
        vec![
            Msg::system("You are Claude Code."),
            Msg::system("context"),
            Msg::user("first message"),
            Msg::system("Available agent types: …"),
            Msg::assistant("reply (turn 1) to: first message"),
            Msg::user("second message"),
        ]
    );
    assert_eq!(
        r.dialogue(),
        vec![
            Msg::user("first message"),
            Msg::assistant("reply (turn 1) to: first message"),
            Msg::user("second message"),
        ]
    );
    assert_eq!(r.last_user_text(), Some("second message"));
    assert_eq!(
        r.reply,
        Some(Reply::Text {
            text: "reply (turn 2) to: second message".into()
        })
    );
    assert_eq!(r.body["max_tokens"], 64000);
}

#[tokio::test]
async fn anthropic_json_count_tokens_and_probes() {
    let (fake, http) = start().await;
    let resp = http
        .post(
            "/v1/messages",
            json!({ "model": "m", "max_tokens": 10,
                    "messages": [{ "role": "user", "content": "hello" }] }),
        )
        .await;
    let v = resp.json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["role"], "assistant");
    assert_eq!(v["content"][0]["text"], "reply (turn 1) to: hello");
    assert_eq!(v["stop_reason"], "end_turn");
    assert!(v["usage"]["input_tokens"].as_u64().unwrap() > 0);

    let resp = http
        .post(
            "/v1/messages/count_tokens?beta=true",
            json!({ "model": "m", "messages": [{ "role": "user", "content": "hello" }] }),
        )
        .await;
    assert!(resp.json()["input_tokens"].as_u64().unwrap() > 0);

    assert_eq!(
        http.send(Method::HEAD, "/", None).await.status,
        StatusCode::OK
    );
    assert_eq!(
        http.send(Method::GET, "/", None).await.status,
        StatusCode::OK
    );
    let models = http.send(Method::GET, "/v1/models", None).await.json();
    assert_eq!(models["data"][0]["id"], "fake-model");
    let other = http
        .post("/api/event_logging/batch", json!({ "x": 1 }))
        .await;
    assert_eq!(other.status, StatusCode::OK);
    assert_eq!(other.json(), json!({}));

    let protocols: Vec<Protocol> = fake.requests().iter().map(|r| r.protocol).collect();
    assert_eq!(
        protocols,
        vec![
            Protocol::AnthropicMessages,
            Protocol::AnthropicCountTokens,
            Protocol::Probe,
            Protocol::Probe,
            Protocol::Models,
            Protocol::Other,
        ]
    );
    assert_eq!(fake.model_requests().len(), 1);
    let seqs: Vec<usize> = fake.requests().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(fake.requests()[5].body, json!({ "x": 1 }));
}

#[tokio::test]
async fn anthropic_tool_script() {
    let (fake, http) = start().await;
    let user = json!({ "role": "user", "content": "please CALL_TOOL now" });
    let resp = http
        .post(
            "/v1/messages?beta=true",
            json!({ "model": "m", "stream": true, "tools": anthropic_tools(), "messages": [user] }),
        )
        .await;
    let data = resp.sse_json();
    let start = data
        .iter()
        .find(|v| v["type"] == "content_block_start")
        .unwrap();
    assert_eq!(start["content_block"]["type"], "tool_use");
    assert_eq!(start["content_block"]["name"], "Bash");
    let id = start["content_block"]["id"].as_str().unwrap().to_string();
    let json_text: String = data
        .iter()
        .filter(|v| v["type"] == "content_block_delta")
        .map(|v| v["delta"]["partial_json"].as_str().unwrap())
        .collect();
    let input: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(input["command"], "echo tool-ok");
    let delta = data.iter().find(|v| v["type"] == "message_delta").unwrap();
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");

    // The same request again with the tool's result: now text, still turn 1.
    let resp = http
        .post(
            "/v1/messages?beta=true",
            json!({ "model": "m", "stream": true, "tools": anthropic_tools(), "messages": [
                user,
                { "role": "assistant", "content": [{ "type": "tool_use", "id": id, "name": "Bash", "input": input }] },
                { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id,
                    "content": "tool-ok", "is_error": false }] }
            ] }),
        )
        .await;
    let text: String = resp
        .sse_json()
        .iter()
        .filter(|v| v["type"] == "content_block_delta")
        .map(|v| v["delta"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        text,
        "reply (turn 1) to: please CALL_TOOL now (tool result: tool-ok)"
    );
    let last = fake.last_model_request().unwrap();
    assert_eq!(last.turn, 1);
    assert_eq!(
        last.dialogue(),
        vec![
            Msg::user("please CALL_TOOL now"),
            Msg::assistant(
                r#"tool_call Bash {"command":"echo tool-ok","description":"Run the scripted test command"}"#
            ),
            Msg::tool("tool-ok"),
        ]
    );
    assert_eq!(last.conversation(), vec![Msg::user("please CALL_TOOL now")]);
    let first = &fake.model_requests()[0];
    assert!(matches!(&first.reply, Some(Reply::ToolCall { name, .. }) if name == "Bash"));
    assert_eq!(first.tools, vec!["Read", "Bash"]);
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

#[tokio::test]
async fn responses_stream_events() {
    let (fake, http) = start().await;
    let resp = http
        .post(
            "/v1/responses",
            json!({
                "model": "fake-model", "stream": true, "store": false,
                "instructions": "base instructions",
                "input": [
                    { "type": "message", "role": "developer", "content": [{ "type": "input_text", "text": "<permissions instructions>…</permissions instructions>" }] },
                    { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>" }] },
                    { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "one" }] },
                    { "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "reply (turn 1) to: one" }] },
                    { "type": "reasoning", "summary": [], "encrypted_content": "xyz" },
                    { "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "two" }] }
                ],
                "tools": responses_tools()
            }),
        )
        .await;
    let data = resp.sse_json();
    let types: Vec<&str> = data.iter().map(|v| v["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"response.created"));
    assert_eq!(types.last(), Some(&"response.completed"));
    for required in [
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_item.done",
    ] {
        assert!(types.contains(&required), "{types:?}");
    }
    let pos = |t: &str| types.iter().position(|x| *x == t).unwrap();
    assert!(pos("response.output_item.added") < pos("response.output_text.delta"));
    assert!(pos("response.output_text.delta") < pos("response.output_item.done"));
    let text: String = data
        .iter()
        .filter(|v| v["type"] == "response.output_text.delta")
        .map(|v| v["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "reply (turn 2) to: two");
    let done = data
        .iter()
        .find(|v| v["type"] == "response.output_item.done")
        .unwrap();
    assert_eq!(done["item"]["type"], "message");
    assert_eq!(done["item"]["role"], "assistant");
    assert_eq!(done["item"]["content"][0]["text"], "reply (turn 2) to: two");
    let completed = data.last().unwrap();
    assert!(completed["response"]["id"]
        .as_str()
        .unwrap()
        .starts_with("resp_"));
    assert_eq!(completed["response"]["status"], "completed");
    assert!(
        completed["response"]["usage"]["input_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        completed["response"]["usage"]["total_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    // sequence numbers count up from 0
    for (i, v) in data.iter().enumerate() {
        assert_eq!(v["sequence_number"], i as u64);
    }

    let r = fake.last_model_request().unwrap();
    assert_eq!(r.protocol, Protocol::OpenAiResponses);
    assert_eq!(r.turn, 2);
    assert_eq!(
        r.history,
        vec![
            Msg::system("base instructions"),
            Msg::system("<permissions instructions>…</permissions instructions>"),
            Msg::system("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
            Msg::user("one"),
            Msg::assistant("reply (turn 1) to: one"),
            Msg::user("two"),
        ]
    );
    assert_eq!(r.tools, vec!["exec_command"]);
}

#[tokio::test]
async fn responses_tool_script_and_json() {
    let (fake, http) = start().await;
    let user = json!({ "type": "message", "role": "user",
                       "content": [{ "type": "input_text", "text": "CALL_TOOL please" }] });
    let resp = http
        .post(
            "/v1/responses",
            json!({ "model": "fake-model", "stream": true, "input": [user], "tools": responses_tools() }),
        )
        .await;
    let data = resp.sse_json();
    let added = data
        .iter()
        .find(|v| v["type"] == "response.output_item.added")
        .unwrap();
    assert_eq!(added["item"]["type"], "function_call");
    let done = data
        .iter()
        .find(|v| v["type"] == "response.output_item.done")
        .unwrap();
    let item = &done["item"];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["name"], "exec_command");
    let args: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({ "cmd": "echo tool-ok" }));
    let call_id = item["call_id"].as_str().unwrap();
    let arg_text: String = data
        .iter()
        .filter(|v| v["type"] == "response.function_call_arguments.delta")
        .map(|v| v["delta"].as_str().unwrap())
        .collect();
    assert_eq!(arg_text, item["arguments"].as_str().unwrap());
    assert_eq!(
        data.last().unwrap()["response"]["output"][0]["type"],
        "function_call"
    );

    // Non-streaming, with the tool's output: a plain response object with text.
    let resp = http
        .post(
            "/v1/responses",
            json!({ "model": "fake-model", "stream": false, "tools": responses_tools(), "input": [
                user,
                { "type": "function_call", "name": "exec_command", "arguments": item["arguments"], "call_id": call_id },
                { "type": "function_call_output", "call_id": call_id,
                  "output": "Process exited with code 0\nOutput:\ntool-ok\n" }
            ] }),
        )
        .await;
    let v = resp.json();
    assert_eq!(v["object"], "response");
    assert_eq!(v["status"], "completed");
    assert_eq!(
        v["output"][0]["content"][0]["text"],
        "reply (turn 1) to: CALL_TOOL please (tool result: Process exited with code 0 Output: tool-ok)"
    );
    assert_eq!(
        fake.last_model_request().unwrap().dialogue(),
        vec![
            Msg::user("CALL_TOOL please"),
            Msg::assistant(r#"tool_call exec_command {"cmd":"echo tool-ok"}"#),
            Msg::tool("Process exited with code 0\nOutput:\ntool-ok"),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

#[tokio::test]
async fn chat_stream_tool_calls_and_done() {
    let (fake, http) = start().await;
    let system = json!({ "role": "system", "content": "You are pi." });
    let user = json!({ "role": "user", "content": [{ "type": "text", "text": "do CALL_TOOL" }] });
    let resp = http
        .post(
            "/v1/chat/completions",
            json!({ "model": "fake-model", "stream": true, "stream_options": { "include_usage": true },
                    "messages": [system, user], "tools": chat_tools() }),
        )
        .await;
    let events = resp.sse();
    assert_eq!(events.last().unwrap().1, "[DONE]");
    let data = resp.sse_json();
    assert!(data.iter().all(|v| v["object"] == "chat.completion.chunk"));
    assert_eq!(data[0]["choices"][0]["delta"]["role"], "assistant");
    let calls: Vec<&Value> = data
        .iter()
        .filter_map(|v| v["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(calls[0]["function"]["name"], "bash");
    let call_id = calls[0]["id"].as_str().unwrap().to_string();
    let args: String = calls
        .iter()
        .map(|c| c["function"]["arguments"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({ "command": "echo tool-ok" })
    );
    let finish = data
        .iter()
        .find_map(|v| v["choices"][0]["finish_reason"].as_str())
        .unwrap();
    assert_eq!(finish, "tool_calls");
    let usage = data.iter().find(|v| v.get("usage").is_some()).unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert!(usage["usage"]["prompt_tokens"].as_u64().unwrap() > 0);

    let resp = http
        .post(
            "/v1/chat/completions",
            json!({ "model": "fake-model", "stream": true, "tools": chat_tools(), "messages": [
                system, user,
                { "role": "assistant", "content": null, "tool_calls": [{ "id": call_id, "type": "function",
                  "function": { "name": "bash", "arguments": args } }] },
                { "role": "tool", "tool_call_id": call_id, "content": "tool-ok\n" }
            ] }),
        )
        .await;
    let data = resp.sse_json();
    let text: String = data
        .iter()
        .filter_map(|v| v["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(
        text,
        "reply (turn 1) to: do CALL_TOOL (tool result: tool-ok)"
    );
    assert!(data.iter().all(|v| v.get("usage").is_none())); // not asked for
    assert_eq!(
        data.iter()
            .find_map(|v| v["choices"][0]["finish_reason"].as_str()),
        Some("stop")
    );
    let r = fake.last_model_request().unwrap();
    assert_eq!(r.protocol, Protocol::OpenAiChat);
    assert_eq!(
        r.history,
        vec![
            Msg::system("You are pi."),
            Msg::user("do CALL_TOOL"),
            Msg::assistant(r#"tool_call bash {"command":"echo tool-ok"}"#),
            Msg::tool("tool-ok"),
        ]
    );
}

#[tokio::test]
async fn chat_json() {
    let (_fake, http) = start().await;
    let v = http
        .post(
            "/v1/chat/completions",
            json!({ "model": "fake-model", "messages": [
                { "role": "user", "content": "a" },
                { "role": "assistant", "content": "reply (turn 1) to: a" },
                { "role": "user", "content": "b" },
                { "role": "assistant", "content": "reply (turn 2) to: b" },
                { "role": "user", "content": "c" }
            ] }),
        )
        .await
        .json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "reply (turn 3) to: c"
    );
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
}

// ---------------------------------------------------------------------------------------------
// Turn counting, slow streams, lifecycle

#[tokio::test]
async fn turn_counting_excludes_tool_results_and_injected_context() {
    let (fake, http) = start().await;
    http.post(
        "/v1/messages",
        json!({ "model": "m", "messages": [
            { "role": "user", "content": [
                { "type": "text", "text": "<system-reminder>a</system-reminder>" },
                { "type": "text", "text": "p1 part one" },
                { "type": "text", "text": "p1 part two" } ] },
            { "role": "assistant", "content": [
                { "type": "thinking", "thinking": "hmm", "signature": "s" },
                { "type": "text", "text": "r1" },
                { "type": "tool_use", "id": "t1", "name": "Bash", "input": { "command": "ls" } } ] },
            { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "t1",
                  "content": [{ "type": "text", "text": "file.txt" }] },
                { "type": "text", "text": "<system-reminder>b</system-reminder>" } ] },
            { "role": "assistant", "content": "r1 done" },
            { "role": "user", "content": "<system-reminder>c</system-reminder>p2" }
        ] }),
    )
    .await;
    let r = fake.last_model_request().unwrap();
    assert_eq!(r.turn, 2);
    assert_eq!(
        r.history,
        vec![
            Msg::system("a"),
            Msg::user("p1 part one\np1 part two"),
            Msg::assistant("r1"),
            Msg::assistant(r#"tool_call Bash {"command":"ls"}"#),
            Msg::tool("file.txt"),
            Msg::system("b"),
            Msg::assistant("r1 done"),
            Msg::system("c"),
            Msg::user("p2"),
        ]
    );
    assert_eq!(
        r.reply,
        Some(Reply::Text {
            text: "reply (turn 2) to: p2".into()
        })
    );
    assert!(r
        .history
        .iter()
        .all(|m| m.role != Role::User || !m.text.contains("reminder")));
}

#[tokio::test]
async fn slow_keyword_spreads_the_deltas() {
    let (_fake, http) = start().await;
    let requests = [
        (
            "/v1/messages",
            json!({ "model": "m", "stream": true, "messages": [{ "role": "user", "content": "SLOW please" }] }),
        ),
        (
            "/v1/responses",
            json!({ "model": "m", "stream": true, "input": "SLOW please" }),
        ),
        (
            "/v1/chat/completions",
            json!({ "model": "m", "stream": true, "messages": [{ "role": "user", "content": "SLOW please" }] }),
        ),
    ];
    // All three at once: the server streams them concurrently.
    let started = Instant::now();
    let resps = futures::future::join_all(
        requests
            .iter()
            .map(|(path, body)| http.post(path, body.clone())),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    for ((path, _), resp) in requests.iter().zip(resps) {
        let total = *resp.chunk_times.last().unwrap();
        assert!(
            total >= Duration::from_millis(1800) && total < Duration::from_secs(10),
            "{path}: {total:?}"
        );
        // The first bytes arrive long before the end: it is a stream, not one late body.
        assert!(
            resp.chunk_times[0] < Duration::from_millis(1000),
            "{path}: {:?}",
            resp.chunk_times
        );
        assert!(
            resp.chunk_times.len() >= 5,
            "{path}: {:?}",
            resp.chunk_times
        );
    }
}

#[tokio::test]
async fn options_always_slow_and_custom_tool_command() {
    let fake = FakeModel::start(FakeModelOptions {
        always_slow: true,
        slow_duration: Duration::from_millis(500),
        tool_command: "echo custom".into(),
        ..FakeModelOptions::default()
    })
    .await
    .unwrap();
    let http = Http::new(&fake);
    let resp = http
        .post(
            "/v1/chat/completions",
            json!({ "model": "m", "stream": true, "messages": [{ "role": "user", "content": "x" }] }),
        )
        .await;
    assert!(*resp.chunk_times.last().unwrap() >= Duration::from_millis(450));
    http.post(
        "/v1/chat/completions",
        json!({ "model": "m", "messages": [{ "role": "user", "content": "CALL_TOOL" }],
                "tools": chat_tools() }),
    )
    .await;
    assert_eq!(
        fake.last_model_request().unwrap().reply,
        Some(Reply::ToolCall {
            name: "bash".into(),
            args: json!({ "command": "echo custom" })
        })
    );
}

#[tokio::test]
async fn log_file_wait_and_shutdown_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let log_file = dir.path().join("requests.jsonl");
    let fake = FakeModel::start(FakeModelOptions {
        log_file: Some(log_file.clone()),
        ..FakeModelOptions::default()
    })
    .await
    .unwrap();
    let http = Http::new(&fake);
    http.post("/v1/responses", json!({ "model": "m", "input": "hi" }))
        .await;
    assert_eq!(fake.wait_for_requests(1, Duration::from_secs(5)), 1);
    assert_eq!(
        fake.wait_for_requests(2, Duration::from_millis(50)),
        1,
        "no second request"
    );
    let lines: Vec<Value> = std::fs::read_to_string(&log_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["protocol"], "open_ai_responses");
    assert_eq!(
        lines[0]["history"],
        json!([{ "role": "user", "text": "hi" }])
    );
    assert_eq!(lines[0]["reply"]["text"], "reply (turn 1) to: hi");
    fake.clear_requests();
    assert!(fake.requests().is_empty());

    let port = fake.port();
    drop(fake);
    // The port is closed once the handle is gone.
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn start_blocking_works_without_a_runtime() {
    let fake = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    assert!(fake.port() > 0);
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", fake.port())).unwrap();
    s.write_all(b"HEAD / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert_eq!(fake.requests()[0].protocol, Protocol::Probe);
}
