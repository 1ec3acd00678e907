//! A deterministic fake model server for tests: Anthropic Messages, OpenAI Responses and OpenAI
//! Chat Completions on loopback, with scriptable tool calls and a log of every request.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
//! let fake = FakeModel::start(FakeModelOptions::default()).await?;
//! println!("{}", fake.base_url()); // http://127.0.0.1:PORT (append /v1 for OpenAI clients)
//! // ... run a CLI against it ...
//! let last = fake.last_model_request().unwrap();
//! println!("{:?}", last.dialogue());
//! # Ok(()) }
//! ```
//!
//! # Replies
//!
//! Every model request gets `reply (turn N) to: <last user text>`, where N is the number of real
//! user prompts in the request's history (see [`history`] for the exact rules).
//!
//! * **Tool script**: when the last user text contains [`FakeModelOptions::tool_keyword`]
//!   (`CALL_TOOL`) and no tool result follows that user entry yet, the reply is one call of the
//!   request's shell tool (Claude `Bash`, Codex `shell`/`exec_command`/…, Pi `bash`, found by
//!   name, else by a `command`/`cmd` parameter) running [`FakeModelOptions::tool_command`]
//!   (`echo tool-ok`). Once the request holds the result, the reply is the usual text followed
//!   by ` (tool result: <output>)`.
//! * **Scripted calls** ([`script`]): ``RUN_COMMAND `cmd` `` calls the shell tool with `cmd`,
//!   ``WRITE_FILE `path` `` calls Claude's `Write` tool, for tests that need a call that acts.
//! * **Text, then the call** (Anthropic only): a last user text that also contains
//!   [`SAY_FIRST`] gets the tool call after a text block of the same message, 300 ms apart;
//!   Claude Code writes such a message as one transcript record per block.
//! * **Slow stream**: when the last user text contains [`FakeModelOptions::slow_keyword`]
//!   (`SLOW`), or [`FakeModelOptions::always_slow`] is set, the text deltas are spread over
//!   [`FakeModelOptions::slow_duration`] (2 s).
//!
//! # Endpoints
//!
//! Paths are matched by suffix, so `/v1/messages`, `/messages?beta=true` etc. all work.
//! `POST …/messages`, `POST …/messages/count_tokens`, `POST …/responses`,
//! `POST …/chat/completions`, `GET …/models` (a one-model list), `HEAD|GET /` (200).
//! Anything else is answered `200 {}` and logged as [`Protocol::Other`].

pub mod history;

mod anthropic;
mod gemini;
mod openai;
pub mod script;
mod sse;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde::Serialize;
use serde_json::{json, Value};

pub use anthropic::{SAID_FIRST, SAY_FIRST};
pub use history::{Msg, Role};

/// Which wire protocol a request used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// `POST /v1/messages`
    AnthropicMessages,
    /// `POST /v1/messages/count_tokens`
    AnthropicCountTokens,
    /// `POST /v1/responses`
    OpenAiResponses,
    /// `POST /v1/chat/completions`
    OpenAiChat,
    /// `POST …/models/{model}:streamGenerateContent` (Gemini: a turn)
    GeminiStream,
    /// `POST …/models/{model}:generateContent` (Gemini CLI's side questions, not turns)
    GeminiGenerate,
    /// `POST …/models/{model}:countTokens`
    GeminiCountTokens,
    /// `GET /v1/models`
    Models,
    /// `HEAD /` or `GET /`
    Probe,
    /// Anything else (answered `200 {}`).
    Other,
}

impl Protocol {
    /// Whether this protocol asks the model for a reply (the requests the tests care about).
    pub fn is_model_call(self) -> bool {
        matches!(
            self,
            Protocol::AnthropicMessages
                | Protocol::OpenAiResponses
                | Protocol::OpenAiChat
                | Protocol::GeminiStream
        )
    }
}

/// Options of a [`FakeModel`].
#[derive(Clone, Debug)]
pub struct FakeModelOptions {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// A last user text containing this triggers a tool call.
    pub tool_keyword: String,
    /// The shell command of a scripted tool call.
    pub tool_command: String,
    /// A last user text containing this makes the stream slow.
    pub slow_keyword: String,
    /// Make every stream slow.
    pub always_slow: bool,
    /// How long a slow stream takes from its first to its last text delta.
    pub slow_duration: Duration,
    /// Also append every request record as one JSON line to this file.
    pub log_file: Option<PathBuf>,
    /// Print a one-line summary of every request to stderr.
    pub verbose: bool,
}

impl Default for FakeModelOptions {
    fn default() -> Self {
        FakeModelOptions {
            port: 0,
            tool_keyword: "CALL_TOOL".into(),
            tool_command: "echo tool-ok".into(),
            slow_keyword: "SLOW".into(),
            always_slow: false,
            slow_duration: Duration::from_secs(2),
            log_file: None,
            verbose: false,
        }
    }
}

/// What the fake model answered.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    Text { text: String },
    ToolCall { name: String, args: Value },
}

/// The tokens a model call's answer reports (every protocol reports the same two figures;
/// the cache's are always 0). The input is the body's length / 4, so requests differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// One logged request.
#[derive(Clone, Debug, Serialize)]
pub struct RequestRecord {
    /// 1-based arrival order.
    pub seq: usize,
    /// Milliseconds since the server started.
    pub at_ms: u64,
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub protocol: Protocol,
    /// Request headers (lower-case names), `authorization`/`x-api-key` values masked.
    pub headers: Vec<(String, String)>,
    /// The `model` field of the body, if any.
    pub model: Option<String>,
    /// Whether the client asked for a stream.
    pub stream: bool,
    /// The normalized full message history (see [`history`]).
    pub history: Vec<Msg>,
    /// The names of the tools the request offered.
    pub tools: Vec<String>,
    /// The turn number (number of real user prompts in `history`).
    pub turn: usize,
    /// The reply sent, for model calls.
    pub reply: Option<Reply>,
    /// The usage that reply reported, for model calls.
    pub usage: Option<Usage>,
    /// The raw JSON body (`Null` if there was none or it was not JSON).
    pub body: Value,
}

impl RequestRecord {
    /// The history without system entries: what the user and the model said, tool calls and
    /// tool results.
    pub fn dialogue(&self) -> Vec<Msg> {
        self.history
            .iter()
            .filter(|m| m.role != Role::System)
            .cloned()
            .collect()
    }

    /// Only the user and assistant text entries (no system, no tool calls or results).
    pub fn conversation(&self) -> Vec<Msg> {
        self.history
            .iter()
            .filter(|m| {
                m.role == Role::User
                    || (m.role == Role::Assistant && !m.text.starts_with("tool_call "))
            })
            .cloned()
            .collect()
    }

    /// The text of the last user entry.
    pub fn last_user_text(&self) -> Option<&str> {
        history::last_user_index(&self.history).map(|i| self.history[i].text.as_str())
    }

    /// A request header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A tool the request offers, normalized over the protocols.
#[derive(Clone, Debug)]
pub(crate) struct ToolSpec {
    pub name: String,
    pub kind: ToolKind,
    /// JSON schema of the arguments (functions only).
    pub schema: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// A JSON-arguments function tool.
    Function,
    /// A free-form (custom) tool whose input is raw text.
    Custom,
    /// The Responses API's built-in `local_shell`.
    LocalShell,
}

/// A request parsed by one protocol module.
pub(crate) struct Parsed {
    pub history: Vec<Msg>,
    pub tools: Vec<ToolSpec>,
    pub model: String,
    pub stream: bool,
}

/// What to answer, decided from the history.
#[derive(Clone, Debug)]
pub(crate) enum Plan {
    Text(String),
    ToolCall { tool: ToolSpec, args: Value },
}

/// Everything a protocol module needs to render its answer.
pub(crate) struct Ctx {
    /// Delay before each text delta (zero unless slow).
    pub delta_delay: Duration,
    /// How many deltas the text is split into.
    pub delta_count: usize,
    /// Unique per response.
    pub id: String,
    /// Rough token estimate of the input.
    pub input_tokens: u64,
    /// The output tokens the answer reports ([`output_tokens`]).
    pub output_tokens: u64,
}

struct Shared {
    opts: FakeModelOptions,
    started: Instant,
    log: Mutex<Vec<RequestRecord>>,
    changed: Condvar,
}

/// A running fake model server; stops when dropped.
pub struct FakeModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeModel {
    /// Starts the server on its own thread (with its own tokio runtime, so it keeps serving
    /// while the caller blocks) and returns once it listens.
    pub async fn start(opts: FakeModelOptions) -> anyhow::Result<FakeModel> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut model = Self::spawn(opts, tx)?;
        match rx.await {
            Ok(Ok(addr)) => {
                model.addr = addr;
                Ok(model)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(anyhow::anyhow!("fake model thread died before listening")),
        }
    }

    /// [`FakeModel::start`] for callers without a runtime.
    pub fn start_blocking(opts: FakeModelOptions) -> anyhow::Result<FakeModel> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut model = Self::spawn(opts, tx)?;
        match rx.blocking_recv() {
            Ok(Ok(addr)) => {
                model.addr = addr;
                Ok(model)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(anyhow::anyhow!("fake model thread died before listening")),
        }
    }

    fn spawn(
        opts: FakeModelOptions,
        ready: tokio::sync::oneshot::Sender<anyhow::Result<SocketAddr>>,
    ) -> anyhow::Result<FakeModel> {
        let port = opts.port;
        let shared = Arc::new(Shared {
            opts,
            started: Instant::now(),
            log: Mutex::new(Vec::new()),
            changed: Condvar::new(),
        });
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let thread = std::thread::Builder::new()
            .name("fake-model".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready.send(Err(e.into()));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = ready.send(Err(e.into()));
                            return;
                        }
                    };
                    let addr = match listener.local_addr() {
                        Ok(a) => a,
                        Err(e) => {
                            let _ = ready.send(Err(e.into()));
                            return;
                        }
                    };
                    let app = axum::Router::new().fallback(handle).with_state(state);
                    let _ = ready.send(Ok(addr));
                    let server = axum::serve(listener, app);
                    // On shutdown, return at once: dropping the runtime below cancels open
                    // connections (slow streams, keep-alive) instead of waiting for them.
                    tokio::select! {
                        _ = server => {}
                        _ = stop_rx => {}
                    }
                });
                rt.shutdown_background();
            })?;
        Ok(FakeModel {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            shared,
            shutdown: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT` (no trailing slash, no `/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`, what OpenAI-style clients take as their base URL.
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.log.lock().unwrap().clone()
    }

    /// The requests that asked the model for a reply.
    pub fn model_requests(&self) -> Vec<RequestRecord> {
        self.requests()
            .into_iter()
            .filter(|r| r.protocol.is_model_call())
            .collect()
    }

    /// The tokens the model served since the requests were last cleared, (input, output):
    /// what a provider would bill, the figure cost tests hold Forkhost's against.
    pub fn served_tokens(&self) -> (u64, u64) {
        self.model_requests()
            .iter()
            .filter_map(|r| r.usage)
            .fold((0, 0), |(i, o), u| {
                (i + u.input_tokens, o + u.output_tokens)
            })
    }

    /// The last request that asked the model for a reply.
    pub fn last_model_request(&self) -> Option<RequestRecord> {
        self.model_requests().pop()
    }

    /// The last request of a turn: one that offered the model tools. A harness's side requests
    /// offer none (OpenCode asks for a new session's title at a time of its choosing).
    pub fn last_turn_request(&self) -> Option<RequestRecord> {
        self.model_requests()
            .into_iter()
            .rev()
            .find(|r| !r.tools.is_empty())
    }

    /// Forgets the logged requests.
    pub fn clear_requests(&self) {
        self.shared.log.lock().unwrap().clear();
    }

    /// Blocks until at least `n` requests are logged or `timeout` passes; returns the count.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> usize {
        let log = self.shared.log.lock().unwrap();
        let (log, _) = self
            .shared
            .changed
            .wait_timeout_while(log, timeout, |l| l.len() < n)
            .unwrap();
        log.len()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        // The thread only has to leave `select!` and drop its runtime: quick, so join it to
        // free the port before the caller goes on.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().map(str::to_string);
    let method = parts.method.clone();
    let trimmed = path.trim_end_matches('/');

    let protocol = if method == Method::POST && trimmed.ends_with("/messages/count_tokens") {
        Protocol::AnthropicCountTokens
    } else if method == Method::POST && trimmed.ends_with("/messages") {
        Protocol::AnthropicMessages
    } else if method == Method::POST && trimmed.ends_with("/responses") {
        Protocol::OpenAiResponses
    } else if method == Method::POST && trimmed.ends_with("/chat/completions") {
        Protocol::OpenAiChat
    } else if method == Method::POST && trimmed.ends_with(":streamGenerateContent") {
        Protocol::GeminiStream
    } else if method == Method::POST && trimmed.ends_with(":generateContent") {
        Protocol::GeminiGenerate
    } else if method == Method::POST && trimmed.ends_with(":countTokens") {
        Protocol::GeminiCountTokens
    } else if method == Method::GET && trimmed.ends_with("/models") {
        Protocol::Models
    } else if (method == Method::GET || method == Method::HEAD) && trimmed.is_empty() {
        Protocol::Probe
    } else {
        Protocol::Other
    };

    let parsed = match protocol {
        Protocol::AnthropicMessages | Protocol::AnthropicCountTokens => {
            Some(anthropic::parse(&body))
        }
        Protocol::OpenAiResponses => Some(openai::parse_responses(&body)),
        Protocol::OpenAiChat => Some(openai::parse_chat(&body)),
        Protocol::GeminiStream | Protocol::GeminiGenerate => Some(gemini::parse(&path, &body)),
        _ => None,
    };

    let opts = &shared.opts;
    let plan = match (&parsed, protocol.is_model_call()) {
        (Some(p), true) => Some(plan(opts, p)),
        _ => None,
    };
    let reply = plan.as_ref().map(|p| match p {
        Plan::Text(t) => Reply::Text { text: t.clone() },
        Plan::ToolCall { tool, args } => Reply::ToolCall {
            name: tool.name.clone(),
            args: args.clone(),
        },
    });

    let input_tokens = (bytes.len() as u64 / 4).max(1);
    let usage = plan.as_ref().map(|p| Usage {
        input_tokens,
        output_tokens: output_tokens(p),
    });
    let seq;
    {
        let mut log = shared.log.lock().unwrap();
        seq = log.len() + 1;
        let history = parsed
            .as_ref()
            .map(|p| p.history.clone())
            .unwrap_or_default();
        let record = RequestRecord {
            seq,
            at_ms: shared.started.elapsed().as_millis() as u64,
            method: method.to_string(),
            path: path.clone(),
            query,
            protocol,
            headers: header_list(&parts.headers),
            model: body
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| {
                    parsed
                        .as_ref()
                        .map(|p| p.model.clone())
                        .filter(|m| !m.is_empty())
                }),
            stream: parsed.as_ref().is_some_and(|p| p.stream),
            turn: history::turn_number(&history),
            history,
            tools: parsed
                .as_ref()
                .map(|p| p.tools.iter().map(|t| t.name.clone()).collect())
                .unwrap_or_default(),
            reply,
            usage,
            body: body.clone(),
        };
        if opts.verbose {
            eprintln!(
                "fake-model #{seq} {} {} {:?} turn={} reply={}",
                record.method,
                record.path,
                record.protocol,
                record.turn,
                record
                    .reply
                    .as_ref()
                    .map(|r| serde_json::to_string(r).unwrap_or_default())
                    .unwrap_or_default()
            );
        }
        if let Some(file) = &opts.log_file {
            use std::io::Write;
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(file)
            {
                let _ = writeln!(f, "{}", serde_json::to_string(&record).unwrap_or_default());
            }
        }
        log.push(record);
        shared.changed.notify_all();
    }

    match (protocol, parsed, plan) {
        (Protocol::AnthropicCountTokens, _, _) => {
            axum::Json(json!({ "input_tokens": input_tokens })).into_response()
        }
        (Protocol::Models, _, _) => axum::Json(models_list()).into_response(),
        (Protocol::GeminiCountTokens, _, _) => {
            axum::Json(json!({ "totalTokens": input_tokens })).into_response()
        }
        (Protocol::GeminiGenerate, Some(parsed), _) => gemini::respond_side(
            &parsed.model,
            &Ctx {
                delta_delay: Duration::ZERO,
                delta_count: 1,
                id: seq.to_string(),
                input_tokens,
                output_tokens: 10,
            },
        ),
        (Protocol::Probe, _, _) => StatusCode::OK.into_response(),
        (proto, Some(parsed), Some(plan)) => {
            let slow = opts.always_slow
                || parsed
                    .history
                    .iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .is_some_and(|m| m.text.contains(&opts.slow_keyword));
            let delta_count = if slow { 10 } else { 3 };
            let ctx = Ctx {
                delta_delay: if slow {
                    opts.slow_duration / delta_count as u32
                } else {
                    Duration::ZERO
                },
                delta_count,
                id: format!(
                    "{seq:04}{}",
                    &uuid::Uuid::new_v4().simple().to_string()[..12]
                ),
                input_tokens,
                output_tokens: usage.map_or(1, |u| u.output_tokens),
            };
            match proto {
                Protocol::AnthropicMessages => anthropic::respond(&parsed, &plan, &ctx),
                Protocol::OpenAiResponses => openai::respond_responses(&parsed, &plan, &ctx),
                Protocol::GeminiStream => gemini::respond_stream(&parsed, &plan, &ctx),
                _ => openai::respond_chat(&parsed, &plan, &ctx, &body),
            }
        }
        _ => axum::Json(json!({})).into_response(),
    }
}

fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            let name = k.as_str().to_ascii_lowercase();
            let value = if name == "authorization" || name == "x-api-key" {
                "<masked>".to_string()
            } else {
                String::from_utf8_lossy(v.as_bytes()).into_owned()
            };
            (name, value)
        })
        .collect()
}

/// The model list for `GET /v1/models`: OpenAI's `data` shape, plus an empty `models` array
/// (the shape Codex's model catalog expects).
fn models_list() -> Value {
    json!({
        "object": "list",
        "data": [{ "id": "fake-model", "object": "model", "created": 0, "owned_by": "forkhost",
                   "type": "model", "display_name": "Fake Model" }],
        "models": [],
        "has_more": false,
        "first_id": "fake-model",
        "last_id": "fake-model"
    })
}

/// The output tokens an answer reports: a text's length / 4 + 1, a tool call 20.
fn output_tokens(plan: &Plan) -> u64 {
    match plan {
        Plan::Text(text) => text.len() as u64 / 4 + 1,
        Plan::ToolCall { .. } => 20,
    }
}

/// Decides the reply from the history.
pub(crate) fn plan(opts: &FakeModelOptions, parsed: &Parsed) -> Plan {
    let history = &parsed.history;
    let turn = history::turn_number(history);
    let Some(last_user) = history::last_user_index(history) else {
        return Plan::Text(format!("reply (turn {turn}) to: "));
    };
    let text = history[last_user].text.clone();
    let base = format!("reply (turn {turn}) to: {text}");
    if let Some(scripted) = script::plan(parsed, &base) {
        return scripted;
    }
    if !text.contains(&opts.tool_keyword) {
        return Plan::Text(base);
    }
    let results: Vec<&Msg> = history[last_user + 1..]
        .iter()
        .filter(|m| m.role == Role::Tool)
        .collect();
    if let Some(result) = results.last() {
        let output: String = result.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let output: String = output.chars().take(300).collect();
        return Plan::Text(format!("{base} (tool result: {output})"));
    }
    match pick_shell_tool(&parsed.tools) {
        Some(tool) => {
            let args = shell_args(&tool, &opts.tool_command);
            Plan::ToolCall { tool, args }
        }
        None => Plan::Text(format!("{base} (no shell tool offered)")),
    }
}

/// The request's shell tool: by a known name first, then any function with a
/// `command`/`cmd` parameter.
fn pick_shell_tool(tools: &[ToolSpec]) -> Option<ToolSpec> {
    const NAMES: [&str; 6] = [
        "Bash",
        "bash",
        "shell_command",
        "shell",
        "exec_command",
        "local_shell",
    ];
    for name in NAMES {
        if let Some(t) = tools.iter().find(|t| t.name == name) {
            return Some(t.clone());
        }
    }
    tools
        .iter()
        .find(|t| {
            t.kind == ToolKind::Function
                && ["command", "cmd"]
                    .iter()
                    .any(|p| t.schema.pointer(&format!("/properties/{p}")).is_some())
        })
        .cloned()
}

/// Arguments that run `command` with `tool`, built from its schema.
fn shell_args(tool: &ToolSpec, command: &str) -> Value {
    match tool.kind {
        ToolKind::Custom => return Value::String(command.to_string()),
        ToolKind::LocalShell => {
            return json!({ "type": "exec", "command": ["bash", "-lc", command] })
        }
        ToolKind::Function => {}
    }
    let props = tool.schema.get("properties").cloned().unwrap_or(json!({}));
    let mut args = serde_json::Map::new();
    let prop_type = |name: &str| {
        props
            .get(name)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string")
            .to_string()
    };
    if props.get("command").is_some() || props.get("cmd").is_none() {
        let v = if prop_type("command") == "array" {
            json!(["bash", "-lc", command])
        } else {
            json!(command)
        };
        args.insert("command".into(), v);
    } else {
        args.insert("cmd".into(), json!(command));
    }
    // Fill any other required parameter with a harmless value.
    if let Some(required) = tool.schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if args.contains_key(name) {
                continue;
            }
            let v = match prop_type(name).as_str() {
                "integer" | "number" => json!(10000),
                "boolean" => json!(false),
                "array" => json!([]),
                "object" => json!({}),
                _ => json!("Run the scripted test command"),
            };
            args.insert(name.to_string(), v);
        }
    }
    if props.get("description").is_some() && !args.contains_key("description") {
        args.insert("description".into(), json!("Run the scripted test command"));
    }
    Value::Object(args)
}

/// Splits `text` into at most `n` non-empty pieces (on char boundaries).
pub(crate) fn split_text(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let n = n.clamp(1, chars.len());
    let size = chars.len().div_ceil(n);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// A body streamed as server-sent events.
pub(crate) fn sse_body(events: Vec<sse::Event>) -> Response {
    let stream = futures::stream::iter(events).then(|ev| async move {
        if !ev.delay.is_zero() {
            tokio::time::sleep(ev.delay).await;
        }
        Ok::<_, std::convert::Infallible>(ev.encode())
    });
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .header("x-request-id", "req_fake")
        .header("request-id", "req_fake")
        .body(Body::from_stream(stream))
        .unwrap()
}
