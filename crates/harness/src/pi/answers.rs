//! Writing the user's answers to Pi: an extension dialog's response, and `abort` (a turn
//! stopped, by Stop or by "decline and stop" on a dialog). Used by the runtime and by the
//! writer each dialog's reply starts.

use serde_json::json;

use super::dialogs::Dialog;
use super::process::{RpcClient, RpcError};
use super::state::{lock, RuntimeState};
use super::timeouts::{REQUEST_TIMEOUT, STDERR_WAIT};
use crate::contract::{Answer, ApprovalDecision};
use crate::{HarnessError, HarnessResult};

/// Writes the answer to one extension dialog. Pi never asks for approvals: its extensions'
/// dialogs are questions, so a decision can only decline one (the extension takes its
/// default), and "decline and stop" also aborts the run.
pub(super) async fn answer_dialog(
    client: &RpcClient,
    state: &RuntimeState,
    dialog: &Dialog,
    answer: Answer,
) -> HarnessResult<()> {
    let (answers, stop) = match answer {
        Answer::Decision(decision) if decision.approves() => {
            return Err(HarnessError::InvalidInput(format!(
                "pi request {:?} is an extension's question: answer it, or decline it",
                dialog.id
            )))
        }
        Answer::Decision(decision) => (None, decision == ApprovalDecision::DeclineAndStop),
        Answer::Questions(answers) => (answers, false),
    };
    let line = dialog.reply(answers.as_deref())?;
    if let Err(err) = client.write_line(&line).await {
        return Err(rpc_failure(client, state, "extension_ui_response", err).await);
    }
    tracing::info!(request_id = %dialog.id, answered = answers.is_some(), "pi dialog answered");
    if stop {
        abort(client, state).await?;
    }
    Ok(())
}

/// Stops the running turn (it ends with `Interrupted`) and returns once it has ended.
pub(super) async fn abort(client: &RpcClient, state: &RuntimeState) -> HarnessResult<()> {
    if lock(&state.dead).is_some() || !*state.busy.borrow() {
        return Ok(());
    }
    match client.request("abort", json!({}), REQUEST_TIMEOUT).await {
        Ok(r) if r.success => {}
        Ok(r) => {
            let why = r.error.unwrap_or_default();
            return Err(client
                .failure(format!("pi refused to abort: {why}"), STDERR_WAIT)
                .await);
        }
        // The process died; its `Exited` event says so.
        Err(RpcError::Closed) => return Ok(()),
        Err(err) => return Err(rpc_failure(client, state, "abort", err).await),
    }
    // Pi answers `abort` once idle; the TurnEnded follows after one more `get_entries`.
    let mut busy = state.busy.subscribe();
    let _ = tokio::time::timeout(REQUEST_TIMEOUT, busy.wait_for(|b| !*b)).await;
    Ok(())
}

/// What a failed command says: the process's death when it died, else the command's error.
pub(super) async fn rpc_failure(
    client: &RpcClient,
    state: &RuntimeState,
    command: &str,
    err: RpcError,
) -> HarnessError {
    let dead = lock(&state.dead).clone();
    let message = dead.unwrap_or_else(|| format!("pi `{command}`: {err}"));
    client.failure(message, STDERR_WAIT).await
}
