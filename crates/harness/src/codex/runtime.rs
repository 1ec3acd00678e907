//! Codex's live runtime: one `codex app-server` (stdio JSON-RPC) per live thread, and the
//! version gate for its native fork (the fork itself is in `native_fork.rs`).
//!
//! Coordinates match the rollout reader ([`super::history`]): a turn's native turn ref and
//! native checkpoint ref are both its Codex turn id, which `turn/started` and `turn/completed`
//! carry, so a `TurnEnded` names exactly the anchor the reader will index for that turn.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::app_server::{AppServer, Incoming, Launch, Replies};
use super::approvals;
use super::events::event_pump;
use super::find_rollout;
use super::protocol::{
    self, params, thread_of, to_harness_error, ThreadResumeParams, ThreadStartParams,
    TurnInterruptParams, TurnStartParams, UserInput, REQUEST_TIMEOUT,
};
use super::state::State;
use crate::contract::{
    at_least, forks_at_turns, no_fork, EventSender, NativeSession, OpenSpec, PermissionMode,
    RuntimeEvent, SessionTarget, Version,
};
use crate::{Capabilities, HarnessError, HarnessKind, HarnessResult};

/// The first Codex version whose `thread/fork` was verified to cut at turn ids
/// (`lastTurnId` inclusive, experimental `beforeTurnId` exclusive) and leave the source
/// untouched: the version this crate's tests ran ("Codex 0.171.0: the app-server runtime and
/// eager fork" in docs/harness-behaviour.md). Older versions may have it too, but an
/// unverified fork could be a wrong one, so they get none.
pub const MIN_FORK_VERSION: Version = (0, 171, 0);

/// How long a closing app-server may take to leave after its stdin closed.
const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// How long `interrupt` waits for the interrupted turn to report its end.
const INTERRUPT_WAIT: Duration = Duration::from_secs(15);

/// What this Codex version can fork.
pub fn capabilities(version: &str) -> Capabilities {
    if at_least(version, MIN_FORK_VERSION) {
        return forks_at_turns(true);
    }
    let (a, b, c) = MIN_FORK_VERSION;
    no_fork(
        true,
        format!(
            "codex {version} is older than {a}.{b}.{c}, the first version whose turn-level \
             thread/fork Forkhost verified; update Codex to fork"
        ),
    )
}

/// A live Codex thread in its own `codex app-server`.
pub struct CodexRuntime {
    server: Option<AppServer>,
    session: NativeSession,
    state: watch::Sender<State>,
    /// A mode chosen since the thread started: sent with the next turns.
    mode_change: Option<PermissionMode>,
    /// A model chosen since the thread started: sent with the next turns.
    model: Option<String>,
    /// Which words the process holds an explicit value for (from `thread/start`, `resume`,
    /// `fork` or a `turn/start` override) rather than `config.toml`'s. Such a word going back
    /// to the default must be sent as config's value: `turn/start` overrides stick "for this
    /// turn and subsequent turns", and omitting a word keeps the last one (review M7).
    explicit: Explicit,
}

/// See [`CodexRuntime::explicit`].
#[derive(Debug, Clone, Copy, Default)]
struct Explicit {
    policy: bool,
    sandbox: bool,
}

impl Explicit {
    fn of(mode: &PermissionMode) -> Explicit {
        Explicit {
            policy: mode.mode.is_some(),
            sandbox: mode.sandbox.is_some(),
        }
    }
}

impl CodexRuntime {
    /// Spawns the app-server and starts or resumes the thread with `spec.permissions` (its
    /// approval policy and sandbox; a word Codex does not take is `InvalidInput` before
    /// anything starts). A resumed thread must exist: an unknown one is `SessionNotFound`,
    /// never a silent new thread.
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Self> {
        let started = Instant::now();
        check_permissions(&spec.permissions)?;
        let (cwd, resume) = target_of(&spec.target)?;
        let state = watch::Sender::new(State::default());
        let replies = Replies::default();
        let handler = event_pump(state.clone(), replies.clone(), events.clone());
        let launch = Launch {
            binary: &spec.binary,
            cwd: cwd.is_dir().then_some(cwd.as_path()),
            env: &spec.env,
            args: super::trust::trust_args(spec.trusted, &cwd)?,
        };
        let server = AppServer::spawn(launch, handler)?;
        server.answer_through(&replies);
        let opened = start_thread(&server, &cwd, resume.as_ref(), &spec.permissions).await;
        let session = match opened {
            Ok(session) => session,
            Err(err) => {
                server.close(CLOSE_GRACE).await;
                return Err(err);
            }
        };
        state.send_modify(|s| s.thread_id = Some(session.session_id.clone()));
        tracing::info!(
            thread = %session.session_id,
            resumed = resume.is_some(),
            pid = server.pid(),
            ms = started.elapsed().as_millis() as u64,
            "codex runtime open"
        );
        let _ = events.send(RuntimeEvent::Session {
            session: session.clone(),
        });
        Ok(CodexRuntime {
            server: Some(server),
            session,
            state,
            mode_change: None,
            model: spec.model.clone(),
            explicit: Explicit::of(&spec.permissions),
        })
    }

    /// A runtime over a server that already holds `session` (a warm spare that forked it):
    /// the server's messages, buffered in `incoming` since it started, now feed the events.
    pub(crate) fn adopt(
        server: AppServer,
        mut incoming: tokio::sync::mpsc::UnboundedReceiver<Incoming>,
        session: NativeSession,
        events: EventSender,
    ) -> CodexRuntime {
        let state = watch::Sender::new(State::default());
        state.send_modify(|s| s.thread_id = Some(session.session_id.clone()));
        let replies = Replies::default();
        server.answer_through(&replies);
        let mut handler = event_pump(state.clone(), replies, events.clone());
        tokio::spawn(async move {
            while let Some(message) = incoming.recv().await {
                handler(message);
            }
        });
        tracing::info!(thread = %session.session_id, pid = server.pid(), "codex runtime adopted a forked thread");
        let _ = events.send(RuntimeEvent::Session {
            session: session.clone(),
        });
        CodexRuntime {
            server: Some(server),
            session,
            state,
            mode_change: None,
            model: None,
            // The spare forked with the source's words, which this runtime is not told: as if
            // both were set, so a change back to the default sends config.toml's explicitly.
            explicit: Explicit {
                policy: true,
                sandbox: true,
            },
        }
    }

    /// Takes a new approval policy and sandbox from the next turn on (`turn/start`'s
    /// overrides), with no restart; a turn already running keeps its own.
    ///
    /// A word going back to the harness default (`None`) while the process holds an explicit
    /// value for it is sent as `config.toml`'s value (`config/read` for the thread's folder):
    /// an override sticks "for this turn and subsequent turns", so leaving the word out would
    /// keep the old one, and a restart would not help either (`thread/resume` without the word
    /// keeps the thread's last one; `host_modes` shows both). A config that names no value
    /// gets the strictest word (`untrusted`, `read-only`): never looser than what the user
    /// left (review M7).
    pub async fn set_mode(&mut self, mode: &PermissionMode) -> HarnessResult<bool> {
        check_permissions(mode)?;
        let mut change = mode.clone();
        let policy_back = self.explicit.policy && mode.mode.is_none();
        let sandbox_back = self.explicit.sandbox && mode.sandbox.is_none();
        if policy_back || sandbox_back {
            let configured = self.configured().await?;
            if policy_back {
                change.mode = Some(configured.mode.unwrap_or_else(|| "untrusted".into()));
            }
            if sandbox_back {
                change.sandbox = Some(configured.sandbox.unwrap_or_else(|| "read-only".into()));
            }
            tracing::info!(
                thread = %self.session.session_id,
                policy = ?change.mode,
                sandbox = ?change.sandbox,
                "codex mode back to the configured default"
            );
        }
        let now = Explicit::of(&change);
        self.explicit.policy |= now.policy;
        self.explicit.sandbox |= now.sandbox;
        self.mode_change = Some(change);
        Ok(true)
    }

    /// The models `model/list` reports (their ids).
    pub async fn models(&mut self) -> HarnessResult<Vec<String>> {
        let server = self.live()?;
        let listed = server
            .request("model/list", serde_json::json!({}), REQUEST_TIMEOUT)
            .await
            .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
        Ok(listed
            .get("data")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("model").or_else(|| m.get("id"))?.as_str())
            .map(str::to_owned)
            .collect())
    }

    /// Sends `model` with the next turns (`turn/start`'s override, which sticks). Codex's
    /// provider refuses a name it does not know when the turn starts, in its own words.
    pub async fn set_model(&mut self, model: &str) -> HarnessResult<bool> {
        self.live()?;
        self.model = Some(model.to_owned());
        Ok(true)
    }

    async fn configured(&self) -> HarnessResult<PermissionMode> {
        configured_in(self.live()?, &self.session.cwd).await
    }

    /// Starts a turn. `Busy` while one runs; `HarnessFailed` (with the stderr tail) once the
    /// process has died.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        let server = self.live()?;
        let mut busy = false;
        self.state.send_modify(|s| {
            busy = s.running;
            if !busy {
                s.running = true;
                s.turn_id = None;
            }
        });
        if busy {
            return Err(HarnessError::Busy(format!(
                "a turn is running in codex thread {}",
                self.session.session_id
            )));
        }
        let change = self.mode_change.as_ref();
        let request = TurnStartParams {
            thread_id: self.session.session_id.clone(),
            input: vec![UserInput::text(prompt)],
            approval_policy: change.and_then(|m| m.mode.clone()),
            sandbox_policy: change
                .and_then(|m| m.sandbox.as_deref())
                .and_then(protocol::sandbox_policy),
            model: self.model.clone(),
        };
        let result = server
            .request("turn/start", params(&request), REQUEST_TIMEOUT)
            .await;
        match result {
            Ok(result) => {
                let turn_id = protocol::turn_id_of(&result);
                // `turn/started` may have set it already, or the turn may even be over.
                self.state.send_modify(|s| {
                    if s.running && s.turn_id.is_none() {
                        s.turn_id = turn_id.clone();
                    }
                });
                tracing::debug!(thread = %self.session.session_id, turn = ?turn_id, "codex turn started");
                Ok(())
            }
            Err(failure) => {
                self.state.send_modify(|s| s.running = false);
                Err(self
                    .dead_error()
                    .unwrap_or_else(|| to_harness_error(failure, &server.stderr_tail())))
            }
        }
    }

    /// Interrupts the running turn and waits until it has ended (`TurnEnded` with
    /// `Interrupted`), so the next `send` is accepted. Without a running turn it does nothing.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        let server = self.live()?;
        let current = self.state.borrow().clone();
        let (true, Some(turn_id)) = (current.running, current.turn_id) else {
            return Ok(());
        };
        let request = TurnInterruptParams {
            thread_id: self.session.session_id.clone(),
            turn_id,
        };
        let answer = server
            .request("turn/interrupt", params(&request), REQUEST_TIMEOUT)
            .await;
        if let Err(failure) = answer {
            // "no active turn to interrupt": it ended on its own meanwhile.
            let ended = !self.state.borrow().running;
            if !ended {
                return Err(to_harness_error(failure, &server.stderr_tail()));
            }
        }
        let mut rx = self.state.subscribe();
        let waited = tokio::time::timeout(
            INTERRUPT_WAIT,
            rx.wait_for(|s| !s.running || s.dead.is_some()),
        )
        .await;
        if waited.is_err() {
            return Err(HarnessError::failed(
                HarnessKind::Codex,
                format!("the interrupted turn did not end within {INTERRUPT_WAIT:?}"),
                server.stderr_tail(),
            ));
        }
        self.dead_error().map_or(Ok(()), Err)
    }

    /// Ends the process: a running turn is interrupted first (so the rollout records its
    /// end), then stdin is closed; after a grace period the process group is killed.
    pub async fn close(mut self) -> HarnessResult<()> {
        let Some(server) = self.server.take() else {
            return Ok(());
        };
        let current = self.state.borrow().clone();
        if let (true, Some(turn_id), None) = (current.running, current.turn_id, &current.dead) {
            let request = TurnInterruptParams {
                thread_id: self.session.session_id.clone(),
                turn_id,
            };
            let _ = server
                .request("turn/interrupt", params(&request), Duration::from_secs(2))
                .await;
            let mut rx = self.state.subscribe();
            let _ = tokio::time::timeout(Duration::from_secs(2), rx.wait_for(|s| !s.running)).await;
        }
        server.close(CLOSE_GRACE).await;
        tracing::info!(thread = %self.session.session_id, "codex runtime closed");
        Ok(())
    }

    /// The app-server's process id (it leads its own process group), while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.server.as_ref().and_then(AppServer::pid)
    }

    fn live(&self) -> HarnessResult<&AppServer> {
        if let Some(err) = self.dead_error() {
            return Err(err);
        }
        self.server
            .as_ref()
            .ok_or_else(|| HarnessError::failed(HarnessKind::Codex, "the runtime is closed", ""))
    }

    fn dead_error(&self) -> Option<HarnessError> {
        let dead = self.state.borrow().dead.clone()?;
        Some(HarnessError::failed(HarnessKind::Codex, dead.0, dead.1))
    }
}

/// The directory to run in, and the thread to resume (if any).
fn target_of(target: &SessionTarget) -> HarnessResult<(PathBuf, Option<NativeSession>)> {
    match target {
        SessionTarget::New { cwd } => {
            if !cwd.is_dir() {
                return Err(HarnessError::InvalidInput(format!(
                    "the working directory {} does not exist",
                    cwd.display()
                )));
            }
            Ok((cwd.clone(), None))
        }
        SessionTarget::Resume(session) => {
            check_session(session)?;
            Ok((session.cwd.clone(), Some(session.clone())))
        }
        SessionTarget::PendingFork(_) => Err(HarnessError::InvalidInput(
            "codex forks are eager: open the fork's session with Resume".into(),
        )),
    }
}

/// A Codex session whose rollout we were told about must still be there; without a path the
/// app-server itself answers "no rollout found" for an unknown id.
pub(crate) fn check_session(session: &NativeSession) -> HarnessResult<()> {
    if session.kind != HarnessKind::Codex {
        return Err(HarnessError::InvalidInput(format!(
            "a {} session cannot be opened by codex",
            session.kind
        )));
    }
    match &session.path {
        Some(path) if !path.is_file() => Err(HarnessError::SessionNotFound(format!(
            "codex thread {}: {} does not exist",
            session.session_id,
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Codex takes only its own approval policies and sandboxes.
fn check_permissions(mode: &PermissionMode) -> HarnessResult<()> {
    if approvals::CHOICES.accepts(mode) {
        return Ok(());
    }
    let choices = approvals::CHOICES;
    Err(HarnessError::InvalidInput(format!(
        "codex takes the approval policy {:?} and the sandbox {:?}, not {:?} / {:?}",
        choices.modes, choices.sandboxes, mode.mode, mode.sandbox
    )))
}

/// `config.toml`'s approval policy and sandbox as the server resolves them for `cwd` (project
/// layers included); a word Forkhost does not offer (a granular policy object, a retired word)
/// or none at all is `None`.
async fn configured_in(server: &AppServer, cwd: &Path) -> HarnessResult<PermissionMode> {
    let request = serde_json::json!({ "cwd": cwd.to_string_lossy() });
    let result = server
        .request("config/read", request, REQUEST_TIMEOUT)
        .await
        .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    let word = |key: &str, choices: &[&str]| {
        result
            .pointer(&format!("/config/{key}"))
            .and_then(|v| v.as_str())
            .filter(|w| choices.contains(w))
            .map(str::to_owned)
    };
    Ok(PermissionMode {
        mode: word("approval_policy", approvals::CHOICES.modes),
        sandbox: word("sandbox_mode", approvals::CHOICES.sandboxes),
    })
}

/// Handshake, then `thread/start` or `thread/resume`, with the approval policy and sandbox.
async fn start_thread(
    server: &AppServer,
    cwd: &Path,
    resume: Option<&NativeSession>,
    permissions: &PermissionMode,
) -> HarnessResult<NativeSession> {
    let codex_home = protocol::initialize(server, false).await?;
    let mut approval_policy = permissions.mode.clone();
    let mut sandbox = permissions.sandbox.clone();
    if resume.is_some() && (approval_policy.is_none() || sandbox.is_none()) {
        // `thread/resume` without a word keeps the thread's last one (an override from an
        // earlier mode), not config.toml's: the default is sent as config's value when it
        // names one (review M7).
        // Best effort: a Codex without `config/read` still resumes, as before.
        match configured_in(server, cwd).await {
            Ok(configured) => {
                approval_policy = approval_policy.or(configured.mode);
                sandbox = sandbox.or(configured.sandbox);
            }
            // Its words may carry the server's stderr: not for the log.
            Err(_) => {
                tracing::warn!("codex config/read failed; resuming with the thread's last mode")
            }
        }
    }
    let (method, request) = match resume {
        None => (
            "thread/start",
            params(&ThreadStartParams {
                cwd: cwd.to_string_lossy().into_owned(),
                approval_policy,
                sandbox,
            }),
        ),
        Some(session) => (
            "thread/resume",
            params(&ThreadResumeParams {
                thread_id: session.session_id.clone(),
                exclude_turns: true,
                approval_policy,
                sandbox,
            }),
        ),
    };
    let result = server
        .request(method, request, REQUEST_TIMEOUT)
        .await
        .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    let thread = thread_of(&result)?;
    let path = rollout_path(&thread, codex_home.as_deref())
        .or_else(|| resume.and_then(|s| s.path.clone()));
    Ok(NativeSession {
        kind: HarnessKind::Codex,
        session_id: thread.id,
        path,
        cwd: thread.cwd.unwrap_or_else(|| cwd.to_owned()),
    })
}

/// The thread's rollout: as the server reported it, else looked up under `$CODEX_HOME`.
/// A new thread's file appears only with its first turn, so the reported path may not exist
/// yet.
pub(crate) fn rollout_path(
    thread: &protocol::ThreadInfo,
    codex_home: Option<&Path>,
) -> Option<PathBuf> {
    thread
        .path
        .clone()
        .filter(|p| p.is_absolute())
        .or_else(|| find_rollout(&codex_home?.join("sessions"), &thread.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_below_the_verified_one_cannot_fork() {
        let ok = capabilities("0.171.0");
        assert_eq!(ok.boundaries, vec!["after", "before", "latest"]);
        assert_eq!(ok.granularity, "turn");
        assert!(ok.eager_fork && ok.note.is_none());
        assert_eq!(capabilities("1.0.3").boundaries.len(), 3);
        let old = capabilities("0.170.9");
        assert!(old.boundaries.is_empty());
        assert!(old.note.unwrap().contains("0.171.0"));
        assert!(capabilities("garbage").boundaries.is_empty());
    }

    #[test]
    fn a_pending_fork_or_a_missing_rollout_is_refused_before_spawning() {
        let session = NativeSession {
            kind: HarnessKind::Codex,
            session_id: "019a0000-0000-7000-8000-000000000000".into(),
            path: Some("/nonexistent/forkhost/rollout.jsonl".into()),
            cwd: "/".into(),
        };
        assert!(matches!(
            target_of(&SessionTarget::Resume(session.clone())),
            Err(HarnessError::SessionNotFound(_))
        ));
        let pending = crate::PendingFork {
            source: None,
            session,
            resume_at: None,
        };
        assert!(matches!(
            target_of(&SessionTarget::PendingFork(pending)),
            Err(HarnessError::InvalidInput(_))
        ));
    }
}
