//! Codex's native fork: eager, in a short-lived `codex app-server` of its own (never a live
//! runtime's), by `thread/fork` at a turn id (see "Codex 0.171.0: the app-server runtime and
//! eager fork" in docs/harness-behaviour.md):
//!
//! - after turn T: `{threadId, lastTurnId: T}` (inclusive, stable API);
//! - before turn T: `{threadId, beforeTurnId: T}` (exclusive, needs `experimentalApi`). Before
//!   the first turn this gives a thread with no turns that still records `forked_from_id`
//!   (observed with 0.171.0), so no `thread/start` fallback is needed.
//!
//! The fork is a new thread id and a new rollout whose `history_base` points at a byte prefix
//! of the source; the source's file is only read. The new rollout is read back with
//! [`CodexReader`] and must hold exactly the expected turns; otherwise the fork is deleted
//! again (`thread/delete`, then the file if it is still there) and the error returned.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::app_server::{AppServer, Launch};
use super::protocol::{
    self, params, thread_of, to_harness_error, ThreadForkParams, ThreadIdParams, ThreadInfo,
    REQUEST_TIMEOUT,
};
use super::runtime::{capabilities, check_session, rollout_path};
use super::CodexReader;
use crate::contract::{Cut, ForkRequest, Forked, NativeSession};
use crate::history::SessionReader;
use crate::{HarnessError, HarnessKind, HarnessResult, TurnAnchor};

/// How long the fork's own app-server may take to leave after its stdin closed.
const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// The new rollout is read back until it shows the expected turns, at most this long (the
/// server answers once the file exists; the wait only covers a slow disk).
const VERIFY_FOR: Duration = Duration::from_secs(2);
const VERIFY_EVERY: Duration = Duration::from_millis(20);

/// Derives a new Codex thread from `source` at `cut`. See the module docs.
pub async fn fork(request: ForkRequest<'_>) -> HarnessResult<Forked> {
    if let Some(note) = capabilities(&request.binary.version).note {
        return Err(HarnessError::Unsupported(note));
    }
    let source = request.source;
    check_session(source)?;
    let plan = CutPlan::plan(request.anchors, request.cut)?;
    let started = Instant::now();
    let launch = Launch {
        binary: request.binary,
        cwd: source.cwd.is_dir().then_some(source.cwd.as_path()),
        env: request.env,
    };
    let server = AppServer::spawn(launch, |_| {})?;
    let outcome = fork_in(&server, source, &plan).await;
    server.close(CLOSE_GRACE).await;
    let forked = outcome?;
    tracing::info!(
        source = %source.session_id,
        fork = %forked.session.session_id,
        cut = ?request.cut,
        kept = plan.keep.len(),
        ms = started.elapsed().as_millis() as u64,
        "codex fork"
    );
    Ok(forked)
}

/// What a [`Cut`] becomes for `thread/fork` (its `lastTurnId` or `beforeTurnId`), and the turn
/// refs the fork must hold.
#[derive(Debug, PartialEq)]
struct CutPlan {
    last_turn_id: Option<String>,
    before_turn_id: Option<String>,
    keep: Vec<String>,
}

impl CutPlan {
    /// Checks the cut against the source's anchors before anything is created.
    fn plan(anchors: &[TurnAnchor], cut: Cut) -> HarnessResult<CutPlan> {
        let (index, inclusive) = match cut {
            Cut::After(i) => (i, true),
            Cut::Before(i) => (i, false),
        };
        let anchor = anchors.get(index).ok_or_else(|| {
            HarnessError::TurnNotFound(format!(
                "turn index {index}, but the source has {} turns",
                anchors.len()
            ))
        })?;
        // "After" keeps the turn itself, so it must be finished; "before" keeps only the
        // turns before it, which a later turn has settled.
        if inclusive && !anchor.complete {
            return Err(HarnessError::CheckpointNotFound(format!(
                "turn {} is still in progress",
                anchor.native_turn_ref
            )));
        }
        let turn_id = anchor.native_checkpoint_ref.clone().ok_or_else(|| {
            HarnessError::Unsupported(format!(
                "turn {} has no Codex turn id (a rollout older than turn ids) to fork at",
                anchor.native_turn_ref
            ))
        })?;
        let kept = if inclusive { index + 1 } else { index };
        let keep = anchors[..kept]
            .iter()
            .map(|a| a.native_turn_ref.clone())
            .collect();
        let (last_turn_id, before_turn_id) = if inclusive {
            (Some(turn_id), None)
        } else {
            (None, Some(turn_id))
        };
        Ok(CutPlan {
            last_turn_id,
            before_turn_id,
            keep,
        })
    }
}

async fn fork_in(
    server: &AppServer,
    source: &NativeSession,
    plan: &CutPlan,
) -> HarnessResult<Forked> {
    // `beforeTurnId` is experimental; `lastTurnId` is not, but one handshake serves both.
    let codex_home = protocol::initialize(server, true).await?;
    let request = ThreadForkParams {
        thread_id: source.session_id.clone(),
        last_turn_id: plan.last_turn_id.clone(),
        before_turn_id: plan.before_turn_id.clone(),
        exclude_turns: true,
    };
    let called = Instant::now();
    let result = server
        .request("thread/fork", params(&request), REQUEST_TIMEOUT)
        .await
        .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    tracing::debug!(
        ms = called.elapsed().as_millis() as u64,
        "codex thread/fork answered"
    );
    let thread = thread_of(&result)?;
    let path = rollout_path(&thread, codex_home.as_deref());
    match verify(path.as_deref(), &thread, source, &plan.keep).await {
        Ok(path) => Ok(Forked {
            session: NativeSession {
                kind: HarnessKind::Codex,
                session_id: thread.id.clone(),
                path: Some(path),
                cwd: thread.cwd.clone().unwrap_or_else(|| source.cwd.clone()),
            },
            pending: None,
        }),
        Err(err) => {
            discard(server, &thread, path.as_deref(), source).await;
            Err(err)
        }
    }
}

/// Reads the new rollout back: it must be the new thread, forked from the source, with
/// exactly the kept turns.
async fn verify(
    path: Option<&Path>,
    thread: &ThreadInfo,
    source: &NativeSession,
    keep: &[String],
) -> HarnessResult<PathBuf> {
    let path = path.ok_or_else(|| {
        HarnessError::failed(
            HarnessKind::Codex,
            format!("thread/fork gave no rollout for {}", thread.id),
            "",
        )
    })?;
    let deadline = Instant::now() + VERIFY_FOR;
    loop {
        let problem = match check_fork_file(path, thread, source, keep) {
            Ok(()) => return Ok(path.to_owned()),
            Err(problem) => problem,
        };
        if Instant::now() >= deadline {
            return Err(HarnessError::failed(
                HarnessKind::Codex,
                format!("the fork {} is not what was asked: {problem}", thread.id),
                "",
            ));
        }
        tokio::time::sleep(VERIFY_EVERY).await;
    }
}

fn check_fork_file(
    path: &Path,
    thread: &ThreadInfo,
    source: &NativeSession,
    keep: &[String],
) -> Result<(), String> {
    if thread.forked_from_id.as_deref() != Some(source.session_id.as_str()) {
        return Err(format!(
            "thread/fork says it came from {:?}",
            thread.forked_from_id
        ));
    }
    let reader = CodexReader::open(path).map_err(|e| e.to_string())?;
    if reader.thread_id() != Some(thread.id.as_str()) {
        return Err(format!("its rollout names thread {:?}", reader.thread_id()));
    }
    if reader.forked_from() != Some(source.session_id.as_str()) {
        return Err(format!("it is forked from {:?}", reader.forked_from()));
    }
    if let Some(base) = reader.missing_base() {
        return Err(format!("its inherited history {base} cannot be found"));
    }
    let got: Vec<&str> = reader
        .anchors()
        .iter()
        .map(|a| a.native_turn_ref.as_str())
        .collect();
    if got != keep {
        return Err(format!(
            "it holds {} turns ({:?}), expected {} ({:?})",
            got.len(),
            got.last(),
            keep.len(),
            keep.last()
        ));
    }
    Ok(())
}

/// Removes a fork that failed its check: through the server (which also drops it from its
/// index), then the file itself if it is still there. Never the source's file.
async fn discard(
    server: &AppServer,
    thread: &ThreadInfo,
    path: Option<&Path>,
    source: &NativeSession,
) {
    let request = ThreadIdParams {
        thread_id: thread.id.clone(),
    };
    let deleted = server
        .request("thread/delete", params(&request), REQUEST_TIMEOUT)
        .await;
    tracing::warn!(fork = %thread.id, deleted = deleted.is_ok(), "codex fork discarded");
    let Some(path) = path else { return };
    let is_source = thread.id == source.session_id || source.path.as_deref() == Some(path);
    if !is_source && path.is_file() {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> Vec<TurnAnchor> {
        let a = |id: &str, complete| TurnAnchor {
            native_turn_ref: id.into(),
            native_checkpoint_ref: Some(id.into()),
            complete,
        };
        vec![a("t1", true), a("t2", true), a("t3", false)]
    }

    #[test]
    fn plans_after_and_before_at_turn_ids() {
        let p = CutPlan::plan(&anchors(), Cut::After(0)).unwrap();
        assert_eq!(p.last_turn_id.as_deref(), Some("t1"));
        assert_eq!(p.before_turn_id, None);
        assert_eq!(p.keep, vec!["t1"]);
        let p = CutPlan::plan(&anchors(), Cut::Before(1)).unwrap();
        assert_eq!(p.before_turn_id.as_deref(), Some("t2"));
        assert_eq!(p.keep, vec!["t1"]);
        let p = CutPlan::plan(&anchors(), Cut::Before(0)).unwrap();
        assert_eq!(p.before_turn_id.as_deref(), Some("t1"));
        assert!(p.keep.is_empty());
        // Before a turn still running keeps only settled turns.
        assert_eq!(
            CutPlan::plan(&anchors(), Cut::Before(2)).unwrap().keep,
            vec!["t1", "t2"]
        );
    }

    #[test]
    fn refuses_bad_cuts_before_creating_anything() {
        assert!(matches!(
            CutPlan::plan(&anchors(), Cut::After(3)),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            CutPlan::plan(&[], Cut::Before(0)),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            CutPlan::plan(&anchors(), Cut::After(2)),
            Err(HarnessError::CheckpointNotFound(_))
        ));
        let legacy = vec![TurnAnchor {
            native_turn_ref: "@0".into(),
            native_checkpoint_ref: None,
            complete: true,
        }];
        assert!(matches!(
            CutPlan::plan(&legacy, Cut::After(0)),
            Err(HarnessError::Unsupported(_))
        ));
    }
}
