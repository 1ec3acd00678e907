//! The stdout loop of one CLI process: turns what the CLI prints into [`RuntimeEvent`]s and
//! keeps the runtime's [`Phase`], which `send`/`interrupt`/`close` wait on.
//!
//! A turn: the runtime writes a prompt (phase `Starting`) → `system/init` (`Running`,
//! `TurnStarted`) → deltas, tool calls and results → `result` (`Idle`, `TurnEnded`). The
//! turn's refs are the reader's (`history.rs`): the turn ref is the uuid of the prompt record,
//! which the runtime chooses; the checkpoint is the uuid of the turn's last `assistant` record,
//! which stdout reports as it goes. `TurnEnded` is held back until the turn's last record is in
//! the transcript, so a reader opened on `TurnEnded` sees the whole turn.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::approvals::ToolPermission;
use super::paths::AppendWatch;
use super::protocol::{self, AssistantRecord, Output, StartupFailure, TurnResult, UserRecord};
use super::usage::CostMeter;
use crate::contract::{Answer, EventSender, NativeSession, Reply, RuntimeEvent, TurnOutcome};
use crate::process::{describe_exit, StderrTail, Tree};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// How long `TurnEnded` waits for the turn's last record to reach the transcript.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(3);
const SETTLE_POLL: Duration = Duration::from_millis(10);
/// How long stderr may stay open after the CLI exited (a tool child could hold it).
const STDERR_DRAIN: Duration = Duration::from_secs(1);
/// How long a write to the CLI's stdin may block.
pub(crate) const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an approval request's description may take (reading the file a `Write`
/// replaces) before it is shown without its diff.
const DIFF_READ_LIMIT: Duration = Duration::from_secs(2);

/// Where the runtime is. Only the runtime moves `Idle → Starting` (in `send`); everything else
/// is the driver's.
#[derive(Debug, Clone)]
pub(crate) enum Phase {
    Idle,
    /// A prompt was written; the CLI has not started the turn yet.
    Starting {
        turn_ref: String,
    },
    Running,
    Dead(Death),
}

impl Phase {
    pub(crate) fn in_turn(&self) -> bool {
        matches!(self, Phase::Starting { .. } | Phase::Running)
    }
}

/// Why the process ended.
#[derive(Debug, Clone)]
pub(crate) struct Death {
    pub cause: Cause,
    pub message: String,
    pub stderr_tail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// `close` asked for it.
    Closed,
    /// The CLI refused the session it was started on.
    Startup(StartupFailure),
    /// It died on its own, or was killed from outside.
    Crashed,
}

impl Death {
    /// The error a `send` to this dead runtime answers.
    pub(crate) fn error(&self, session_id: &str) -> HarnessError {
        match self.cause {
            Cause::Startup(StartupFailure::SessionNotFound) => {
                HarnessError::SessionNotFound(format!("{session_id}: {}", self.message))
            }
            Cause::Startup(StartupFailure::CheckpointNotFound) => {
                HarnessError::CheckpointNotFound(self.message.clone())
            }
            Cause::Closed => HarnessError::failed(
                HarnessKind::Claude,
                "the runtime was closed",
                self.stderr_tail.clone(),
            ),
            Cause::Crashed => HarnessError::failed(
                HarnessKind::Claude,
                self.message.clone(),
                self.stderr_tail.clone(),
            ),
        }
    }
}

/// What the runtime handle and the driver share.
pub(crate) struct Shared {
    pub phase: watch::Sender<Phase>,
    pub session: Mutex<NativeSession>,
    pub interrupt_requested: AtomicBool,
    pub closing: AtomicBool,
    pub stderr: StderrTail,
    /// The CLI's stdin: the runtime writes prompts and control requests, and an answered
    /// permission request writes its own response (`Driver::on_permission`).
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    /// Our control requests that wait for the CLI's answer (`None`: success, else its error).
    pub replies:
        Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<Option<String>>>>,
}

impl Shared {
    pub(crate) fn new(
        session: NativeSession,
        stderr: StderrTail,
        stdin: ChildStdin,
    ) -> Arc<Shared> {
        Arc::new(Shared {
            phase: watch::Sender::new(Phase::Idle),
            session: Mutex::new(session),
            interrupt_requested: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            stderr,
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            replies: Mutex::default(),
        })
    }

    /// Writes one protocol line; `false` when the pipe is closed, broke or stalled.
    pub(crate) async fn write_line(&self, line: &str) -> bool {
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return false;
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let write = async {
            pipe.write_all(&bytes).await?;
            pipe.flush().await
        };
        matches!(tokio::time::timeout(WRITE_TIMEOUT, write).await, Ok(Ok(())))
    }

    /// Closes stdin: the CLI exits once it has read everything.
    pub(crate) async fn close_stdin(&self) {
        drop(self.stdin.lock().await.take());
    }

    /// Why a write failed: the process's death when it is known, else that it is gone.
    pub(crate) fn gone(&self) -> HarnessError {
        match &*self.phase.borrow() {
            Phase::Dead(death) => death.error(&self.session().session_id),
            _ => HarnessError::failed(
                HarnessKind::Claude,
                "the claude process is gone",
                self.stderr.text(),
            ),
        }
    }

    /// Writes the response to one permission request the user answered.
    async fn answer(&self, request: &ToolPermission, answer: Answer) -> HarnessResult<()> {
        let line = request.reply_line(&answer)?;
        if answer == Answer::Decision(crate::contract::ApprovalDecision::DeclineAndStop) {
            // The turn then ends as the user's stop, not as a failure.
            self.interrupt_requested.store(true, Ordering::SeqCst);
        }
        if !self.write_line(&line).await {
            return Err(self.gone());
        }
        tracing::info!(request_id = %request.request_id, "claude request answered");
        Ok(())
    }

    pub(crate) fn session(&self) -> NativeSession {
        match self.session.lock() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

/// The turn being streamed.
struct Turn {
    turn_ref: String,
    /// The last top-level `assistant` record: the reader's checkpoint.
    checkpoint: Option<String>,
    /// The last top-level record of the turn: when it is on disk, the turn is.
    last_record: Option<String>,
    /// API messages whose text came as deltas (the rest is sent whole, e.g. a synthetic
    /// API-error reply).
    streamed: HashSet<String>,
    started: Instant,
}

pub(crate) struct Driver {
    shared: Arc<Shared>,
    events: EventSender,
    transcript: AppendWatch,
    announced: bool,
    turn: Option<Turn>,
    startup_failure: Option<(StartupFailure, String)>,
    pid: Option<u32>,
    /// The process's costs so far (its `result`s count every turn of it).
    costs: CostMeter,
}

impl Driver {
    pub(crate) fn new(shared: Arc<Shared>, events: EventSender, transcript: AppendWatch) -> Self {
        Driver {
            shared,
            events,
            transcript,
            announced: false,
            turn: None,
            startup_failure: None,
            pid: None,
            costs: CostMeter::default(),
        }
    }

    /// Runs until the CLI's stdout closes, then reaps it and reports its end.
    pub(crate) fn start(
        mut self,
        mut child: Child,
        stdout: ChildStdout,
        tree: Tree,
    ) -> JoinHandle<()> {
        self.pid = child.id();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) => break,
                    Ok(_) => self.on_line(&line).await,
                    Err(err) => {
                        tracing::warn!(pid = ?self.pid, error = %err, "claude stdout read failed");
                        break;
                    }
                }
            }
            let status = child.wait().await;
            // Tool commands the CLI left behind go with it.
            tree.kill();
            self.shared.stderr.wait_closed(STDERR_DRAIN).await;
            self.on_exit(status).await;
        })
    }

    fn emit(&self, event: RuntimeEvent) {
        // A closed receiver only means nobody listens any more.
        let _ = self.events.send(event);
    }

    async fn on_line(&mut self, line: &[u8]) {
        match protocol::parse_line(line) {
            Output::Init { session_id } => self.on_init(session_id),
            Output::MessageStart { message_id } => {
                if let (Some(turn), Some(id)) = (self.turn.as_mut(), message_id) {
                    turn.streamed.insert(id);
                }
            }
            Output::TextDelta(text) => {
                if self.turn.is_some() {
                    self.emit(RuntimeEvent::TextDelta { text });
                }
            }
            Output::Assistant(record) => self.on_assistant(record),
            Output::User(record) => self.on_user(record),
            Output::Result(result) => self.on_result(result).await,
            Output::Permission(request) => self.on_permission(request).await,
            Output::Cancel { request_id } => self.on_cancel(&request_id),
            Output::ControlResponse { request_id, error } => {
                let waiting = request_id.as_ref().and_then(|id| {
                    self.shared
                        .replies
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(id)
                });
                if let Some(waiting) = waiting {
                    let _ = waiting.send(error);
                    return;
                }
                if let Some(error) = error {
                    tracing::warn!(?request_id, %error, "claude refused a control request");
                }
            }
            Output::Unknown => {}
        }
    }

    /// The CLI waits until the request is answered (through the event's reply, which writes
    /// the response from here), withdrawn, or the process ends.
    async fn on_permission(&mut self, request: ToolPermission) {
        let cwd = self.shared.session().cwd;
        // Describing a `Write` reads the file it replaces: off this reader (a hung mount
        // stalls a blocking thread, not the process's output), and bounded in time: a read
        // that does not finish is shown without its diff.
        let asked = request.clone();
        let read = tokio::task::spawn_blocking(move || asked.request(&cwd));
        let event = match tokio::time::timeout(DIFF_READ_LIMIT, read).await {
            Ok(Ok(event)) => event,
            _ => request.request_undiffed(&self.shared.session().cwd),
        };
        tracing::info!(pid = ?self.pid, request_id = %request.request_id, "claude asks before a tool call");
        let (reply, awaited) = Reply::pair();
        let shared = self.shared.clone();
        awaited.spawn_writer(move |answer| {
            let (shared, request) = (shared.clone(), request.clone());
            async move { shared.answer(&request, answer).await }
        });
        self.emit(RuntimeEvent::ApprovalRequested {
            request: event,
            reply,
        });
    }

    /// The CLI no longer waits for a request (the Host forgets it, which ends its writer).
    fn on_cancel(&mut self, request_id: &str) {
        tracing::info!(pid = ?self.pid, %request_id, "claude withdrew a request");
        self.emit(RuntimeEvent::ApprovalWithdrawn {
            id: request_id.to_owned(),
        });
    }

    fn on_init(&mut self, session_id: Option<String>) {
        if !self.announced {
            self.announced = true;
            self.adopt_session_id(session_id);
            let session = self.shared.session();
            self.emit(RuntimeEvent::Session { session });
        }
        if self.turn.is_some() {
            return;
        }
        let mut turn_ref = None;
        self.shared.phase.send_modify(|p| {
            if let Phase::Starting { turn_ref: r } = p {
                turn_ref = Some(std::mem::take(r));
            }
            *p = Phase::Running;
        });
        let Some(turn_ref) = turn_ref else {
            tracing::warn!(pid = ?self.pid, "claude started a turn nobody asked for");
            return;
        };
        tracing::debug!(pid = ?self.pid, %turn_ref, "claude turn started");
        self.emit(RuntimeEvent::TurnStarted {
            native_turn_ref: Some(turn_ref.clone()),
        });
        self.turn = Some(Turn {
            turn_ref,
            checkpoint: None,
            last_record: None,
            streamed: HashSet::new(),
            started: Instant::now(),
        });
    }

    /// The CLI names the session in every `init`; it is the id we chose, unless a future CLI
    /// ignores `--session-id`, in which case its word wins.
    fn adopt_session_id(&self, session_id: Option<String>) {
        let Some(id) = session_id else { return };
        let Ok(mut session) = self.shared.session.lock() else {
            return;
        };
        if session.session_id == id {
            return;
        }
        tracing::warn!(expected = %session.session_id, reported = %id, "claude chose another session id");
        if let Some(path) = session.path.as_mut() {
            path.set_file_name(format!("{id}.jsonl"));
        }
        session.session_id = id;
    }

    fn on_assistant(&mut self, record: AssistantRecord) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if let Some(uuid) = record.uuid {
            turn.checkpoint = Some(uuid.clone());
            turn.last_record = Some(uuid);
        }
        let streamed = record
            .message_id
            .as_ref()
            .is_some_and(|id| turn.streamed.contains(id));
        if !streamed {
            for text in record.texts {
                self.emit(RuntimeEvent::TextDelta { text });
            }
        }
        for call in record.tool_calls {
            self.emit(RuntimeEvent::ToolCall {
                id: call.id,
                name: call.name,
                input: call.input,
            });
        }
    }

    fn on_user(&mut self, record: UserRecord) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if record.replay {
            // The echo of our prompt: its record uuid is the turn ref.
            if let Some(uuid) = record.uuid.filter(|u| *u != turn.turn_ref) {
                tracing::warn!(expected = %turn.turn_ref, reported = %uuid, "claude chose another prompt uuid");
                turn.turn_ref = uuid;
            }
            turn.last_record
                .get_or_insert_with(|| turn.turn_ref.clone());
            return;
        }
        if let Some(uuid) = record.uuid {
            turn.last_record = Some(uuid);
        }
        for result in record.tool_results {
            self.emit(RuntimeEvent::ToolResult {
                id: result.id,
                output: result.output,
                is_error: result.is_error,
            });
        }
    }

    async fn on_result(&mut self, result: TurnResult) {
        let Some(turn) = self.turn.take() else {
            self.on_result_outside_turn(result);
            return;
        };
        if let Some(uuid) = &turn.last_record {
            self.settle(uuid).await;
        }
        let cost_usd = self.costs.turn_cost(result.total_cost_usd);
        let usage = result
            .usage
            .map(|u| crate::contract::TurnUsage { cost_usd, ..u });
        let outcome = if result.ok {
            TurnOutcome::Completed
        } else if self.shared.interrupt_requested.load(Ordering::SeqCst) {
            TurnOutcome::Interrupted
        } else {
            TurnOutcome::Failed {
                message: result.failure(),
            }
        };
        tracing::info!(
            pid = ?self.pid,
            turn_ref = %turn.turn_ref,
            outcome = outcome.name(),
            num_turns = ?result.num_turns,
            ms = turn.started.elapsed().as_millis() as u64,
            "claude turn ended"
        );
        // Idle first: whoever reacts to TurnEnded may send the next prompt at once.
        self.shared.phase.send_replace(Phase::Idle);
        self.emit(RuntimeEvent::TurnEnded {
            native_turn_ref: Some(turn.turn_ref),
            native_checkpoint_ref: turn.checkpoint,
            outcome,
            usage,
        });
    }

    /// A `result` with no turn running: the CLI refusing its session at startup (unknown
    /// session, unknown checkpoint), after which it exits.
    fn on_result_outside_turn(&mut self, result: TurnResult) {
        if result.ok {
            return;
        }
        let message = result.failure();
        match protocol::classify_failure(&message) {
            Some(failure) => self.startup_failure = Some((failure, message)),
            None => {
                tracing::warn!(pid = ?self.pid, "claude reported a failure outside a turn");
                // A prompt waiting for its turn would wait forever: the CLI gave up on it.
                if self.shared.phase.borrow().in_turn() {
                    self.shared.phase.send_replace(Phase::Idle);
                    self.emit(RuntimeEvent::TurnStarted {
                        native_turn_ref: None,
                    });
                    self.emit(RuntimeEvent::TurnEnded {
                        native_turn_ref: None,
                        native_checkpoint_ref: None,
                        outcome: TurnOutcome::Failed { message },
                        usage: None,
                    });
                }
            }
        }
    }

    /// Waits (bounded) until the transcript holds the record `uuid`.
    async fn settle(&mut self, uuid: &str) {
        let start = Instant::now();
        loop {
            match self.transcript.saw_record(uuid) {
                Ok(true) => {
                    tracing::debug!(
                        ms = start.elapsed().as_millis() as u64,
                        "claude transcript settled"
                    );
                    return;
                }
                Ok(false) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "claude transcript unreadable");
                    return;
                }
            }
            if start.elapsed() >= SETTLE_TIMEOUT {
                tracing::warn!(
                    ms = start.elapsed().as_millis() as u64,
                    "claude transcript did not show the turn's last record"
                );
                return;
            }
            tokio::time::sleep(SETTLE_POLL).await;
        }
    }

    async fn on_exit(mut self, status: std::io::Result<std::process::ExitStatus>) {
        let stderr_tail = self.shared.stderr.text();
        let closing = self.shared.closing.load(Ordering::SeqCst);
        let status_text = match &status {
            Ok(status) => format!("claude {}", describe_exit(*status)),
            Err(err) => format!("claude could not be waited for: {err}"),
        };
        let startup = self.startup_failure.take().or_else(|| {
            let failure = protocol::classify_failure(&stderr_tail)?;
            let line = stderr_tail
                .lines()
                .find(|l| protocol::classify_failure(l).is_some());
            Some((failure, line.unwrap_or_default().to_owned()))
        });
        let (cause, message) = match startup {
            Some((failure, message)) => (Cause::Startup(failure), message),
            None if closing => (Cause::Closed, status_text),
            None => (Cause::Crashed, status_text),
        };
        tracing::info!(pid = ?self.pid, ?cause, status = ?status.as_ref().ok(), "claude process ended");
        let death = Death {
            cause,
            message: message.clone(),
            stderr_tail,
        };
        self.shared.phase.send_replace(Phase::Dead(death));
        if let Some(turn) = self.turn.take() {
            let outcome = if self.shared.interrupt_requested.load(Ordering::SeqCst) {
                TurnOutcome::Interrupted
            } else {
                TurnOutcome::Failed {
                    message: message.clone(),
                }
            };
            self.emit(RuntimeEvent::TurnEnded {
                native_turn_ref: Some(turn.turn_ref),
                native_checkpoint_ref: turn.checkpoint,
                outcome,
                usage: None,
            });
        }
        let error = (cause != Cause::Closed).then_some(message);
        self.emit(RuntimeEvent::Exited { error });
    }
}
