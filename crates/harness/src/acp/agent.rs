//! One running ACP agent: started in a process group of its own, greeted with `initialize`,
//! then asked for sessions. Its updates go where the owner points them ([`Sink`]): to a live
//! turn's events, into a replay of a stored session, or nowhere.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub(crate) use super::handshake::failed;
use super::handshake::{spawn, Initialized, PROTOCOL_VERSION};
use super::permission::{self, Asked};
use super::updates::{self, Replay};
use super::wire::{self, AcpWire, Inbound, RpcError};
use super::AgentCommand;
use crate::contract::{Answer, EventSender, Reply, RuntimeEvent};
use crate::error::{HarnessError, HarnessResult};
use crate::rpc::{CallError, Event, RpcChild, RpcClient};

/// How long an agent may take over a request that does not run a turn (`initialize`,
/// `session/new`, `session/load`, `session/fork`): Gemini CLI's first start is reported near
/// 12 s cold, OpenCode's `initialize` takes ~4 s here.
pub(crate) const CALL_LIMIT: Duration = Duration::from_secs(60);
/// How long no update must come for a `session/load`'s replay to be over
/// ([`AgentProcess::replay_ended`]), and the most that waiting may take.
const REPLAY_QUIET: Duration = Duration::from_millis(150);
const REPLAY_LIMIT: Duration = Duration::from_secs(5);

/// What the agent said it can do, as far as a runtime needs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    pub load: bool,
    pub fork: bool,
    pub resume: bool,
}

/// Where a session's updates go.
pub(crate) enum Sink {
    /// Nowhere (between turns, or updates of another session).
    Drop,
    /// Into a replay: `session/load` plays a stored session back.
    Replay { session: String, replay: Replay },
    /// To a live turn's events; its permission requests go to the user.
    Live {
        session: String,
        events: EventSender,
    },
}

type Shared<T> = Arc<Mutex<T>>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A running agent.
pub(crate) struct AgentProcess {
    rpc: RpcChild<AcpWire>,
    pub product: String,
    pub offers: Offers,
    sink: Shared<Sink>,
    /// How many `session/update`s arrived, of any session: how a replay is seen to end.
    updates: Arc<AtomicU64>,
}

impl AgentProcess {
    /// Starts `agent` as `program` in `cwd` with `env` added, and says `initialize`.
    pub async fn start(
        agent: &AgentCommand,
        program: &Path,
        cwd: &Path,
        env: &[(String, String)],
    ) -> HarnessResult<AgentProcess> {
        let spawned = spawn(agent, program, cwd, env)?;
        let product = agent.product_name.clone();
        let sink: Shared<Sink> = Arc::new(Mutex::new(Sink::Drop));
        let updates = Arc::new(AtomicU64::new(0));
        let client: Arc<OnceLock<RpcClient<AcpWire>>> = Arc::default();
        let handler = {
            let (sink, client, product) = (sink.clone(), client.clone(), product.clone());
            let updates = updates.clone();
            move |event: Event<Inbound>| {
                if matches!(event, Event::Message(Inbound::Update { .. })) {
                    updates.fetch_add(1, Ordering::Relaxed);
                }
                on_event(event, &sink, &client, &product)
            }
        };
        let who = product.clone();
        let rpc = RpcChild::start(
            move |message| failed(&who, message, String::new()),
            spawned,
            AcpWire,
            handler,
        )?;
        let _ = client.set(rpc.client().clone());
        let mut process = AgentProcess {
            rpc,
            product,
            offers: Offers::default(),
            sink,
            updates,
        };
        let answer = process
            .call(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "clientCapabilities": {
                        "fs": {"readTextFile": false, "writeTextFile": false},
                        "terminal": false,
                    },
                    "clientInfo": {"name": "forkhost", "version": env!("CARGO_PKG_VERSION")},
                }),
                CALL_LIMIT,
            )
            .await?;
        let said: Initialized = serde_json::from_value(answer).map_err(|e| {
            failed(
                &process.product,
                format!("its answer to `initialize` could not be read: {e}"),
                process.rpc.client().stderr_tail(),
            )
        })?;
        if said.protocol_version != PROTOCOL_VERSION {
            return Err(HarnessError::Unsupported(format!(
                "{} speaks another ACP protocol version ({}); Forkhost speaks version \
                 {PROTOCOL_VERSION}",
                process.product, said.protocol_version
            )));
        }
        let session = |name: &str| {
            said.agent_capabilities
                .session_capabilities
                .get(name)
                .is_some_and(|v| !v.is_null())
        };
        process.offers = Offers {
            load: said.agent_capabilities.load_session,
            fork: session("fork"),
            resume: session("resume"),
        };
        Ok(process)
    }

    pub fn pid(&self) -> Option<u32> {
        self.rpc.pid()
    }

    pub fn has_exited(&self) -> bool {
        self.rpc.client().has_exited()
    }

    /// Points the agent's updates somewhere else; returns where they went before.
    pub fn point(&self, to: Sink) -> Sink {
        std::mem::replace(&mut *lock(&self.sink), to)
    }

    /// Sends `method` and waits up to `limit` for its result.
    pub async fn call(&self, method: &str, params: Value, limit: Duration) -> HarnessResult<Value> {
        call(self.rpc.client(), &self.product, method, params, limit).await
    }

    /// A handle that sends requests from another task (a turn's `session/prompt`).
    pub fn caller(&self) -> Caller {
        Caller {
            client: self.rpc.client().clone(),
            product: self.product.clone(),
        }
    }

    /// A new session in `cwd`; its id.
    pub async fn new_session(&self, cwd: &Path) -> HarnessResult<String> {
        let answer = self
            .call(
                "session/new",
                json!({"cwd": cwd, "mcpServers": []}),
                CALL_LIMIT,
            )
            .await?;
        session_id_in(&answer, &self.product, "session/new")
    }

    /// Opens stored session `id` in this process to prompt it: `session/resume` where the
    /// agent offers it (nothing replayed), else `session/load` (its replay dropped).
    pub async fn open_session(&self, id: &str, cwd: &Path) -> HarnessResult<()> {
        let params = json!({"sessionId": id, "cwd": cwd, "mcpServers": []});
        if self.offers.resume {
            self.call("session/resume", params, CALL_LIMIT).await?;
        } else if self.offers.load {
            let before = self.point(Sink::Drop);
            let loaded = self.call("session/load", params, CALL_LIMIT).await;
            if loaded.is_ok() {
                self.replay_ended().await;
            }
            self.point(before);
            loaded?;
        } else {
            return Err(HarnessError::Unsupported(format!(
                "{} cannot open a stored session (it offers neither session/resume nor \
                 session/load)",
                self.product
            )));
        }
        Ok(())
    }

    /// Waits for the rest of a `session/load`'s replay. The protocol plays a session back
    /// before answering, but Gemini CLI (0.61.0) answers first and plays it back after: taken
    /// as live, its old replies would open the next turn. The replay is over once no update came
    /// for [`REPLAY_QUIET`] (bounded by [`REPLAY_LIMIT`]); an agent that replays first costs
    /// that one quiet moment.
    async fn replay_ended(&self) {
        let deadline = Instant::now() + REPLAY_LIMIT;
        let mut seen = self.updates.load(Ordering::Relaxed);
        loop {
            tokio::time::sleep(REPLAY_QUIET).await;
            let now = self.updates.load(Ordering::Relaxed);
            if now == seen || Instant::now() >= deadline {
                return;
            }
            seen = now;
        }
    }

    /// Stored session `id` as the agent plays it back (`session/load`), cut into turns.
    pub async fn replay(&self, id: &str, cwd: &Path) -> HarnessResult<Vec<crate::history::Turn>> {
        if !self.offers.load {
            return Err(HarnessError::Unsupported(format!(
                "{} cannot play a stored session back (no session/load)",
                self.product
            )));
        }
        let before = self.point(Sink::Replay {
            session: id.to_owned(),
            replay: Replay::default(),
        });
        let loaded = self
            .call(
                "session/load",
                json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
                CALL_LIMIT,
            )
            .await;
        if loaded.is_ok() {
            self.replay_ended().await;
        }
        let replayed = self.point(before);
        loaded?;
        match replayed {
            Sink::Replay { replay, .. } => Ok(replay.turns()),
            _ => Ok(Vec::new()),
        }
    }

    /// A copy of session `id` at its head (`session/fork`); the copy's id. The source is not
    /// prompted and its history is unchanged.
    pub async fn fork_session(&self, id: &str, cwd: &Path) -> HarnessResult<String> {
        if !self.offers.fork {
            return Err(HarnessError::Unsupported(format!(
                "{} cannot copy a session (no session/fork)",
                self.product
            )));
        }
        let answer = self
            .call(
                "session/fork",
                json!({"sessionId": id, "cwd": cwd, "mcpServers": []}),
                CALL_LIMIT,
            )
            .await?;
        session_id_in(&answer, &self.product, "session/fork")
    }

    /// Stops the running turn of `session` (`session/cancel`, a notification).
    pub async fn cancel(&self, session: &str) -> HarnessResult<()> {
        self.caller().cancel(session).await
    }

    /// Ends the process: stdin closed, then its group terminated after `grace`.
    pub async fn close(self, grace: Duration) {
        self.rpc.close(grace).await;
    }
}

/// Sends requests to an agent from any task.
#[derive(Clone)]
pub(crate) struct Caller {
    client: RpcClient<AcpWire>,
    product: String,
}

impl Caller {
    pub async fn call(&self, method: &str, params: Value, limit: Duration) -> HarnessResult<Value> {
        call(&self.client, &self.product, method, params, limit).await
    }

    pub async fn cancel(&self, session: &str) -> HarnessResult<()> {
        let line = wire::notification_line("session/cancel", json!({"sessionId": session}));
        self.client
            .write_line(&line)
            .await
            .map_err(|_| failed(&self.product, "exited".into(), self.client.stderr_tail()))
    }
}

async fn call(
    client: &RpcClient<AcpWire>,
    product: &str,
    method: &str,
    params: Value,
    limit: Duration,
) -> HarnessResult<Value> {
    match client.request(method, params, limit).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(refused(product, method, &error)),
        Err(CallError::Timeout) => Err(failed(
            product,
            format!("did not answer `{method}` within {} s", limit.as_secs()),
            client.stderr_tail(),
        )),
        Err(CallError::Gone | CallError::Write(_)) => Err(failed(
            product,
            format!("exited before it answered `{method}`"),
            client.stderr_tail_after(Duration::from_secs(1)).await,
        )),
    }
}

/// An error answer in Forkhost's words: a session the agent does not know is
/// `SessionNotFound`, a request it cannot take `Unsupported`, anything else its failure.
fn refused(product: &str, method: &str, error: &RpcError) -> HarnessError {
    let lower = error.message.to_lowercase();
    if lower.contains("session not found") || lower.contains("no such session") {
        HarnessError::SessionNotFound(format!("{product}: {}", error.message))
    } else if error.code == -32601 {
        HarnessError::Unsupported(format!("{product} does not take `{method}`"))
    } else {
        failed(
            product,
            format!("refused `{method}`: {error}"),
            String::new(),
        )
    }
}

fn session_id_in(answer: &Value, product: &str, method: &str) -> HarnessResult<String> {
    answer
        .get("sessionId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| {
            failed(
                product,
                format!("`{method}` answered without a session id"),
                String::new(),
            )
        })
}

/// On the reader task, in arrival order: updates to their sink, permission requests to the
/// user (or cancelled when no turn is live), the exit to a live turn.
fn on_event(
    event: Event<Inbound>,
    sink: &Mutex<Sink>,
    client: &Arc<OnceLock<RpcClient<AcpWire>>>,
    product: &str,
) {
    match event {
        Event::Message(Inbound::Update { session_id, update }) => match &mut *lock(sink) {
            Sink::Replay { session, replay } if *session == session_id => replay.add(&update),
            Sink::Live { session, events } if *session == session_id => {
                for event in updates::live_events(&update) {
                    let _ = events.send(event);
                }
            }
            _ => {}
        },
        Event::Message(Inbound::Permission { id, params }) => {
            let (request, asked) = permission::read(id, &params, product);
            let live = match &*lock(sink) {
                Sink::Live { session, events }
                    if params.get("sessionId").and_then(Value::as_str) == Some(session) =>
                {
                    Some(events.clone())
                }
                _ => None,
            };
            let Some(client) = client.get().cloned() else {
                return;
            };
            let Some(events) = live else {
                // Nobody to ask: the request is cancelled, never answered for the user.
                let line =
                    wire::result_line(&asked.rpc_id, json!({"outcome": {"outcome": "cancelled"}}));
                tokio::spawn(async move {
                    let _ = client.write_line(&line).await;
                });
                return;
            };
            tracing::info!(request = %request.id, "an ACP agent asks for approval");
            let session = params
                .get("sessionId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let (reply, awaited) = Reply::pair();
            awaited.spawn_writer(move |answer| {
                write_answer(client.clone(), asked.clone(), session.clone(), answer)
            });
            let _ = events.send(RuntimeEvent::ApprovalRequested { request, reply });
        }
        Event::Exited(report) => {
            let error = (!report.expected)
                .then(|| format!("{product} exited unexpectedly ({})", report.status));
            if error.is_some() {
                tracing::warn!(status = %report.status, "an ACP agent died");
            }
            if let Sink::Live { events, .. } = &*lock(sink) {
                let _ = events.send(RuntimeEvent::Exited { error });
            }
        }
    }
}

async fn write_answer(
    client: RpcClient<AcpWire>,
    asked: Asked,
    session: String,
    answer: Answer,
) -> HarnessResult<()> {
    let Answer::Decision(decision) = answer else {
        return Err(HarnessError::InvalidInput(
            "an agent's permission request takes a decision, not answers".into(),
        ));
    };
    let (line, stop) = asked.answer(decision)?;
    let gone = |_| HarnessError::InvalidInput("the agent is no longer running".into());
    client.write_line(&line).await.map_err(gone)?;
    if stop {
        let cancel = wire::notification_line("session/cancel", json!({"sessionId": session}));
        client.write_line(&cancel).await.map_err(gone)?;
    }
    Ok(())
}
