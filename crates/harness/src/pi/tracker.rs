//! The Pi runtime's event task: turns Pi's RPC events into `RuntimeEvent`s, one run (prompt)
//! at a time. RPC events carry no entry ids, so a turn's coordinates come from `get_entries`.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::answers::answer_dialog;
use super::dialogs::Dialog;
use super::process::RpcClient;
use super::protocol::{self, Event, ToolCallBlock};
use super::state::{lock, RuntimeState};
use super::timeouts::REQUEST_TIMEOUT;
use crate::contract::{EventSender, Reply, RuntimeEvent, TurnOutcome, TurnUsage};

/// Turns Pi's session events into `RuntimeEvent`s, one run (prompt) at a time.
pub(super) struct Tracker {
    pub client: RpcClient,
    pub events: EventSender,
    pub state: Arc<RuntimeState>,
    /// The session's leaf after the last settled run.
    pub leaf: Option<String>,
    pub turn: Option<TurnState>,
}

pub(super) struct TurnState {
    started: bool,
    user_ref: Option<String>,
    stop_reason: Option<String>,
    error: Option<String>,
    /// Tool calls already reported (by `toolcall_end`), so `message_end` does not repeat them.
    calls_sent: HashSet<String>,
    since: Instant,
    /// The run's model calls' usage so far.
    usage: Option<TurnUsage>,
}

impl TurnState {
    fn new() -> Self {
        TurnState {
            started: false,
            user_ref: None,
            stop_reason: None,
            error: None,
            calls_sent: HashSet::new(),
            since: Instant::now(),
            usage: None,
        }
    }
}

impl Tracker {
    pub(super) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Value>) {
        while let Some(event) = rx.recv().await {
            match Dialog::parse(&event) {
                Some(dialog) => self.dialog(dialog),
                None => self.handle(protocol::classify(&event)).await,
            }
        }
        self.exited().await;
    }

    async fn handle(&mut self, event: Event) {
        match event {
            Event::AgentStart => {
                self.turn.get_or_insert_with(TurnState::new);
            }
            Event::UserMessage => self.user_message().await,
            Event::TextDelta(text) => self.emit(RuntimeEvent::TextDelta { text }),
            Event::ToolCallDone(call) => self.tool_call(call),
            Event::AssistantMessage {
                stop_reason,
                error,
                tool_calls,
                usage,
            } => {
                for call in tool_calls {
                    self.tool_call(call);
                }
                let turn = self.turn.get_or_insert_with(TurnState::new);
                turn.stop_reason = stop_reason;
                turn.error = error;
                if let Some(usage) = usage {
                    TurnUsage::add_to(&mut turn.usage, usage);
                }
            }
            Event::ToolResult {
                id,
                output,
                is_error,
            } => self.emit(RuntimeEvent::ToolResult {
                id,
                output,
                is_error,
            }),
            Event::AgentSettled { aborted } => self.end_turn(aborted).await,
            Event::Other => {}
        }
    }

    /// Pi blocks until the dialog is answered (through the event's reply, which writes the
    /// response), the run ends or the process does (then the Host forgets it).
    fn dialog(&mut self, dialog: Dialog) {
        tracing::info!(request_id = %dialog.id, "pi extension asks the user");
        let request = dialog.request();
        let (reply, awaited) = Reply::pair();
        let (client, state) = (self.client.clone(), self.state.clone());
        awaited.spawn_writer(move |answer| {
            let (client, state, dialog) = (client.clone(), state.clone(), dialog.clone());
            async move { answer_dialog(&client, &state, &dialog, answer).await }
        });
        self.emit(RuntimeEvent::ApprovalRequested { request, reply });
    }

    /// The prompt is recorded: its entry id is the turn's native ref.
    async fn user_message(&mut self) {
        if self.turn.as_ref().is_some_and(|t| t.started) {
            return; // a queued message inside the same run; Forkhost sends none
        }
        let since = self.leaf.clone();
        let user_ref = self
            .entries_since(since.as_deref())
            .await
            .and_then(|data| protocol::last_user_entry(&data));
        let turn = self.turn.get_or_insert_with(TurnState::new);
        turn.started = true;
        turn.user_ref = user_ref.clone();
        tracing::debug!(turn_ref = ?user_ref, "pi turn started");
        self.emit(RuntimeEvent::TurnStarted {
            native_turn_ref: user_ref,
        });
    }

    fn tool_call(&mut self, call: ToolCallBlock) {
        let turn = self.turn.get_or_insert_with(TurnState::new);
        if let Some(id) = &call.id {
            if !turn.calls_sent.insert(id.clone()) {
                return;
            }
        }
        self.emit(RuntimeEvent::ToolCall {
            id: call.id,
            name: call.name,
            input: call.input,
        });
    }

    /// The run settled: the leaf is the turn's checkpoint.
    async fn end_turn(&mut self, aborted: bool) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        if !turn.started {
            self.emit(RuntimeEvent::TurnStarted {
                native_turn_ref: None,
            });
        }
        let since = turn.user_ref.clone().or_else(|| self.leaf.clone());
        let checkpoint = self
            .entries_since(since.as_deref())
            .await
            .and_then(|data| protocol::leaf_id(&data));
        if checkpoint.is_some() {
            self.leaf = checkpoint.clone();
        }
        let outcome = match turn.stop_reason.as_deref() {
            _ if aborted => TurnOutcome::Interrupted,
            Some("aborted") => TurnOutcome::Interrupted,
            Some("error") => TurnOutcome::Failed {
                message: turn.error.unwrap_or_else(|| "pi reported an error".into()),
            },
            _ => TurnOutcome::Completed,
        };
        tracing::info!(
            turn_ref = ?turn.user_ref,
            checkpoint = ?checkpoint,
            outcome = outcome.name(),
            elapsed_ms = turn.since.elapsed().as_millis() as u64,
            "pi turn ended"
        );
        // Not busy before the event goes out: whoever sees TurnEnded may send at once.
        self.state.busy.send_replace(false);
        self.emit(RuntimeEvent::TurnEnded {
            native_turn_ref: turn.user_ref,
            native_checkpoint_ref: checkpoint,
            outcome,
            usage: turn.usage,
        });
    }

    /// Pi's stdout closed: the process is gone.
    async fn exited(&mut self) {
        let error = if self.state.closing.load(Ordering::Acquire) {
            None
        } else {
            let status = self.client.exit_status(Duration::from_secs(2)).await;
            Some(format!("pi {status}"))
        };
        if let Some(why) = &error {
            *lock(&self.state.dead) = Some(why.clone());
            tracing::warn!(reason = %why, "pi runtime exited unexpectedly");
        }
        if let Some(turn) = self.turn.take() {
            if !turn.started {
                self.emit(RuntimeEvent::TurnStarted {
                    native_turn_ref: None,
                });
            }
            let outcome = match &error {
                Some(why) => TurnOutcome::Failed {
                    message: why.clone(),
                },
                None => TurnOutcome::Interrupted,
            };
            self.emit(RuntimeEvent::TurnEnded {
                native_turn_ref: turn.user_ref,
                native_checkpoint_ref: None,
                outcome,
                usage: turn.usage,
            });
        }
        self.state.busy.send_replace(false);
        self.emit(RuntimeEvent::Exited { error });
    }

    /// `get_entries` after `since` (all entries when unknown or when Pi no longer has it).
    async fn entries_since(&self, since: Option<&str>) -> Option<Value> {
        if let Some(since) = since {
            match self
                .client
                .request("get_entries", json!({ "since": since }), REQUEST_TIMEOUT)
                .await
            {
                Ok(r) if r.success => return Some(r.data),
                Ok(_) => {} // entry unknown: fall back to all entries
                Err(err) => {
                    tracing::debug!(%err, "pi get_entries failed");
                    return None;
                }
            }
        }
        match self
            .client
            .request("get_entries", json!({}), REQUEST_TIMEOUT)
            .await
        {
            Ok(r) if r.success => Some(r.data),
            _ => None,
        }
    }

    fn emit(&self, event: RuntimeEvent) {
        // A receiver that went away only means nobody listens any more.
        let _ = self.events.send(event);
    }
}
