//! The commands about what a thread's harness may do and what it waits on: answering its
//! approval requests and questions, listing what is pending, and its permission mode.

use forkhost_core::ThreadView;
use forkhost_core::{ApprovalDecision, ApprovalView, GrantView, PermissionMode};
use tauri::State;

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::remote::thread::{self, remote};
use crate::state::AppState;

/// An empty or blank word is no choice (the harness's default).
fn word(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

pub(crate) fn permissions(mode: Option<String>, sandbox: Option<String>) -> PermissionMode {
    PermissionMode {
        mode: word(mode),
        sandbox: word(sandbox),
    }
}

/// Changes the thread's permission mode (from its runtime's next start). `busy` while a turn
/// runs; an unknown word is `invalid_input` naming the accepted ones.
#[tauri::command(rename_all = "snake_case")]
pub async fn set_mode(
    state: State<'_, AppState>,
    thread_id: String,
    mode: Option<String>,
    sandbox: Option<String>,
) -> CmdResult<ThreadView> {
    if let Some((host, thread)) = remote(&thread_id) {
        let permissions = permissions(mode, sandbox);
        return Ok(thread::set_mode(&state, host, thread, permissions).await?);
    }
    Ok(state
        .host
        .set_mode(&thread_id, permissions(mode, sandbox))
        .await?)
}

/// Answers a pending approval request of the thread's runtime. The decision arrives typed
/// (the UI's `ApprovalDecision` is generated from the contract's); a word outside it is refused
/// before this runs, by serde, with the words it takes.
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_approval(
    state: State<'_, AppState>,
    thread_id: String,
    request_id: String,
    decision: ApprovalDecision,
) -> CmdResult<()> {
    if request_id.trim().is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "an approval request id is needed",
        ));
    }
    if let Some((host, thread)) = remote(&thread_id) {
        let answered = thread::answer_approval(&state, host, thread, &request_id, decision);
        return Ok(answered.await?);
    }
    Ok(state
        .host
        .answer_approval(&thread_id, &request_id, decision)
        .await?)
}

/// Answers a pending question request of the thread's runtime: one text per question (an
/// offered option, or any text where the question takes it), or `None` to dismiss it.
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_question(
    state: State<'_, AppState>,
    thread_id: String,
    request_id: String,
    answers: Option<Vec<String>>,
) -> CmdResult<()> {
    if request_id.trim().is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "a question request id is needed",
        ));
    }
    if let Some((host, thread)) = remote(&thread_id) {
        let answered = thread::answer_question(&state, host, thread, &request_id, answers);
        return Ok(answered.await?);
    }
    Ok(state
        .host
        .answer_question(&thread_id, &request_id, answers)
        .await?)
}

/// The approval requests the thread's runtime waits on, oldest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn pending_approvals(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<Vec<ApprovalView>> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::pending_approvals(&state, host, thread).await?);
    }
    Ok(state.host.pending_approvals(&thread_id).await?)
}

/// The thread's session grants ("Always this session"), oldest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn session_grants(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<Vec<GrantView>> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::session_grants(&state, host, thread).await?);
    }
    Ok(state.host.session_grants(&thread_id).await?)
}

/// Revokes one of the thread's session grants.
#[tauri::command(rename_all = "snake_case")]
pub async fn revoke_grant(
    state: State<'_, AppState>,
    thread_id: String,
    grant_id: String,
) -> CmdResult<()> {
    let grant_id = grant_id.trim();
    if grant_id.is_empty() {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            "a grant id is needed",
        ));
    }
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::revoke_grant(&state, host, thread, grant_id).await?);
    }
    Ok(state.host.revoke_grant(&thread_id, grant_id).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_mode_words_are_the_harness_default() {
        assert_eq!(
            permissions(Some(" acceptEdits ".into()), Some("".into())),
            PermissionMode {
                mode: Some("acceptEdits".into()),
                sandbox: None
            }
        );
    }

    #[test]
    fn decisions_are_the_contract_words() {
        for word in [
            "approve",
            "approve_for_session",
            "decline",
            "decline_and_stop",
        ] {
            let decision: ApprovalDecision = serde_json::from_value(word.into()).unwrap();
            assert_eq!(decision.name(), word);
        }
        // What `answer_approval` rejects a bad word with names the words it takes.
        let err = serde_json::from_value::<ApprovalDecision>("yes".into()).unwrap_err();
        let message = err.to_string();
        assert!(message.contains("approve_for_session"), "{message}");
    }
}
