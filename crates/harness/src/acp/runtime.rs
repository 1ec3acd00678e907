//! An ACP agent's session as a [`LiveRuntime`]: a turn is one `session/prompt`, whose
//! updates stream as the Host's events and whose answer (its stop reason and usage) ends it;
//! Stop is `session/cancel`; a mode is `session/set_mode`.
//!
//! **The snapshot chain.** ACP forks a session only at its head (`session/fork`). So that Fork
//! works at every message, a runtime whose agent offers `session/fork` copies the session once
//! after each completed turn, unprompted, and that copy's id is the turn's native checkpoint
//! (`TurnEnded.native_checkpoint_ref`): a fork after turn k copies snapshot k again
//! ([`super::fork`]), leaving the snapshot as it was for the next fork. A snapshot that fails
//! leaves the turn without a checkpoint (Fork there says why); the turn itself stands.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::agent::{AgentProcess, Caller, Sink, CALL_LIMIT};
use super::updates;
use super::AgentCommand;
use crate::contract::{EventSender, PermissionMode, RuntimeEvent, TurnOutcome};
use crate::error::{HarnessError, HarnessResult};

/// How long one turn may run before it is taken as hung (an agent working through a long task
/// is not; a day is).
const TURN_LIMIT: Duration = Duration::from_secs(24 * 60 * 60);

/// Which session a runtime opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcpTarget {
    /// A new session in `cwd`.
    New { cwd: PathBuf },
    /// A stored session, opened again exactly (never a silent new one).
    Resume { session_id: String, cwd: PathBuf },
}

/// A running agent attached to one of its sessions.
pub struct AcpRuntime {
    process: AgentProcess,
    session_id: String,
    cwd: PathBuf,
    events: EventSender,
    running: Arc<AtomicBool>,
}

impl AcpRuntime {
    /// Starts `agent` (as `program`, with `env` added) and opens `target` in it.
    pub async fn open(
        agent: &AgentCommand,
        program: &Path,
        target: AcpTarget,
        env: &[(String, String)],
        events: EventSender,
    ) -> HarnessResult<AcpRuntime> {
        let cwd = match &target {
            AcpTarget::New { cwd } | AcpTarget::Resume { cwd, .. } => cwd.clone(),
        };
        let process = AgentProcess::start(agent, program, &cwd, env).await?;
        let session_id = match target {
            AcpTarget::New { .. } => process.new_session(&cwd).await?,
            AcpTarget::Resume { session_id, .. } => {
                process.open_session(&session_id, &cwd).await?;
                session_id
            }
        };
        tracing::info!(agent = %agent.name, pid = process.pid(), "acp session open");
        Ok(AcpRuntime::adopt(process, session_id, cwd, events))
    }

    /// The runtime of session `session_id`, already open in `process` (a warm spare's fork):
    /// its updates go to `events` from now on.
    pub(super) fn adopt(
        process: AgentProcess,
        session_id: String,
        cwd: PathBuf,
        events: EventSender,
    ) -> AcpRuntime {
        process.point(Sink::Live {
            session: session_id.clone(),
            events: events.clone(),
        });
        AcpRuntime {
            process,
            session_id,
            cwd,
            events,
            running: Arc::default(),
        }
    }

    /// The agent's id for the session this runtime runs.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Whether the agent copies sessions, so each completed turn gets a snapshot.
    pub fn snapshots(&self) -> bool {
        self.process.offers.fork
    }

    /// Starts a turn with `prompt`; its events follow, ending with `TurnEnded`.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        if self.process.has_exited() {
            return Err(super::agent::failed(
                &self.process.product,
                "is no longer running".into(),
                String::new(),
            ));
        }
        if self.running.swap(true, Ordering::SeqCst) {
            return Err(HarnessError::Busy(format!(
                "a {} turn is running",
                self.process.product
            )));
        }
        let _ = self.events.send(RuntimeEvent::TurnStarted {
            native_turn_ref: None,
        });
        let turn = Turn {
            caller: self.process.caller(),
            session: self.session_id.clone(),
            cwd: self.cwd.clone(),
            snapshots: self.snapshots(),
            events: self.events.clone(),
            running: self.running.clone(),
        };
        let prompt = json!([{ "type": "text", "text": prompt }]);
        tokio::spawn(turn.run(prompt));
        Ok(())
    }

    /// Stops the running turn; it ends as interrupted when the agent answers.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        if !self.running.load(Ordering::SeqCst) {
            return Ok(());
        }
        self.process.cancel(&self.session_id).await
    }

    /// Takes mode `mode.mode` (one of the agent's session modes) from now on.
    pub async fn set_mode(&mut self, mode: &PermissionMode) -> HarnessResult<bool> {
        let Some(mode_id) = mode.mode.as_deref() else {
            return Ok(true);
        };
        self.process
            .call(
                "session/set_mode",
                json!({"sessionId": self.session_id, "modeId": mode_id}),
                CALL_LIMIT,
            )
            .await
            .map_err(|err| match err {
                HarnessError::AgentFailed { message, .. } => HarnessError::InvalidInput(format!(
                    "{} did not take mode {mode_id:?}: {message}",
                    self.process.product
                )),
                other => other,
            })?;
        Ok(true)
    }

    /// Ends the agent's process (a turn still running ends with it).
    pub async fn close(self) -> HarnessResult<()> {
        self.process.close(Duration::from_secs(3)).await;
        Ok(())
    }

    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }
}

crate::contract::live_runtime!(AcpRuntime, modes);

/// One running turn, on a task of its own: the prompt's answer ends it.
struct Turn {
    caller: Caller,
    session: String,
    cwd: PathBuf,
    snapshots: bool,
    events: EventSender,
    running: Arc<AtomicBool>,
}

impl Turn {
    async fn run(self, prompt: Value) {
        let answer = self
            .caller
            .call(
                "session/prompt",
                json!({"sessionId": self.session, "prompt": prompt}),
                TURN_LIMIT,
            )
            .await;
        let (outcome, usage) = match &answer {
            Ok(answer) => (outcome_of(answer), updates::prompt_usage(answer)),
            Err(err) => (
                TurnOutcome::Failed {
                    message: err.to_string(),
                },
                None,
            ),
        };
        let checkpoint = match (&outcome, self.snapshots) {
            (TurnOutcome::Completed, true) => self.snapshot().await,
            _ => None,
        };
        self.running.store(false, Ordering::SeqCst);
        let _ = self.events.send(RuntimeEvent::TurnEnded {
            native_turn_ref: None,
            native_checkpoint_ref: checkpoint,
            outcome,
            usage,
        });
    }

    /// The turn's snapshot: a copy of the session as the turn left it.
    async fn snapshot(&self) -> Option<String> {
        let started = Instant::now();
        let copied = self
            .caller
            .call(
                "session/fork",
                json!({"sessionId": self.session, "cwd": self.cwd, "mcpServers": []}),
                CALL_LIMIT,
            )
            .await;
        let ms = started.elapsed().as_millis() as u64;
        match copied.map(|a| {
            a.get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        }) {
            Ok(Some(id)) => {
                tracing::info!(ms, "acp turn snapshot");
                Some(id)
            }
            Ok(None) => {
                tracing::warn!(ms, "acp snapshot answered without a session id");
                None
            }
            Err(err) => {
                tracing::warn!(ms, error = %err, "acp snapshot failed: the turn has no checkpoint");
                None
            }
        }
    }
}

/// The turn's outcome from `session/prompt`'s stop reason.
fn outcome_of(answer: &Value) -> TurnOutcome {
    match answer.get("stopReason").and_then(Value::as_str) {
        Some("cancelled") => TurnOutcome::Interrupted,
        Some("refusal") => TurnOutcome::Failed {
            message: "the agent refused to go on".into(),
        },
        // end_turn, max_tokens, max_turn_requests: the turn is over and its reply stands.
        _ => TurnOutcome::Completed,
    }
}
