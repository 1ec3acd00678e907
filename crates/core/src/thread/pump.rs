//! The pump: turns a runtime's events into Host events, records the native session once the
//! harness names it, and syncs the thread's anchors when a turn ends.

use std::sync::Arc;

use forkhost_harness::{RuntimeEvent, TurnOutcome};
use tokio::sync::mpsc;

use crate::base::events::HostEvent;
use crate::base::pending::approval_view;
use crate::base::thread_handle::TurnState;
use crate::files::TurnEdge;
use crate::host::Host;

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
            RuntimeEvent::TurnEnded {
                outcome,
                usage,
                native_checkpoint_ref,
                ..
            } => {
                // Nothing waits past its turn.
                host.drop_pending(&thread_id, &turn);
                // The files as the turn left them, before anyone can fork after it.
                if let Ok(row) = host.store().thread(&thread_id).await {
                    let ordinal = turn.thread_turn();
                    if ordinal > 0 {
                        let folder = std::path::PathBuf::from(&row.cwd);
                        host.checkpoint_turn(&thread_id, &folder, ordinal, TurnEdge::End)
                            .await;
                    }
                }
                // A full disk left the turn half-written: taken off before anything reads it.
                let disk_full = matches!(&outcome, TurnOutcome::Failed { message } if super::disk_full::says_disk_full(message));
                if disk_full {
                    host.drop_torn_session_tail(&thread_id).await;
                }
                if let Err(err) = host.sync_thread(&thread_id).await {
                    host.report(&thread_id, &err, "sync after turn failed");
                }
                // An ACP agent's copy of the session as the turn left it (snapshots.rs).
                if let Some(snapshot) = native_checkpoint_ref.filter(|_| turn.thread_turn() > 0) {
                    let ordinal = turn.thread_turn();
                    if let Err(err) = host.keep_snapshot(&thread_id, ordinal, &snapshot).await {
                        host.report(&thread_id, &err, "the turn's snapshot was not kept");
                    }
                }
                let outcome = match outcome {
                    TurnOutcome::Failed { message } if disk_full => TurnOutcome::Failed {
                        message: super::disk_full::disk_full_words(&message),
                    },
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
                    usage,
                });
                host.thread_changed(&thread_id).await;
                turn.finish(outcome);
                // A runtime that believes it wrote the torn turn does not take the next one.
                if turn.retiring() || disk_full {
                    // A grant it may remember was revoked during the turn.
                    let (host, thread, turn) = (host.clone(), id(), turn.clone());
                    tokio::spawn(async move { host.retire_runtime(&thread, &turn).await });
                }
            }
            RuntimeEvent::ApprovalRequested { request, reply } => {
                // Ids only: a request's command or input is the user's, never the log's.
                tracing::info!(thread = %thread_id, request = %request.id, "approval requested");
                let view = approval_view(request, turn.turns_sent(), turn.generation());
                host.raised(&thread_id, view, reply, &turn).await;
            }
            RuntimeEvent::ApprovalWithdrawn { id: native } => {
                host.withdrawn(&thread_id, &turn, &native);
            }
            RuntimeEvent::Exited { error } => {
                turn.mark_dead();
                host.drop_pending(&thread_id, &turn);
                if let Some(message) = error {
                    tracing::warn!(thread = %thread_id, "harness exited unexpectedly");
                    let message = if super::disk_full::says_disk_full(&message) {
                        host.drop_torn_session_tail(&thread_id).await;
                        super::disk_full::disk_full_words(&message)
                    } else {
                        explained(&host, &thread_id, message).await
                    };
                    host.emit(HostEvent::Error {
                        thread_id: id(),
                        code: crate::base::error::ErrorCode::HarnessFailed,
                        message: message.clone(),
                    });
                    turn.finish(TurnOutcome::Failed { message });
                }
            }
        }
    }
    turn.mark_dead();
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
        Ok(thread) => crate::base::harnesses::explain_failure(thread.kind, message),
        Err(_) => message,
    }
}

impl Host {
    /// After a turn that failed on a full disk: the half-written last line taken off the
    /// thread's session file (`disk_full.rs`). Only a file the harness appends lines to.
    async fn drop_torn_session_tail(&self, thread_id: &str) {
        let Ok(row) = self.store().thread(thread_id).await else {
            return;
        };
        let Some(path) = row.native_path.map(std::path::PathBuf::from) else {
            return;
        };
        if !path.is_file() {
            return;
        }
        match super::disk_full::drop_torn_tail(&path) {
            Ok(0) => {}
            Ok(bytes) => {
                tracing::warn!(thread = %thread_id, bytes, "a turn torn by a full disk was taken off its session")
            }
            Err(err) => {
                tracing::warn!(thread = %thread_id, %err, "the torn end of a session could not be taken off")
            }
        }
    }
}
