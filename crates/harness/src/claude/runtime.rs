//! Claude Code's live runtime and native fork (harness notes §7, §9).
//!
//! One long-lived `claude -p --input-format stream-json --output-format stream-json --verbose`
//! process per session, in the session's cwd (the CLI scopes `--resume` to it). The session id
//! is always chosen here (`--session-id`), so a session's coordinates are known before the CLI
//! writes anything: it writes its transcript only once the first prompt arrives.
//!
//! Forks are lazy: [`fork`] validates the cut and mints the fork's id and path without running
//! anything; the fork's native session appears with its first prompt, through a runtime opened
//! on [`SessionTarget::PendingFork`] (`--resume SRC --fork-session --session-id NEW
//! --resume-session-at CHECKPOINT`). The CLI copies the source's records up to the checkpoint
//! into the new file and never writes the source.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::driver::{Driver, Phase, Shared};
use super::paths::{self, AppendWatch};
use super::process;
use super::protocol;
use crate::contract::version_triple;
use crate::contract::{
    Cut, EventSender, ForkRequest, Forked, NativeSession, OpenSpec, PendingFork, SessionTarget,
};
use crate::process::{Spawned, Tree};
use crate::{Capabilities, HarnessBinary, HarnessError, HarnessKind, HarnessResult, TurnAnchor};

/// The version whose fork path (`--fork-session --session-id --resume-session-at` in
/// stream-json mode, the `interrupt` control request, client-chosen prompt uuids) was verified;
/// `--resume-session-at` is a hidden flag, so older versions get no fork rather than a guess.
pub(super) const MIN_VERSION: (u64, u64, u64) = (2, 1, 197);

/// How long `send` waits for the CLI to start the turn (the first turn of a process loads the
/// session first).
const ACCEPT_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a write to the CLI's stdin may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `interrupt` waits for the turn to end before it kills the process.
const INTERRUPT_GRACE: Duration = Duration::from_secs(10);
/// How long a dying process gets to report its end.
const DEATH_WAIT: Duration = Duration::from_secs(5);
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
    stdin: Option<ChildStdin>,
    pid: Option<u32>,
    tree: Tree,
    driver: Option<JoinHandle<()>>,
    requests: u64,
}

/// What to run for a target.
struct Launch {
    args: Vec<String>,
    /// The session's coordinates; its `path` is always set.
    session: NativeSession,
    /// The transcript (it may not exist yet).
    transcript: PathBuf,
    real_cwd: PathBuf,
}

impl Launch {
    fn new(
        args: Vec<String>,
        session: NativeSession,
        transcript: PathBuf,
        real_cwd: PathBuf,
    ) -> Self {
        Launch {
            args,
            session: NativeSession {
                path: Some(transcript.clone()),
                ..session
            },
            transcript,
            real_cwd,
        }
    }
}

impl ClaudeRuntime {
    /// Starts the CLI for `spec.target`. Nothing is written to the session until [`send`].
    ///
    /// [`send`]: ClaudeRuntime::send
    pub async fn open(spec: OpenSpec, events: EventSender) -> HarnessResult<Self> {
        check_kind(spec.binary.kind)?;
        let started = Instant::now();
        let launch = plan(&spec).await?;
        let mut args: Vec<String> = BASE_ARGS.iter().map(|a| a.to_string()).collect();
        args.extend(launch.args);
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
        let shared = Shared::new(launch.session, stderr);
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
            stdin: Some(stdin),
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
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.gone());
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let write = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(WRITE_TIMEOUT, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) | Err(_) => {
                // The pipe broke (or stalled): the driver will report the death shortly.
                let dead =
                    wait_phase(&mut self.phase, DEATH_WAIT, |p| matches!(p, Phase::Dead(_))).await;
                if let Some(Phase::Dead(death)) = dead {
                    return Err(death.error(&self.session_id()));
                }
                self.release_claim();
                Err(self.gone())
            }
        }
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

    /// Ends the process: a running turn is interrupted, stdin is closed (the CLI then exits),
    /// and a process that lingers is sent SIGTERM, then SIGKILL (with its process tree).
    pub async fn close(mut self) -> HarnessResult<()> {
        self.shared.closing.store(true, Ordering::SeqCst);
        if self.phase.borrow().in_turn() {
            // Best effort: the kill below covers a CLI that does not answer.
            let _ = tokio::time::timeout(INTERRUPT_GRACE, self.interrupt()).await;
        }
        drop(self.stdin.take());
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

    /// The session's coordinates (known from the start: the id is chosen here).
    pub fn session(&self) -> Option<NativeSession> {
        Some(self.shared.session())
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

fn check_kind(kind: HarnessKind) -> HarnessResult<()> {
    if kind == HarnessKind::Claude {
        Ok(())
    } else {
        Err(HarnessError::InvalidInput(format!(
            "a {kind} session given to the claude runtime"
        )))
    }
}

/// The session id must be a uuid: anything else, `--resume` would take as a session title.
fn check_session_id(id: &str) -> HarnessResult<()> {
    uuid::Uuid::parse_str(id)
        .map(|_| ())
        .map_err(|_| HarnessError::InvalidInput(format!("not a claude session id: {id:?}")))
}

/// The transcript of `session`: its recorded path, else where the CLI keeps it.
fn transcript_of(session: &NativeSession, env: &[(String, String)]) -> HarnessResult<PathBuf> {
    if let Some(path) = &session.path {
        return Ok(path.clone());
    }
    let config = paths::config_dir(env)?;
    Ok(paths::session_path(
        &config,
        &paths::real_cwd(&session.cwd)?,
        &session.session_id,
    ))
}

fn require_file(path: &std::path::Path, session_id: &str) -> HarnessResult<()> {
    if path.is_file() {
        Ok(())
    } else {
        Err(HarnessError::SessionNotFound(format!(
            "claude session {session_id} (no transcript at {})",
            path.display()
        )))
    }
}

/// Whether the source transcript holds `uuid` as a message record (off the async threads: a
/// transcript can be large).
async fn require_checkpoint(path: PathBuf, uuid: String) -> HarnessResult<()> {
    let (found, uuid) = tokio::task::spawn_blocking(move || {
        let found = paths::has_message_record(&path, &uuid);
        (found, uuid)
    })
    .await
    .map_err(|err| {
        HarnessError::failed(HarnessKind::Claude, format!("checkpoint scan: {err}"), "")
    })?;
    match found {
        Ok(true) => Ok(()),
        Ok(false) => Err(HarnessError::CheckpointNotFound(format!(
            "no message {uuid} in the source transcript"
        ))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(
            HarnessError::SessionNotFound(format!("the source transcript is gone: {err}")),
        ),
        Err(err) => Err(HarnessError::failed(
            HarnessKind::Claude,
            format!("reading the source transcript: {err}"),
            "",
        )),
    }
}

/// The CLI flags and the session's coordinates for a target, after checking that what it
/// names exists (the CLI would only say so once started).
async fn plan(spec: &OpenSpec) -> HarnessResult<Launch> {
    let config = paths::config_dir(&spec.env)?;
    match &spec.target {
        SessionTarget::New { cwd } => {
            let real_cwd = paths::real_cwd(cwd)?;
            let id = uuid::Uuid::new_v4().to_string();
            let transcript = paths::session_path(&config, &real_cwd, &id);
            let session = NativeSession {
                kind: HarnessKind::Claude,
                path: None,
                session_id: id.clone(),
                cwd: cwd.clone(),
            };
            Ok(Launch::new(
                vec!["--session-id".into(), id],
                session,
                transcript,
                real_cwd,
            ))
        }
        SessionTarget::Resume(session) => plan_resume(session, &spec.env),
        SessionTarget::PendingFork(pending) => plan_fork(spec, pending, &config).await,
    }
}

fn plan_resume(session: &NativeSession, env: &[(String, String)]) -> HarnessResult<Launch> {
    check_kind(session.kind)?;
    check_session_id(&session.session_id)?;
    let real_cwd = paths::real_cwd(&session.cwd)?;
    let path = transcript_of(session, env)?;
    require_file(&path, &session.session_id)?;
    Ok(Launch::new(
        vec!["--resume".into(), session.session_id.clone()],
        session.clone(),
        path,
        real_cwd,
    ))
}

async fn plan_fork(
    spec: &OpenSpec,
    pending: &PendingFork,
    config: &std::path::Path,
) -> HarnessResult<Launch> {
    let fork = &pending.session;
    check_kind(fork.kind)?;
    check_session_id(&fork.session_id)?;
    let real_cwd = paths::real_cwd(&fork.cwd)?;
    let path = match &fork.path {
        Some(path) => path.clone(),
        None => paths::session_path(config, &real_cwd, &fork.session_id),
    };
    if path.is_file() {
        // The fork materialized already (its first prompt ran, and the host did not get to
        // record it): it is an ordinary session now.
        tracing::info!(session_id = %fork.session_id, "claude pending fork exists already; resuming it");
        return plan_resume(fork, &spec.env);
    }
    let mut args = Vec::new();
    if let Some(source) = &pending.source {
        require_fork_support(&spec.binary)?;
        check_kind(source.kind)?;
        check_session_id(&source.session_id)?;
        if paths::real_cwd(&source.cwd)? != real_cwd {
            return Err(HarnessError::InvalidInput(
                "a claude fork runs in its source's working directory".into(),
            ));
        }
        let source_path = transcript_of(source, &spec.env)?;
        require_file(&source_path, &source.session_id)?;
        args.extend([
            "--resume".into(),
            source.session_id.clone(),
            "--fork-session".into(),
        ]);
        if let Some(at) = &pending.resume_at {
            require_checkpoint(source_path, at.clone()).await?;
            args.extend(["--resume-session-at".into(), at.clone()]);
        }
    }
    args.extend(["--session-id".into(), fork.session_id.clone()]);
    Ok(Launch::new(args, fork.clone(), path, real_cwd))
}

/// Derives a fork of `source` at `cut`, lazily: nothing runs and nothing is written; the
/// returned [`PendingFork`] materializes with the fork's first prompt.
///
/// After turn i: cut at turn i's checkpoint. Before turn i: at turn i−1's checkpoint; before
/// the first turn: a fresh session (no source). The checkpoint must be a message record of the
/// source transcript (scanned here, since the CLI would only say so once started).
pub async fn fork(request: ForkRequest<'_>) -> HarnessResult<Forked> {
    let ForkRequest {
        binary,
        source,
        anchors,
        cut,
        env,
    } = request;
    let started = Instant::now();
    check_kind(binary.kind)?;
    require_fork_support(binary)?;
    check_kind(source.kind)?;
    check_session_id(&source.session_id)?;
    let source_path = transcript_of(source, env)?;
    require_file(&source_path, &source.session_id)?;
    let resume_at = match cut {
        Cut::After(i) => Some(checkpoint_of(anchors, i)?),
        Cut::Before(0) if anchors.is_empty() => return Err(turn_not_found(0, anchors)),
        Cut::Before(0) => None,
        Cut::Before(i) if i >= anchors.len() => return Err(turn_not_found(i, anchors)),
        Cut::Before(i) => Some(checkpoint_of(anchors, i - 1)?),
    };
    if let Some(at) = &resume_at {
        require_checkpoint(source_path.clone(), at.clone()).await?;
    }
    let real_cwd = paths::real_cwd(&source.cwd)?;
    let id = uuid::Uuid::new_v4().to_string();
    let session = NativeSession {
        kind: HarnessKind::Claude,
        path: Some(paths::session_path(
            &paths::config_dir(env)?,
            &real_cwd,
            &id,
        )),
        session_id: id,
        cwd: source.cwd.clone(),
    };
    let pending = PendingFork {
        source: resume_at.is_some().then(|| NativeSession {
            path: Some(source_path.clone()),
            ..source.clone()
        }),
        session: session.clone(),
        resume_at,
    };
    tracing::info!(
        source = %source.session_id,
        fork = %session.session_id,
        ?cut,
        us = started.elapsed().as_micros() as u64,
        "claude fork prepared"
    );
    Ok(Forked {
        session,
        pending: Some(pending),
    })
}

fn turn_not_found(index: usize, anchors: &[TurnAnchor]) -> HarnessError {
    HarnessError::TurnNotFound(format!(
        "turn {index} (0-based) of a session with {} turns",
        anchors.len()
    ))
}

/// Turn `i`'s checkpoint, if the turn is over and has one.
fn checkpoint_of(anchors: &[TurnAnchor], i: usize) -> HarnessResult<String> {
    let anchor = anchors.get(i).ok_or_else(|| turn_not_found(i, anchors))?;
    if !anchor.complete {
        return Err(HarnessError::CheckpointNotFound(format!(
            "turn {i} is still in progress"
        )));
    }
    anchor.native_checkpoint_ref.clone().ok_or_else(|| {
        HarnessError::CheckpointNotFound(format!("turn {i} has no reply to fork after"))
    })
}

fn supports_fork(version: &str) -> bool {
    version_triple(version).is_some_and(|v| v >= MIN_VERSION)
}

fn require_fork_support(binary: &HarnessBinary) -> HarnessResult<()> {
    if supports_fork(&binary.version) {
        Ok(())
    } else {
        Err(HarnessError::Unsupported(unsupported_note(&binary.version)))
    }
}

fn unsupported_note(version: &str) -> String {
    let (a, b, c) = MIN_VERSION;
    format!("Claude Code {version} is older than {a}.{b}.{c}, the first version whose fork-at-turn was verified")
}

/// What this Claude Code version can fork: every boundary at turn granularity from the
/// verified version on, lazily (the fork's session appears with its first prompt); nothing
/// below it.
pub fn capabilities(version: &str) -> Capabilities {
    if supports_fork(version) {
        Capabilities {
            boundaries: vec!["after", "before", "latest"],
            granularity: "turn",
            eager_fork: false,
            note: None,
        }
    } else {
        Capabilities {
            boundaries: vec![],
            granularity: "turn",
            eager_fork: false,
            note: Some(unsupported_note(version)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(turn: &str, checkpoint: Option<&str>, complete: bool) -> TurnAnchor {
        TurnAnchor {
            native_turn_ref: turn.into(),
            native_checkpoint_ref: checkpoint.map(Into::into),
            complete,
        }
    }

    #[test]
    fn capabilities_follow_the_verified_version() {
        let caps = capabilities("2.1.197");
        assert_eq!(caps.boundaries, ["after", "before", "latest"]);
        assert!(!caps.eager_fork && caps.note.is_none());
        assert!(capabilities("2.2.0").note.is_none());
        for old in ["2.1.196", "1.0.0", "garbage"] {
            let caps = capabilities(old);
            assert!(caps.boundaries.is_empty(), "{old}");
            assert!(caps.note.is_some(), "{old}");
        }
    }

    #[test]
    fn checkpoints_need_a_finished_turn_with_a_reply() {
        let anchors = [
            anchor("u1", Some("a1"), true),
            anchor("u2", None, true),
            anchor("u3", Some("a3"), false),
        ];
        assert_eq!(checkpoint_of(&anchors, 0).unwrap(), "a1");
        assert!(matches!(
            checkpoint_of(&anchors, 1),
            Err(HarnessError::CheckpointNotFound(_))
        ));
        assert!(matches!(
            checkpoint_of(&anchors, 2),
            Err(HarnessError::CheckpointNotFound(_))
        ));
        assert!(matches!(
            checkpoint_of(&anchors, 3),
            Err(HarnessError::TurnNotFound(_))
        ));
    }
}
