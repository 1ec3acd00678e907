//! Running one turn from the terminal: the reply prints as it streams (to stderr in `--json`
//! mode, so stdout stays one JSON document), approval requests are answered by the `--approve`
//! policy, and Ctrl-C interrupts the turn cleanly.

use std::io::Write;

use forkhost_core::ThreadDetail;
use forkhost_core::{ApprovalResolution, Host, HostError, HostEvent, TurnOutcome};

use crate::approve::{self, Answered, Approve};

/// The turn's thread as it ended, with the approval requests it raised and their answers.
pub struct Sent {
    pub detail: ThreadDetail,
    pub approvals: Vec<Answered>,
}

pub async fn send(
    host: &Host,
    thread: &str,
    prompt: &str,
    json: bool,
    policy: Approve,
) -> Result<Sent, HostError> {
    // `--approve none`: nothing runs that is not asked and allowed, not even by a grant.
    host.use_session_grants(policy != Approve::None);
    let mut events = host.subscribe();
    let done = host.start_turn(thread, prompt).await?;
    let mut done = std::pin::pin!(done);
    let mut interrupted = false;
    let mut approvals = Vec::new();
    let mut usage = None;
    let outcome = loop {
        tokio::select! {
            outcome = &mut done => break outcome,
            event = events.recv() => {
                if let Ok(event) = event {
                    if event.thread_id() == thread {
                        echo(&event, json);
                        note_usage(&event, &mut usage);
                        on_approval(host, thread, event, policy, &mut approvals).await;
                    }
                }
            }
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                eprintln!("\nforkhost: interrupting the turn…");
                host.interrupt(thread).await?;
            }
        }
    };
    // Flush what streamed after the outcome was decided.
    while let Ok(event) = events.try_recv() {
        if event.thread_id() == thread {
            echo(&event, json);
            note_usage(&event, &mut usage);
            record_resolution(&event, &mut approvals);
        }
    }
    finish_line(json);
    // Last on stderr, so it never mixes with the reply or a `--json` document.
    if let Some(usage) = usage {
        eprintln!("{}", crate::usage::line(&usage));
    }
    match outcome {
        Ok(TurnOutcome::Failed { message }) => Err(HostError::HarnessFailed(message)),
        Ok(_) => Ok(Sent {
            detail: host.show(thread).await?,
            approvals,
        }),
        Err(_) => Err(HostError::HarnessFailed(
            "the harness stopped before the turn ended".into(),
        )),
    }
}

/// Answers a request by the policy; a request resolved otherwise (withdrawn, its turn over)
/// is recorded as such.
async fn on_approval(
    host: &Host,
    thread: &str,
    event: HostEvent,
    policy: Approve,
    approvals: &mut Vec<Answered>,
) {
    let HostEvent::ApprovalRequested { request, .. } = event else {
        record_resolution(&event, approvals);
        return;
    };
    // Ctrl-C while asking stops the turn; the interrupt declines what is pending.
    let answer = tokio::select! {
        answer = approve::decide(policy, &request) => answer,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("\nforkhost: interrupting the turn…");
            if let Err(err) = host.interrupt(thread).await {
                eprintln!("forkhost: could not interrupt: {err}");
            }
            approvals.push(Answered { request, decision: ApprovalResolution::Decline });
            return;
        }
    };
    let sent = match answer.clone() {
        approve::Answer::Decision(decision) => {
            host.answer_approval(thread, &request.id, decision).await
        }
        approve::Answer::Reply(answers) => host.answer_question(thread, &request.id, answers).await,
    };
    let answered = match sent {
        Ok(()) => answer.name(),
        // It stopped being pending while we decided; its resolution event says how.
        Err(HostError::InvalidInput(_)) => ApprovalResolution::Gone,
        Err(err) => {
            eprintln!("\nforkhost: could not answer the request: {err}");
            ApprovalResolution::Gone
        }
    };
    approvals.push(Answered {
        request,
        decision: answered,
    });
}

/// The turn's tokens and cost, from its end event.
fn note_usage(event: &HostEvent, usage: &mut Option<forkhost_core::TurnUsage>) {
    if let HostEvent::TurnEnded { usage: Some(u), .. } = event {
        *usage = Some(*u);
    }
}

/// Notes how a request we did not answer ended (withdrawn, gone).
fn record_resolution(event: &HostEvent, approvals: &mut [Answered]) {
    if let HostEvent::ApprovalResolved { id, how, .. } = event {
        if let Some(a) = approvals.iter_mut().find(|a| &a.request.id == id) {
            if a.decision == ApprovalResolution::Gone {
                a.decision = *how;
            }
        }
    }
}

fn echo(event: &HostEvent, json: bool) {
    // Model text on a terminal: its control characters are shown, never obeyed, so a reply
    // cannot rewrite the lines around an approval prompt.
    let text = approve::visible(&match event {
        HostEvent::TextDelta { text, .. } => text.clone(),
        HostEvent::ToolCall { name, .. } => format!("\n[tool {name}]\n"),
        HostEvent::Error { message, .. } => format!("\n[error: {message}]\n"),
        _ => return,
    });
    if json {
        eprint!("{text}");
        let _ = std::io::stderr().flush();
    } else {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

fn finish_line(json: bool) {
    if json {
        eprintln!();
    } else {
        println!();
    }
}
