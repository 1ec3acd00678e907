//! Claude Code's live runtime (see "Claude Code 2.1.197: the stream-json runtime and lazy
//! fork" in docs/harness-behaviour.md).
//!
//! One long-lived `claude -p --input-format stream-json --output-format stream-json --verbose`
//! process per session, in the session's cwd (the CLI scopes `--resume` to it). The session id
//! is always chosen here (`--session-id`), so a session's coordinates are known before the CLI
//! writes anything: it writes its transcript only once the first prompt arrives. A pending
//! fork ([`super::fork`]) materializes through this runtime, with its first prompt.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::approvals::permission_args;
use super::driver::{Driver, Phase, Shared};
use super::launch::{check_kind, plan};
use super::paths::AppendWatch;
use super::process;
use super::protocol;
use crate::contract::{EventSender, OpenSpec, PermissionMode, SessionTarget};
use crate::process::{Spawned, Tree};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// How long `send` waits for the CLI to start the turn (the first turn of a process loads the
/// session first).
const ACCEPT_TIMEOUT: Duration = Duration::from_secs(60);
/// How long `interrupt` waits for the turn to end before it kills the process.
const INTERRUPT_GRACE: Duration = Duration::from_secs(10);
/// How long a dying process gets to report its end.
const DEATH_WAIT: Duration = Duration::from_secs(5);
/// How long a live mode change may wait for the CLI's answer.
const MODE_REPLY_WAIT: Duration = Duration::from_secs(5);
/// `close`: after stdin closes, the CLI exits on its own within this; then SIGTERM, then
/// SIGKILL.
const CLOSE_GRACE: Duration = Duration::from_secs(5);
const TERM_GRACE: Duration = Duration::from_secs(2);

/// The stream-json flags of every runtime process.
const BASE_ARGS: [&str; 8] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--replay-user-messages",
    "--include-partial-messages",
];

/// A live `claude` process attached to one session.
pub struct ClaudeRuntime {
    shared: Arc<Shared>,
    phase: watch::Receiver<Phase>,
    pid: Option<u32>,
    tree: Tree,
    driver: Option<JoinHandle<()>>,
    requests: u64,
}

impl ClaudeRuntime {
    /// Starts the CLI for `spec.target`. Nothing is written to the session until [`send`].
    ///
    /// [`send`]: ClaudeRuntime::send
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Self> {
        check_kind(spec.binary.kind)?;
        let started = Instant::now();
        let permission = permission_args(&spec.permissions)?;
        let launch = plan(&spec).await?;
        let mut args: Vec<String> = BASE_ARGS.iter().map(|a| a.to_string()).collect();
        args.extend(permission);
        args.extend(super::trust::trust_args(spec.trusted, &launch.real_cwd));
        args.extend(launch.args);
        if let Some(model) = &spec.model {
            args.extend(["--model".to_owned(), model.clone()]);
        }
        let Spawned {
            mut child,
            tree,
            stderr,
        } = process::spawn(&spec.binary.path, &args, &launch.real_cwd, &spec.env)?;
        let pid = child.id();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(HarnessError::failed(
                HarnessKind::Claude,
                "the CLI's pipes were not captured",
                "",
            ));
        };
        let transcript = AppendWatch::from_end(launch.transcript);
        let session_id = launch.session.session_id.clone();
        let shared = Shared::new(launch.session, stderr, stdin);
        let driver =
            Driver::new(shared.clone(), events, transcript).start(child, stdout, tree.clone());
        tracing::info!(
            ?pid,
            %session_id,
            target = target_name(&spec.target),
            ms = started.elapsed().as_millis() as u64,
            "claude runtime started"
        );
        Ok(ClaudeRuntime {
            phase: shared.phase.subscribe(),
            shared,
            pid,
            tree,
            driver: Some(driver),
            requests: 0,
        })
    }

    /// Starts a turn. Returns once the CLI started it (its `init`), or with the typed error of
    /// a CLI that refused the session; the turn's events follow on the channel.
    pub async fn send(&mut self, prompt: &str) -> HarnessResult<()> {
        if prompt.trim().is_empty() {
            return Err(HarnessError::InvalidInput("an empty prompt".into()));
        }
        let turn_ref = uuid::Uuid::new_v4().to_string();
        self.claim_turn(&turn_ref)?;
        self.shared
            .interrupt_requested
            .store(false, Ordering::SeqCst);
        let started = Instant::now();
        self.write_line(&protocol::user_message(&turn_ref, prompt))
            .await?;
        let accepted = wait_phase(&mut self.phase, ACCEPT_TIMEOUT, |p| {
            !matches!(p, Phase::Starting { .. })
        })
        .await;
        match accepted {
            Some(Phase::Dead(death)) => Err(death.error(&self.session_id())),
            Some(_) => {
                tracing::debug!(%turn_ref, ms = started.elapsed().as_millis() as u64, "claude accepted a prompt");
                Ok(())
            }
            None => {
                // The turn may still start; its events will say so.
                tracing::warn!(%turn_ref, "claude did not start the turn in time");
                Ok(())
            }
        }
    }

    /// `Idle → Starting`, atomically with respect to the driver.
    fn claim_turn(&self, turn_ref: &str) -> HarnessResult<()> {
        let mut claimed = false;
        self.shared.phase.send_if_modified(|p| {
            if matches!(p, Phase::Idle) {
                *p = Phase::Starting {
                    turn_ref: turn_ref.to_owned(),
                };
                claimed = true;
            }
            claimed
        });
        if claimed {
            return Ok(());
        }
        match &*self.phase.borrow() {
            Phase::Dead(death) => Err(death.error(&self.session_id())),
            _ => Err(HarnessError::Busy(format!(
                "a turn is running in claude session {}",
                self.session_id()
            ))),
        }
    }

    /// Writes one protocol line. A CLI that is gone answers with why it went.
    async fn write_line(&mut self, line: &str) -> HarnessResult<()> {
        if self.shared.write_line(line).await {
            return Ok(());
        }
        // The pipe broke (or stalled): the driver will report the death shortly.
        let dead = wait_phase(&mut self.phase, DEATH_WAIT, |p| matches!(p, Phase::Dead(_))).await;
        if let Some(Phase::Dead(death)) = dead {
            return Err(death.error(&self.session_id()));
        }
        self.release_claim();
        Err(self.gone())
    }

    /// Gives back a turn claimed by `send` whose prompt never reached the CLI.
    fn release_claim(&self) {
        self.shared.phase.send_if_modified(|p| {
            let claimed = matches!(p, Phase::Starting { .. });
            if claimed {
                *p = Phase::Idle;
            }
            claimed
        });
    }

    fn gone(&self) -> HarnessError {
        HarnessError::failed(
            HarnessKind::Claude,
            "the claude process is gone",
            self.shared.stderr.text(),
        )
    }

    /// Stops the running turn through the `interrupt` control request; returns once the turn
    /// ended (`TurnEnded` with `Interrupted`). A CLI that does not stop in time is killed.
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        if !self.phase.borrow().in_turn() {
            return Ok(());
        }
        self.shared
            .interrupt_requested
            .store(true, Ordering::SeqCst);
        self.requests += 1;
        let request_id = format!("interrupt-{}", self.requests);
        let started = Instant::now();
        self.write_line(&protocol::interrupt_request(&request_id))
            .await?;
        let stopped = wait_phase(&mut self.phase, INTERRUPT_GRACE, |p| !p.in_turn()).await;
        if stopped.is_none() {
            tracing::warn!(pid = ?self.pid, "claude ignored an interrupt; killing it");
            self.kill_and_wait(DEATH_WAIT).await;
        }
        tracing::debug!(pid = ?self.pid, ms = started.elapsed().as_millis() as u64, "claude turn interrupted");
        Ok(())
    }

    /// Switches the running CLI to `mode` (`set_permission_mode`, what shift+tab does in its
    /// terminal UI), even mid-turn: `Ok(true)` once the CLI took it. `Ok(false)` when it did
    /// not (it refuses e.g. `bypassPermissions` unless started with it): the caller restarts
    /// the process with the new flags instead. A word Claude does not take is `InvalidInput`.
    pub async fn set_mode(&mut self, mode: &PermissionMode) -> HarnessResult<bool> {
        super::approvals::permission_args(mode)?;
        let word = mode.mode.as_deref().unwrap_or("default");
        self.requests += 1;
        let request_id = format!("mode-{}", self.requests);
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.shared
            .replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(request_id.clone(), tx);
        self.write_line(&protocol::set_mode_request(&request_id, word))
            .await?;
        match tokio::time::timeout(MODE_REPLY_WAIT, rx).await {
            Ok(Ok(None)) => {
                tracing::info!(pid = ?self.pid, mode = word, "claude permission mode changed live");
                Ok(true)
            }
            Ok(Ok(Some(error))) => {
                tracing::info!(pid = ?self.pid, mode = word, %error, "claude refused a live mode change");
                Ok(false)
            }
            _ => {
                self.shared
                    .replies
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .remove(&request_id);
                Ok(false)
            }
        }
    }

    /// Claude names no models here: any name is tried ([`ClaudeRuntime::set_model`]).
    pub async fn models(&mut self) -> HarnessResult<Vec<String>> {
        Ok(Vec::new())
    }

    /// Claude takes a model at its start only (`--model`): its live `set_model` control
    /// request writes a `/model` command message into the session, which the model then reads
    /// as a user turn (seen against the fake model). A name it does not know fails the turn in
    /// its words.
    pub async fn set_model(&mut self, model: &str) -> HarnessResult<bool> {
        let _ = model;
        Ok(false)
    }

    /// Ends the process: a running turn is interrupted, stdin is closed (the CLI then exits),
    /// and a process that lingers is sent SIGTERM, then SIGKILL (with its process tree).
    pub async fn close(mut self) -> HarnessResult<()> {
        self.shared.closing.store(true, Ordering::SeqCst);
        if self.phase.borrow().in_turn() {
            // Best effort: the kill below covers a CLI that does not answer.
            let _ = tokio::time::timeout(INTERRUPT_GRACE, self.interrupt()).await;
        }
        self.shared.close_stdin().await;
        let mut driver = self.driver.take();
        if !wait_driver(&mut driver, CLOSE_GRACE).await {
            tracing::warn!(pid = ?self.pid, "claude did not exit after stdin closed");
            self.tree.terminate();
            if !wait_driver(&mut driver, TERM_GRACE).await {
                self.tree.kill();
                wait_driver(&mut driver, DEATH_WAIT).await;
            }
        }
        self.pid = None;
        Ok(())
    }

    async fn kill_and_wait(&mut self, wait: Duration) {
        self.tree.kill();
        wait_phase(&mut self.phase, wait, |p| matches!(p, Phase::Dead(_))).await;
    }

    /// The CLI's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    fn session_id(&self) -> String {
        self.shared.session().session_id
    }
}

impl Drop for ClaudeRuntime {
    /// A runtime dropped without `close` takes its process tree with it.
    fn drop(&mut self) {
        if self.pid.is_some() && !matches!(*self.phase.borrow(), Phase::Dead(_)) {
            self.shared.closing.store(true, Ordering::SeqCst);
            self.tree.kill();
        }
    }
}

/// Waits up to `limit` for a phase that satisfies `done`; `None` on timeout.
async fn wait_phase(
    phase: &mut watch::Receiver<Phase>,
    limit: Duration,
    done: impl FnMut(&Phase) -> bool,
) -> Option<Phase> {
    let waited = tokio::time::timeout(limit, phase.wait_for(done))
        .await
        .ok()?
        .map(|p| p.clone());
    // The sender lives in `Shared`, which the runtime holds, so it is never dropped.
    Some(waited.unwrap_or_else(|_| phase.borrow().clone()))
}

/// Waits for the driver (the process's end) up to `limit`; true if it finished.
async fn wait_driver(driver: &mut Option<JoinHandle<()>>, limit: Duration) -> bool {
    let Some(handle) = driver.as_mut() else {
        return true;
    };
    if tokio::time::timeout(limit, handle).await.is_ok() {
        *driver = None;
        return true;
    }
    false
}

fn target_name(target: &SessionTarget) -> &'static str {
    match target {
        SessionTarget::New { .. } => "new",
        SessionTarget::Resume(_) => "resume",
        SessionTarget::PendingFork(p) if p.source.is_some() => "fork",
        SessionTarget::PendingFork(_) => "fork-fresh",
    }
}
