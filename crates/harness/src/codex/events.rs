//! The Codex runtime's event side: the app-server's notifications and requests, in arrival
//! order on the server's reader task, become `RuntimeEvent`s, and the runtime's [`State`]
//! (its thread, whether a turn runs, whether the process died) is kept current.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::app_server::{Incoming, Replies};
use super::approvals::{Approvals, Waiting};
use super::protocol::to_harness_error;
use super::protocol::{self, ItemEvent, Notice};
use super::state::State;
use super::usage::{self, TurnMeter};
use crate::contract::{Answer, EventSender, Reply, RuntimeEvent};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// Turns the server's notifications into runtime events and keeps [`State`] current. Runs on
/// the app-server's reader task, in arrival order.
pub(super) fn event_pump(
    state: watch::Sender<State>,
    replies: Replies,
    events: EventSender,
) -> impl FnMut(Incoming) + Send + 'static {
    // Agent messages whose text already arrived as deltas.
    let streamed: Arc<Mutex<HashSet<String>>> = Arc::default();
    let mut approvals = Approvals::default();
    let mut meter = TurnMeter::default();
    move |incoming| match incoming {
        Incoming::Notification { method, params } => {
            if method == usage::METHOD {
                if let Some((thread, turn, used)) = usage::parse(&params) {
                    if state.borrow().thread_id.as_deref() == Some(thread.as_str()) {
                        meter.add(turn, used);
                    }
                }
                return;
            }
            if method == "item/started" {
                if let Some(item) = params.get("item") {
                    approvals.note_item(item);
                }
            }
            let notice = protocol::parse_notice(&method, &params);
            on_notice(
                notice,
                &state,
                &mut approvals,
                &mut meter,
                &events,
                &streamed,
            );
        }
        // Any thread of this process may ask (a sub-agent's too): the server waits either way.
        Incoming::Request { id, method, params } => {
            let (request, waiting) = approvals.request(id, &method, &params);
            tracing::info!(request = %request.id, method, "codex asks for approval");
            let (reply, awaited) = Reply::pair();
            let (replies, state) = (replies.clone(), state.clone());
            awaited.spawn_writer(move |answer| {
                write_answer(replies.clone(), state.clone(), waiting.clone(), answer)
            });
            let _ = events.send(RuntimeEvent::ApprovalRequested { request, reply });
        }
        Incoming::Exited(report) => {
            let error = (!report.expected).then(|| {
                format!(
                    "the codex app-server exited unexpectedly ({})",
                    report.status
                )
            });
            if let Some(message) = &error {
                tracing::warn!(status = %report.status, "codex app-server died");
                let tail = report.stderr_tail.clone();
                state.send_modify(|s| {
                    s.dead = Some((message.clone(), tail));
                    s.running = false;
                });
            } else {
                state.send_modify(|s| s.running = false);
            }
            // The Host forgets the process's requests with its exit.
            let _ = events.send(RuntimeEvent::Exited { error });
        }
    }
}

fn on_notice(
    notice: Notice,
    state: &watch::Sender<State>,
    approvals: &mut Approvals,
    meter: &mut TurnMeter,
    events: &EventSender,
    streamed: &Mutex<HashSet<String>>,
) {
    let ours = |thread: &str| state.borrow().thread_id.as_deref() == Some(thread);
    let emit = |e: RuntimeEvent| {
        let _ = events.send(e);
    };
    match notice {
        Notice::TurnStarted { thread_id, turn_id } if ours(&thread_id) => {
            state.send_modify(|s| {
                s.running = true;
                s.turn_id = Some(turn_id.clone());
            });
            emit(RuntimeEvent::TurnStarted {
                native_turn_ref: Some(turn_id),
            });
        }
        Notice::TurnCompleted {
            thread_id,
            turn_id,
            outcome,
        } if ours(&thread_id) => {
            tracing::debug!(thread = %thread_id, turn = %turn_id, ?outcome, "codex turn ended");
            streamed.lock().unwrap_or_else(|p| p.into_inner()).clear();
            // A request the ended turn left unanswered waits for nothing any more: the Host
            // forgets it with the turn.
            approvals.turn_ended();
            // Idle before the event goes out: whoever reacts to `TurnEnded` with a `send`
            // must not be told `Busy`.
            state.send_modify(|s| {
                s.running = false;
                s.turn_id = None;
            });
            emit(RuntimeEvent::TurnEnded {
                usage: meter.take(&turn_id),
                native_turn_ref: Some(turn_id.clone()),
                native_checkpoint_ref: Some(turn_id),
                outcome,
            });
        }
        // Answered by us or withdrawn by the server: either way it waits no more (the Host
        // ignores a withdrawal of what it answered).
        Notice::Resolved { request_id, .. } => {
            tracing::info!(request = %request_id, "codex resolved its approval request");
            emit(RuntimeEvent::ApprovalWithdrawn { id: request_id });
        }
        Notice::Item { thread_id, event } if ours(&thread_id) => {
            let mut streamed = streamed.lock().unwrap_or_else(|p| p.into_inner());
            match event {
                ItemEvent::Delta { item_id, text } => {
                    streamed.insert(item_id);
                    emit(RuntimeEvent::TextDelta { text });
                }
                // A message that arrived whole (no deltas) still reaches the UI once.
                ItemEvent::MessageDone { item_id, text } => {
                    if !streamed.remove(&item_id) && !text.is_empty() {
                        emit(RuntimeEvent::TextDelta { text });
                    }
                }
                ItemEvent::Event(e) => emit(e),
            }
        }
        _ => {}
    }
}

/// Writes the user's answer to one of the server's requests; a server that died answers with
/// why it did.
async fn write_answer(
    replies: Replies,
    state: watch::Sender<State>,
    waiting: Waiting,
    answer: Answer,
) -> HarnessResult<()> {
    let line = waiting.reply(answer)?;
    let written = replies.write(&line).await;
    tracing::info!(written = written.is_ok(), "codex request answered");
    written.map_err(|failure| {
        let dead = state.borrow().dead.clone();
        match dead {
            Some((message, tail)) => HarnessError::failed(HarnessKind::Codex, message, tail),
            None => to_harness_error(failure, &replies.stderr_tail()),
        }
    })
}
