//! Running one turn from the terminal: the reply prints as it streams (to stderr in `--json`
//! mode, so stdout stays one JSON document), approval requests are answered by the `--approve`
//! policy, and Ctrl-C interrupts the turn cleanly. The turn runs in this process's Host, or in
//! the daemon of this machine's data folder (`forkhost serve`: a remote host's turns), where it
//! runs on when this process ends and `attach` follows it again.

use std::collections::{HashSet, VecDeque};
use std::io::Write;

use forkhost_core::{
    ApprovalResolution, Call, Connection, Entry, Host, HostError, HostEvent, Item, Returned,
    ThreadDetail, TurnEnd, TurnOutcome,
};
use tokio::sync::{broadcast, oneshot};

use crate::approve::{self, Answer, Answered, Approve};

/// The turn's thread as it ended, with the approval requests it raised and their answers.
pub struct Sent {
    pub detail: ThreadDetail,
    pub approvals: Vec<Answered>,
}

/// Where the turn runs.
#[derive(Clone, Copy)]
pub enum RunsAt<'a> {
    Here(&'a Host),
    Daemon(&'a Connection),
}

/// What the turn's feed gives next (one at a time, moved straight into the loop: its size is
/// the event's, which boxing would only move to the heap per event).
#[allow(clippy::large_enum_variant)]
enum Step {
    /// An event; `replayed`: it happened before this process looked (`attach`).
    Event { event: HostEvent, replayed: bool },
    /// The turn's end (`Err`: the harness stopped before the turn ended).
    Ended(Result<TurnOutcome, ()>),
    /// The daemon's connection ended first: the turn runs on there.
    Lost,
}

/// The turn's events in order, then its end.
enum Feed<'a> {
    Here {
        events: broadcast::Receiver<HostEvent>,
        done: std::pin::Pin<Box<oneshot::Receiver<TurnOutcome>>>,
        thread: String,
        /// Events that came before the end, given before it.
        flushed: VecDeque<HostEvent>,
        ended: Option<Result<TurnOutcome, ()>>,
    },
    Daemon {
        connection: &'a Connection,
        /// The entries replayed for `attach`, given first.
        replay: VecDeque<Entry>,
    },
}

impl Feed<'_> {
    async fn next(&mut self) -> Step {
        match self {
            Feed::Here {
                events,
                done,
                thread,
                flushed,
                ended,
            } => loop {
                if let Some(event) = flushed.pop_front() {
                    return Step::Event {
                        event,
                        replayed: false,
                    };
                }
                if let Some(end) = ended.take() {
                    return Step::Ended(end);
                }
                tokio::select! {
                    outcome = done.as_mut() => {
                        // What streamed before the outcome was decided goes first.
                        while let Ok(event) = events.try_recv() {
                            if event.thread_id() == thread.as_str() {
                                flushed.push_back(event);
                            }
                        }
                        *ended = Some(outcome.map_err(|_| ()));
                    }
                    event = events.recv() => {
                        if let Ok(event) = event {
                            if event.thread_id() == thread.as_str() {
                                return Step::Event { event, replayed: false };
                            }
                        }
                    }
                }
            },
            Feed::Daemon { connection, replay } => loop {
                let (entry, replayed) = match replay.pop_front() {
                    Some(entry) => (entry, true),
                    None => match connection.next_entry().await {
                        Some(entry) => (entry, false),
                        None => return Step::Lost,
                    },
                };
                return match entry.item {
                    Item::Event { event } => Step::Event { event, replayed },
                    Item::TurnFinished { end, message, .. } => Step::Ended(Ok(match end {
                        TurnEnd::Completed => TurnOutcome::Completed,
                        TurnEnd::Interrupted => TurnOutcome::Interrupted,
                        TurnEnd::Failed => TurnOutcome::Failed {
                            message: message.unwrap_or_default(),
                        },
                    })),
                    // A race started from the thread (by the app) is not this turn's.
                    Item::RaceLane { .. } | Item::RaceEnded { .. } => continue,
                };
            },
        }
    }
}

impl RunsAt<'_> {
    async fn interrupt(self, thread: &str) -> Result<(), HostError> {
        match self {
            RunsAt::Here(host) => host.interrupt(thread).await,
            RunsAt::Daemon(c) => c
                .call(Call::Interrupt {
                    thread: thread.into(),
                })
                .await
                .map(drop),
        }
    }

    async fn answer(self, thread: &str, request: &str, answer: Answer) -> Result<(), HostError> {
        let (thread, request) = (thread.to_owned(), request.to_owned());
        match (self, answer) {
            (RunsAt::Here(host), Answer::Decision(d)) => {
                host.answer_approval(&thread, &request, d).await
            }
            (RunsAt::Here(host), Answer::Reply(answers)) => {
                host.answer_question(&thread, &request, answers).await
            }
            (RunsAt::Daemon(c), Answer::Decision(decision)) => c
                .call(Call::AnswerApproval {
                    thread,
                    request,
                    decision,
                })
                .await
                .map(drop),
            // Never sent: `on_approval` decides what an unanswered request becomes.
            (_, Answer::NoOneThere) => Ok(()),
            (RunsAt::Daemon(c), Answer::Reply(answers)) => c
                .call(Call::AnswerQuestion {
                    thread,
                    request,
                    answers,
                })
                .await
                .map(drop),
        }
    }

    async fn show(self, thread: &str) -> Result<ThreadDetail, HostError> {
        match self {
            RunsAt::Here(host) => host.show(thread).await,
            RunsAt::Daemon(c) => match c
                .call(Call::Show {
                    thread: thread.into(),
                })
                .await?
            {
                Returned::Thread { detail } => Ok(*detail),
                other => Err(HostError::Internal(format!(
                    "the daemon answered {other:?}"
                ))),
            },
        }
    }
}

/// Runs one turn of `thread` where `at` says, printing it as it streams.
pub async fn send(
    at: RunsAt<'_>,
    thread: &str,
    prompt: &str,
    json: bool,
    policy: Approve,
) -> Result<Sent, HostError> {
    // `--approve none`: nothing runs that is not asked and allowed, not even by a grant.
    let session_grants = policy != Approve::None;
    let feed = match at {
        RunsAt::Here(host) => {
            let events = host.subscribe();
            let done = host.start_turn_with(thread, prompt, session_grants).await?;
            Feed::Here {
                events,
                done: Box::pin(done),
                thread: thread.to_owned(),
                flushed: VecDeque::new(),
                ended: None,
            }
        }
        RunsAt::Daemon(connection) => {
            // Everything after our hello: the turn's first event comes after it.
            connection
                .subscribe(thread, Some(connection.last_seq))
                .await?;
            connection
                .call(Call::StartTurn {
                    thread: thread.to_owned(),
                    prompt: prompt.to_owned(),
                    session_grants,
                })
                .await?;
            Feed::Daemon {
                connection,
                replay: VecDeque::new(),
            }
        }
    };
    run(at, feed, thread, json, policy, &HashSet::new()).await
}

/// `attach`: the daemon's turn of `thread` from entry `since` (`None`: its latest turn's
/// start) to its end — what streamed so far printed at once, the rest as it comes, a request
/// still waiting asked again. A thread with no turn in the daemon's journal is shown as stored.
pub async fn attach(
    connection: &Connection,
    thread: &str,
    since: Option<u64>,
    json: bool,
    policy: Approve,
) -> Result<Sent, HostError> {
    let at = RunsAt::Daemon(connection);
    let subscription = connection.subscribe(thread, since).await?;
    let mut replay = VecDeque::new();
    for _ in 0..subscription.replayed {
        replay.push_back(connection.next_entry().await.ok_or_else(|| lost(thread))?);
    }
    let pending = match connection
        .call(Call::PendingApprovals {
            thread: thread.into(),
        })
        .await?
    {
        Returned::Pending { requests } => requests.into_iter().map(|r| r.id).collect(),
        _ => HashSet::new(),
    };
    if subscription.gap {
        eprintln!(
            "forkhost: the start of this turn is no longer kept; the thread as stored follows its end"
        );
    }
    if !replay.iter().any(|e| e.item.starts_turn()) {
        return Ok(Sent {
            detail: at.show(thread).await?,
            approvals: Vec::new(),
        });
    }
    let feed = Feed::Daemon { connection, replay };
    run(at, feed, thread, json, policy, &pending).await
}

fn lost(thread: &str) -> HostError {
    HostError::HostUnreachable(format!(
        "the connection to the daemon was lost; the turn runs on there: `forkhost attach {thread}` follows it again"
    ))
}

/// Prints the feed to the turn's end, answering its requests: every live one, and of the
/// replayed ones those still `pending`.
async fn run(
    at: RunsAt<'_>,
    mut feed: Feed<'_>,
    thread: &str,
    json: bool,
    policy: Approve,
    pending: &HashSet<String>,
) -> Result<Sent, HostError> {
    let mut interrupted = false;
    let mut approvals = Vec::new();
    let mut usage = None;
    let outcome = loop {
        tokio::select! {
            step = feed.next() => match step {
                Step::Event { event, replayed } => {
                    echo(&event, json);
                    note_usage(&event, &mut usage);
                    let ask = match &event {
                        HostEvent::ApprovalRequested { request, .. } => {
                            !replayed || pending.contains(&request.id)
                        }
                        _ => false,
                    };
                    if ask {
                        on_approval(at, thread, event, policy, &mut approvals).await?;
                    } else {
                        record_resolution(&event, &mut approvals);
                    }
                }
                Step::Ended(outcome) => break outcome,
                Step::Lost => {
                    finish_line(json);
                    return Err(lost(thread));
                }
            },
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                eprintln!("\nforkhost: interrupting the turn…");
                at.interrupt(thread).await?;
            }
        }
    };
    finish_line(json);
    // Last on stderr, so it never mixes with the reply or a `--json` document.
    if let Some(usage) = usage {
        eprintln!("{}", crate::usage::line(&usage));
    }
    match outcome {
        Ok(TurnOutcome::Failed { message }) => Err(HostError::HarnessFailed(message)),
        Ok(_) => Ok(Sent {
            detail: at.show(thread).await?,
            approvals,
        }),
        Err(()) => Err(HostError::HarnessFailed(
            "the harness stopped before the turn ended".into(),
        )),
    }
}

/// Answers a request by the policy; a request resolved otherwise (withdrawn, its turn over)
/// is recorded as such.
async fn on_approval(
    at: RunsAt<'_>,
    thread: &str,
    event: HostEvent,
    policy: Approve,
    approvals: &mut Vec<Answered>,
) -> Result<(), HostError> {
    let HostEvent::ApprovalRequested { request, .. } = event else {
        return Ok(());
    };
    // Ctrl-C while asking stops the turn; the interrupt declines what is pending.
    let answer = tokio::select! {
        answer = approve::decide(policy, &request) => answer,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("\nforkhost: interrupting the turn…");
            if let Err(err) = at.interrupt(thread).await {
                eprintln!("forkhost: could not interrupt: {err}");
            }
            approvals.push(Answered { request, decision: ApprovalResolution::Decline });
            return Ok(());
        }
    };
    let answer = match (answer, at) {
        // Nobody at this terminal any more: a turn here cannot wait, so it is declined; the
        // daemon's turn keeps the request for whoever attaches next.
        (approve::Answer::NoOneThere, RunsAt::Here(_)) => {
            eprintln!("\nforkhost: no answer; declined");
            approve::Answer::Decision(forkhost_core::ApprovalDecision::Decline)
        }
        (approve::Answer::NoOneThere, RunsAt::Daemon(_)) => {
            return Err(HostError::InvalidInput(format!(
                "no answer here; the request waits in the daemon: `forkhost attach {thread}` asks again"
            )))
        }
        (answer, _) => answer,
    };
    let answered = match at.answer(thread, &request.id, answer.clone()).await {
        Ok(()) => answer.name(),
        // It stopped being pending while we decided; its resolution event says how.
        Err(err) if err.code() == "invalid_input" => ApprovalResolution::Gone,
        Err(err) => {
            eprintln!("\nforkhost: could not answer the request: {err}");
            ApprovalResolution::Gone
        }
    };
    approvals.push(Answered {
        request,
        decision: answered,
    });
    Ok(())
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
