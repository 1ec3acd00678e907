//! Pi's live runtime: one `pi --mode rpc` process per thread (harness notes §3, §7).
//!
//! - **New**: `pi --mode rpc` in the cwd; `get_state` names the session file Pi will write
//!   (Pi 1.6.0 creates it with the first prompt), so `Session` is emitted right after start.
//! - **Resume**: `pi --mode rpc --session <absolute path>`, after checking the file exists
//!   (Pi would silently start a new session at a missing path).
//! - **PendingFork**: a fork before turn 1 (see [`super::fork`]): a fresh session whose id was
//!   minted by the fork, `pi --mode rpc --session-id <id>`; the file appears with the first prompt.
//!
//! RPC events carry no entry ids, so the turn's coordinates come from `get_entries`: when the
//! user message is recorded (→ `TurnStarted`, the user entry id = the reader's native turn ref)
//! and when the run settles (→ `TurnEnded`, the leaf = the reader's native checkpoint ref).

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::process::{RpcClient, RpcError, RpcProcess};
use super::protocol::{self, Event, ToolCallBlock};
use super::session_files;
use crate::contract::version_triple;
use crate::contract::{
    EventSender, NativeSession, OpenSpec, RuntimeEvent, SessionTarget, TurnOutcome,
};
use crate::{Capabilities, HarnessBinary, HarnessError, HarnessKind, HarnessResult};

pub use super::fork::fork;

/// The oldest Pi this runtime and fork rely on. `get_entries` (turn coordinates) appeared in
/// 0.80.3 and `agent_settled` (end of a run) in 0.80.4; 1.6.0 is the version tested
/// (`scripts/harness-versions.env`), and the first where a fork at the first prompt keeps
/// `parentSession` (0.73.1 drops it, harness notes §4.10).
pub(super) const MIN_VERSION: (u64, u64, u64) = (1, 6, 0);
/// Spawn → first `get_state` answer (0.4–0.6 s measured; generous for a loaded machine).
pub(super) const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Any other command (they answer in milliseconds; `abort` waits for the run to stop).
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a closing Pi may take before its process group is killed.
pub(super) const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// How long to wait for the rest of stderr when reporting a failure.
const STDERR_WAIT: Duration = Duration::from_millis(500);

/// What this Pi version supports.
pub fn capabilities(version: &str) -> Capabilities {
    match unsupported_reason(version) {
        None => Capabilities {
            boundaries: vec!["after", "before", "latest"],
            granularity: "turn",
            // Every fork exists on return, except one before turn 1: Pi writes a session file
            // only once it holds a prompt, so that one is pending until its first prompt.
            eager_fork: true,
            note: None,
        },
        Some(why) => Capabilities {
            boundaries: vec![],
            granularity: "turn",
            eager_fork: false,
            note: Some(why),
        },
    }
}

fn unsupported_reason(version: &str) -> Option<String> {
    let (a, b, c) = MIN_VERSION;
    match version_triple(version) {
        Some(v) if v >= MIN_VERSION => None,
        Some(_) => Some(format!(
            "pi {version} is older than {a}.{b}.{c}, the first version whose RPC mode reports \
             turn coordinates (get_entries, agent_settled) and forks as tested"
        )),
        None => Some(format!("pi version {version:?} is not recognized")),
    }
}

pub(super) fn require_supported(binary: &HarnessBinary) -> HarnessResult<()> {
    match unsupported_reason(&binary.version) {
        None => Ok(()),
        Some(why) => Err(HarnessError::Unsupported(why)),
    }
}

/// A live `pi --mode rpc` process attached to one thread.
pub struct PiRuntime {
    process: RpcProcess,
    /// Known from the first `get_state`; a Pi runtime never changes session.
    session: NativeSession,
    client: RpcClient,
    state: Arc<RuntimeState>,
    events: EventSender,
    task: Option<JoinHandle<()>>,
}

/// Shared between the runtime and its event task.
struct RuntimeState {
    /// A prompt was accepted and its run has not settled yet.
    busy: watch::Sender<bool>,
    /// Why the process died, once it did without being asked to.
    dead: Mutex<Option<String>>,
    /// `close` (or drop) asked the process to end.
    closing: AtomicBool,
}

/// How to start Pi for a target.
struct Launch {
    args: Vec<OsString>,
    cwd: PathBuf,
    /// The file a resume must land on.
    resume: Option<PathBuf>,
    /// The session's leaf before the first prompt (where `get_entries` starts looking).
    leaf: Option<String>,
}

impl PiRuntime {
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Self> {
        require_supported(&spec.binary)?;
        let started = Instant::now();
        let launch = Launch::for_target(&spec.target, &spec.env)?;
        let (process, rx) =
            RpcProcess::spawn(&spec.binary, &launch.args, &launch.cwd, &spec.env).await?;
        let client = process.client();
        let session = match read_session(&client, &launch).await {
            Ok(session) => session,
            Err(err) => {
                process.shutdown(CLOSE_GRACE).await;
                return Err(err);
            }
        };
        tracing::info!(
            pid = process.pid(),
            session_id = %session.session_id,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "pi runtime ready"
        );
        let state = Arc::new(RuntimeState {
            busy: watch::Sender::new(false),
            dead: Mutex::new(None),
            closing: AtomicBool::new(false),
        });
        let _ = events.send(RuntimeEvent::Session {
            session: session.clone(),
        });
        let tracker = Tracker {
            client: client.clone(),
            events: events.clone(),
            state: state.clone(),
            leaf: launch.leaf,
            turn: None,
        };
        let task = tokio::spawn(tracker.run(rx));
        Ok(PiRuntime {
            process,
            session,
            client,
            state,
            events,
            task: Some(task),
        })
    }

    /// Starts a turn; returns once Pi accepted the prompt. `Busy` while a turn runs.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        self.check_alive().await?;
        if self.state.busy.send_replace(true) {
            return Err(HarnessError::Busy("a pi turn is running".into()));
        }
        let response = self
            .client
            .request("prompt", json!({ "message": prompt }), REQUEST_TIMEOUT)
            .await;
        match response {
            Ok(r) if r.success => {
                if r.data.get("disposition").and_then(Value::as_str) == Some("handled") {
                    // An extension command consumed the prompt: no run, no turn in the file.
                    self.state.busy.send_replace(false);
                    let _ = self.events.send(RuntimeEvent::TurnStarted {
                        native_turn_ref: None,
                    });
                    let _ = self.events.send(RuntimeEvent::TurnEnded {
                        native_turn_ref: None,
                        native_checkpoint_ref: None,
                        outcome: TurnOutcome::Completed,
                    });
                }
                Ok(())
            }
            Ok(r) => {
                self.state.busy.send_replace(false);
                let why = r.error.unwrap_or_else(|| "no reason given".into());
                Err(self
                    .client
                    .failure(format!("pi refused the prompt: {why}"), STDERR_WAIT)
                    .await)
            }
            Err(err) => {
                self.state.busy.send_replace(false);
                Err(self.rpc_failure("prompt", err).await)
            }
        }
    }

    /// Stops the running turn (it ends with `Interrupted`) and returns once it has ended.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        if lock(&self.state.dead).is_some() || !*self.state.busy.borrow() {
            return Ok(());
        }
        match self
            .client
            .request("abort", json!({}), REQUEST_TIMEOUT)
            .await
        {
            Ok(r) if r.success => {}
            Ok(r) => {
                let why = r.error.unwrap_or_default();
                return Err(self
                    .client
                    .failure(format!("pi refused to abort: {why}"), STDERR_WAIT)
                    .await);
            }
            // The process died; its `Exited` event says so.
            Err(RpcError::Closed) => return Ok(()),
            Err(err) => return Err(self.rpc_failure("abort", err).await),
        }
        // Pi answers `abort` once idle; the TurnEnded follows after one more `get_entries`.
        let mut busy = self.state.busy.subscribe();
        let _ = tokio::time::timeout(REQUEST_TIMEOUT, busy.wait_for(|b| !*b)).await;
        Ok(())
    }

    /// Ends the process: stdin closed (Pi aborts a running turn and exits), killed with its
    /// process group after a grace period, always reaped. Emits `Exited { error: None }`.
    pub async fn close(mut self) -> HarnessResult<()> {
        self.state.closing.store(true, Ordering::Release);
        let started = Instant::now();
        self.process.shutdown(CLOSE_GRACE).await;
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(REQUEST_TIMEOUT, task).await;
        }
        tracing::info!(
            pid = self.process.pid(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "pi runtime closed"
        );
        Ok(())
    }

    pub fn session(&self) -> Option<NativeSession> {
        Some(self.session.clone())
    }

    /// The Pi process id (for diagnostics and tests).
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    async fn check_alive(&self) -> HarnessResult<()> {
        let dead = lock(&self.state.dead).clone();
        match dead {
            None => Ok(()),
            Some(why) => Err(self.client.failure(why, STDERR_WAIT).await),
        }
    }

    async fn rpc_failure(&self, command: &str, err: RpcError) -> HarnessError {
        let dead = lock(&self.state.dead).clone();
        let message = dead.unwrap_or_else(|| format!("pi `{command}`: {err}"));
        self.client.failure(message, STDERR_WAIT).await
    }
}

impl Drop for PiRuntime {
    fn drop(&mut self) {
        // Dropping is a deliberate end too: the process (group) is killed by RpcProcess's drop
        // and the event task reports `Exited { error: None }`.
        self.state.closing.store(true, Ordering::Release);
    }
}

impl Launch {
    fn for_target(target: &SessionTarget, env: &[(String, String)]) -> HarnessResult<Launch> {
        match target {
            SessionTarget::New { cwd } => Ok(Launch {
                args: rpc_args(),
                cwd: existing_dir(cwd)?,
                resume: None,
                leaf: None,
            }),
            SessionTarget::Resume(session) => {
                Launch::resume(session_files::existing_file(session, env)?, &session.cwd)
            }
            SessionTarget::PendingFork(pending) => {
                if pending.source.is_some() || pending.resume_at.is_some() {
                    return Err(HarnessError::InvalidInput(
                        "a pending pi fork is a fresh session (source and resume_at unset); pi \
                         forks with a source are made by pi::fork"
                            .into(),
                    ));
                }
                let session = &pending.session;
                // Materialized already (its first prompt was sent): resume the file.
                if let Ok(path) = session_files::existing_file(session, env) {
                    return Launch::resume(path, &session.cwd);
                }
                if !valid_session_id(&session.session_id) {
                    return Err(HarnessError::InvalidInput(format!(
                        "{:?} is not a valid pi session id",
                        session.session_id
                    )));
                }
                let mut args = rpc_args();
                args.extend(["--session-id".into(), session.session_id.clone().into()]);
                Ok(Launch {
                    args,
                    cwd: existing_dir(&session.cwd)?,
                    resume: None,
                    leaf: None,
                })
            }
        }
    }

    fn resume(path: PathBuf, cwd: &Path) -> HarnessResult<Launch> {
        let mut args = rpc_args();
        args.extend(["--session".into(), path.clone().into_os_string()]);
        Ok(Launch {
            args,
            cwd: existing_dir(cwd)?,
            leaf: session_files::last_entry_id(&path),
            resume: Some(path),
        })
    }
}

fn rpc_args() -> Vec<OsString> {
    vec!["--mode".into(), "rpc".into()]
}

fn existing_dir(cwd: &Path) -> HarnessResult<PathBuf> {
    if cwd.is_dir() {
        Ok(cwd.to_owned())
    } else {
        Err(HarnessError::InvalidInput(format!(
            "working directory {} does not exist",
            cwd.display()
        )))
    }
}

/// Pi's rule for `--session-id` (`assertValidSessionId`).
fn valid_session_id(id: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    id.chars().all(ok)
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// Waits for Pi to answer `get_state` and reads the session it opened.
async fn read_session(client: &RpcClient, launch: &Launch) -> HarnessResult<NativeSession> {
    let response = match client
        .request("get_state", json!({}), STARTUP_TIMEOUT)
        .await
    {
        Ok(r) if r.success => r,
        Ok(r) => {
            let why = r.error.unwrap_or_default();
            return Err(client
                .failure(format!("pi get_state failed: {why}"), STDERR_WAIT)
                .await);
        }
        Err(err) => {
            return Err(client
                .failure(format!("pi did not start: {err}"), STDERR_WAIT)
                .await)
        }
    };
    let Some((file, id)) = protocol::state_session(&response.data) else {
        return Err(client
            .failure("pi get_state named no session file", STDERR_WAIT)
            .await);
    };
    let file = PathBuf::from(file);
    if let Some(expected) = &launch.resume {
        if !same_file(expected, &file) {
            return Err(client
                .failure(
                    format!(
                        "pi opened {} instead of {}",
                        file.display(),
                        expected.display()
                    ),
                    STDERR_WAIT,
                )
                .await);
        }
    }
    Ok(NativeSession {
        kind: HarnessKind::Pi,
        session_id: id,
        path: Some(file),
        cwd: launch.cwd.clone(),
    })
}

pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (a.canonicalize(), b.canonicalize()),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Turns Pi's session events into `RuntimeEvent`s, one run (prompt) at a time.
struct Tracker {
    client: RpcClient,
    events: EventSender,
    state: Arc<RuntimeState>,
    /// The session's leaf after the last settled run.
    leaf: Option<String>,
    turn: Option<TurnState>,
}

struct TurnState {
    started: bool,
    user_ref: Option<String>,
    stop_reason: Option<String>,
    error: Option<String>,
    /// Tool calls already reported (by `toolcall_end`), so `message_end` does not repeat them.
    calls_sent: HashSet<String>,
    since: Instant,
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
        }
    }
}

impl Tracker {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Value>) {
        while let Some(event) = rx.recv().await {
            self.handle(protocol::classify(&event)).await;
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
            } => {
                for call in tool_calls {
                    self.tool_call(call);
                }
                let turn = self.turn.get_or_insert_with(TurnState::new);
                turn.stop_reason = stop_reason;
                turn.error = error;
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
            outcome = outcome_name(&outcome),
            elapsed_ms = turn.since.elapsed().as_millis() as u64,
            "pi turn ended"
        );
        // Not busy before the event goes out: whoever sees TurnEnded may send at once.
        self.state.busy.send_replace(false);
        self.emit(RuntimeEvent::TurnEnded {
            native_turn_ref: turn.user_ref,
            native_checkpoint_ref: checkpoint,
            outcome,
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

fn outcome_name(outcome: &TurnOutcome) -> &'static str {
    match outcome {
        TurnOutcome::Completed => "completed",
        TurnOutcome::Interrupted => "interrupted",
        TurnOutcome::Failed { .. } => "failed",
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::PendingFork;

    #[test]
    fn capabilities_follow_the_version() {
        let caps = capabilities("1.6.0");
        assert_eq!(caps.boundaries, ["after", "before", "latest"]);
        assert_eq!(caps.granularity, "turn");
        assert!(caps.eager_fork && caps.note.is_none());
        assert!(capabilities("2.0.1").note.is_none());
        for old in ["0.73.1", "1.5.2", "garbage"] {
            let caps = capabilities(old);
            assert!(caps.boundaries.is_empty(), "{old}");
            assert!(caps.note.is_some(), "{old}");
        }
    }

    #[test]
    fn session_ids_follow_pis_rule() {
        assert!(valid_session_id("01a228e5-0000-7000-8000-000000000001"));
        assert!(valid_session_id("a"));
        for bad in ["", "-a", "a-", "a/b", "a b"] {
            assert!(!valid_session_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn targets_are_checked_before_anything_runs() {
        let missing = NativeSession {
            kind: HarnessKind::Pi,
            session_id: "nope".into(),
            path: Some("/nonexistent/forkhost/s.jsonl".into()),
            cwd: "/".into(),
        };
        let err = Launch::for_target(&SessionTarget::Resume(missing.clone()), &[]).err();
        assert!(
            matches!(err, Some(HarnessError::SessionNotFound(_))),
            "{err:?}"
        );
        let err = Launch::for_target(
            &SessionTarget::New {
                cwd: "/nonexistent/forkhost".into(),
            },
            &[],
        )
        .err();
        assert!(
            matches!(err, Some(HarnessError::InvalidInput(_))),
            "{err:?}"
        );
        let with_source = PendingFork {
            source: Some(missing.clone()),
            session: missing,
            resume_at: None,
        };
        let err = Launch::for_target(&SessionTarget::PendingFork(with_source), &[]).err();
        assert!(
            matches!(err, Some(HarnessError::InvalidInput(_))),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn an_old_pi_is_refused_before_it_runs() {
        let binary = HarnessBinary {
            kind: HarnessKind::Pi,
            path: "/nonexistent/pi".into(),
            version: "0.73.1".into(),
        };
        let (tx, _rx) = mpsc::unbounded_channel();
        let spec = OpenSpec {
            binary,
            target: SessionTarget::New { cwd: "/".into() },
            env: vec![],
        };
        assert!(matches!(
            PiRuntime::open(spec, tx).await.err(),
            Some(HarnessError::Unsupported(_))
        ));
    }
}
