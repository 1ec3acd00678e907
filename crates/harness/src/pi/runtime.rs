//! Pi's live runtime: one `pi --mode rpc` process per thread (see "Pi 1.6.0: the RPC runtime and native fork"
//! in docs/harness-behaviour.md).
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

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use super::answers::{abort, rpc_failure};
use super::process::{RpcClient, RpcError, RpcProcess};
use super::protocol;
use super::session_files;
use super::state::{lock, RuntimeState};
use super::timeouts::{CLOSE_GRACE, REQUEST_TIMEOUT, STARTUP_TIMEOUT, STDERR_WAIT};
use super::tracker::Tracker;
use super::version::require_supported;
use crate::contract::{
    EventSender, NativeSession, OpenSpec, RuntimeEvent, SessionTarget, TurnOutcome,
};
use crate::{HarnessError, HarnessKind, HarnessResult};

pub use super::version::capabilities;

/// A live `pi --mode rpc` process attached to one thread.
pub struct PiRuntime {
    process: RpcProcess,
    client: RpcClient,
    state: Arc<RuntimeState>,
    events: EventSender,
    task: Option<JoinHandle<()>>,
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
        let mut launch = Launch::for_target(&spec.target, &spec.env)?;
        // Pi's own switch for project-local files (`.pi/` extensions, settings, prompts).
        match spec.trusted {
            Some(true) => launch.args.push("--approve".into()),
            Some(false) => launch.args.push("--no-approve".into()),
            None => {}
        }
        let (process, rx) =
            RpcProcess::spawn(&spec.binary, &launch.args, &launch.cwd, &spec.env, true).await?;
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
        Ok(PiRuntime::run(process, rx, session, launch.leaf, events))
    }

    /// A runtime over a process that already holds `session` (a warm spare that forked it,
    /// see [`super::spare`]), set up as [`PiRuntime::open`] sets up its own: `Session` first,
    /// then the event task from `leaf` (the session's last entry) on. What the process said
    /// before (the switch and the fork) is no part of the session's run and is dropped.
    pub(super) fn adopt(
        process: RpcProcess,
        mut rx: mpsc::UnboundedReceiver<Value>,
        session: NativeSession,
        leaf: Option<String>,
        events: EventSender,
    ) -> PiRuntime {
        while rx.try_recv().is_ok() {}
        process.ask_user();
        tracing::info!(
            pid = process.pid(),
            session_id = %session.session_id,
            "pi runtime adopted a warm spare's fork"
        );
        PiRuntime::run(process, rx, session, leaf, events)
    }

    fn run(
        process: RpcProcess,
        rx: mpsc::UnboundedReceiver<Value>,
        session: NativeSession,
        leaf: Option<String>,
        events: EventSender,
    ) -> PiRuntime {
        let client = process.client();
        let state = Arc::new(RuntimeState {
            busy: watch::Sender::new(false),
            dead: Mutex::new(None),
            closing: AtomicBool::new(false),
        });
        // Known from the first `get_state`; a Pi runtime never changes session.
        let _ = events.send(RuntimeEvent::Session { session });
        let tracker = Tracker {
            client: client.clone(),
            events: events.clone(),
            state: state.clone(),
            leaf,
            turn: None,
        };
        let task = tokio::spawn(tracker.run(rx));
        PiRuntime {
            process,
            client,
            state,
            events,
            task: Some(task),
        }
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
                        usage: None,
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

    /// The models Pi offers (`provider/id`).
    pub async fn models(&mut self) -> HarnessResult<Vec<String>> {
        self.check_alive().await?;
        super::models::available(&self.client).await
    }

    /// Uses `model` from the next turn on (recorded in the session); one Pi does not offer is
    /// `InvalidInput`, in words.
    pub async fn set_model(&mut self, model: &str) -> HarnessResult<bool> {
        self.check_alive().await?;
        super::models::set(&self.client, model).await?;
        Ok(true)
    }

    /// Stops the running turn (it ends with `Interrupted`) and returns once it has ended.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        abort(&self.client, &self.state).await
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
        rpc_failure(&self.client, &self.state, command, err).await
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
        if !session_files::same_file(expected, &file) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::PendingFork;
    use crate::HarnessBinary;
    use tokio::sync::mpsc;

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
            permissions: Default::default(),
            trusted: None,
            model: None,
        };
        assert!(matches!(
            PiRuntime::open(spec, tx).await.err(),
            Some(HarnessError::Unsupported(_))
        ));
    }
}
