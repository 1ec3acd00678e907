//! The pump: turns a runtime's events into Host events, records the native session once the
//! harness names it, and syncs the thread's anchors when a turn ends.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use forkhost_harness::{RuntimeEvent, TurnOutcome};
use tokio::sync::mpsc;

use crate::events::HostEvent;
use crate::files::TurnEdge;
use crate::host::Host;
use crate::pending::{approval_view, Resolution};
use crate::slot::TurnState;

/// Forwards a runtime's events, records the session once known, and syncs anchors when a turn
/// ends.
pub(crate) async fn pump(
    host: Host,
    thread_id: String,
    mut rx: mpsc::UnboundedReceiver<RuntimeEvent>,
    turn: Arc<TurnState>,
) {
    let id = || thread_id.clone();
    while let Some(event) = rx.recv().await {
        match event {
            RuntimeEvent::Session { session } => {
                if let Err(err) = host.record_session(&thread_id, &session).await {
                    tracing::warn!(thread = %thread_id, error = %err, "could not record session");
                }
            }
            RuntimeEvent::TurnStarted { .. } => {
                host.emit(HostEvent::TurnStarted { thread_id: id() })
            }
            RuntimeEvent::TextDelta { text } => host.emit(HostEvent::TextDelta {
                thread_id: id(),
                text,
            }),
            RuntimeEvent::ToolCall {
                id: call,
                name,
                input,
            } => host.emit(HostEvent::ToolCall {
                thread_id: id(),
                id: call,
                name,
                input,
            }),
            RuntimeEvent::ToolResult {
                id: call,
                output,
                is_error,
            } => host.emit(HostEvent::ToolResult {
                thread_id: id(),
                id: call,
                output,
                is_error,
            }),
            RuntimeEvent::TurnEnded { outcome, .. } => {
                // Nothing waits past its turn.
                host.drop_pending(&thread_id, &turn);
                // The files as the turn left them, before anyone can fork after it.
                if let Ok(row) = host.store().thread(&thread_id).await {
                    let ordinal = turn.file_turn.load(Ordering::SeqCst);
                    if ordinal > 0 {
                        let folder = std::path::PathBuf::from(&row.cwd);
                        host.checkpoint_turn(&thread_id, &folder, ordinal, TurnEdge::End)
                            .await;
                    }
                }
                if let Err(err) = host.sync_thread(&thread_id).await {
                    tracing::warn!(thread = %thread_id, code = err.code(), "sync after turn failed");
                    host.emit(HostEvent::Error {
                        thread_id: id(),
                        code: err.error_code(),
                        message: err.to_string(),
                    });
                }
                let outcome = match outcome {
                    TurnOutcome::Failed { message } => TurnOutcome::Failed {
                        message: explained(&host, &thread_id, message).await,
                    },
                    other => other,
                };
                let (name, message) = outcome_words(&outcome);
                tracing::info!(thread = %thread_id, outcome = name, "turn ended");
                host.emit(HostEvent::TurnEnded {
                    thread_id: id(),
                    outcome: (&outcome).into(),
                    message,
                });
                host.emit(HostEvent::ThreadChanged {
                    thread_id: id(),
                    thread: None,
                });
                turn.finish(outcome);
                if turn.retire.load(Ordering::SeqCst) {
                    // A grant it may remember was revoked during the turn.
                    let (host, thread, turn) = (host.clone(), id(), turn.clone());
                    tokio::spawn(async move { host.retire_runtime(&thread, &turn).await });
                }
            }
            RuntimeEvent::ApprovalRequested { request } => {
                // Ids only: a request's command or input is the user's, never the log's.
                tracing::info!(thread = %thread_id, request = %request.id, "approval requested");
                let view = approval_view(
                    request,
                    turn.turns.load(Ordering::SeqCst),
                    turn.generation(),
                );
                turn.approvals().add(view.clone());
                if host.granted(&thread_id, &view, &turn).await {
                    turn.approvals().take(&view.id);
                    // Its own task: answering takes the runtime's lock, which must never wait
                    // on this pump.
                    let (host, thread, raised_by) = (host.clone(), id(), turn.clone());
                    tokio::spawn(async move {
                        host.answer_by_grant(&thread, view, raised_by).await;
                    });
                    continue;
                }
                host.emit(HostEvent::ApprovalRequested {
                    thread_id: id(),
                    request: view,
                });
            }
            RuntimeEvent::ApprovalWithdrawn { id: native } => {
                let withdrawn = turn.approvals().take_native(&native);
                if let Some(request) = withdrawn {
                    host.resolved(&thread_id, &request.id, Resolution::Withdrawn);
                }
            }
            RuntimeEvent::Exited { error } => {
                turn.dead.store(true, Ordering::SeqCst);
                host.drop_pending(&thread_id, &turn);
                if let Some(message) = error {
                    tracing::warn!(thread = %thread_id, "harness exited unexpectedly");
                    let message = explained(&host, &thread_id, message).await;
                    host.emit(HostEvent::Error {
                        thread_id: id(),
                        code: crate::error::ErrorCode::HarnessFailed,
                        message: message.clone(),
                    });
                    turn.finish(TurnOutcome::Failed { message });
                }
            }
        }
    }
    turn.dead.store(true, Ordering::SeqCst);
    host.drop_pending(&thread_id, &turn);
    turn.finish(TurnOutcome::Failed {
        message: "the harness process ended".into(),
    });
}

fn outcome_words(outcome: &TurnOutcome) -> (&'static str, Option<String>) {
    match outcome {
        TurnOutcome::Completed => ("completed", None),
        TurnOutcome::Interrupted => ("interrupted", None),
        TurnOutcome::Failed { message } => ("failed", Some(message.clone())),
    }
}

/// A failed turn's message with what to do when it says the harness lacks a login.
async fn explained(host: &Host, thread_id: &str, message: String) -> String {
    match host.thread(thread_id).await {
        Ok(thread) => crate::harnesses::explain_failure(thread.kind, message),
        Err(_) => message,
    }
}
