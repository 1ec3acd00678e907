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
//! of the source; the source's file is only read. A fork into another folder
//! ([`ForkRequest::cwd`]) passes `cwd` to `thread/fork`: the new thread records that folder and
//! a later `thread/resume` runs there ("Forking into another folder" in
//! docs/harness-behaviour.md). The new rollout is read back with
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
use super::{find_rollout, CodexReader};
use crate::contract::{Cut, ForkRequest, Forked, NativeSession, PermissionMode};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessError, HarnessKind, HarnessResult, TurnAnchor};

/// How long the fork's own app-server may take to leave after its stdin closed.
const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// The new rollout is read back until it shows the expected turns, at most this long (the
/// server answers once the file exists; the wait only covers a slow disk).
const VERIFY_FOR: Duration = Duration::from_secs(2);
/// The first re-read comes this soon, then each wait doubles up to [`VERIFY_EVERY_MAX`]: the
/// read-back is on every fork's critical path, and a file that lags at all lags by little
/// (with 0.171.0 the first read has always passed), so a fixed 20 ms would mostly be idle.
const VERIFY_FIRST_RETRY: Duration = Duration::from_millis(2);
const VERIFY_EVERY_MAX: Duration = Duration::from_millis(20);

/// Derives a new Codex thread from `source` at `cut`, in a folder whose trust decision is
/// `trusted` (`None`: nothing to decide, or not known). See the module docs.
pub async fn fork(request: ForkRequest<'_>, trusted: Option<bool>) -> HarnessResult<Forked> {
    let source = request.source;
    let (plan, cwd) = checked(&request)?;
    let args = super::trust::no_turn_args(trusted, request.fork_cwd())?;
    let started = Instant::now();
    let launch = Launch {
        binary: request.binary,
        cwd: source.cwd.is_dir().then_some(source.cwd.as_path()),
        env: request.env,
        // This process only derives the thread and runs no turn: it needs no MCP server, so
        // none of the project's starts, whatever the folder's trust; in a folder the user does
        // not trust it is refused where the runtime would be (review M-2).
        args,
    };
    let server = AppServer::spawn(launch, |_| {})?;
    // `beforeTurnId` is experimental; `lastTurnId` is not, but one handshake serves both.
    let outcome = match protocol::initialize(&server, true).await {
        Ok(codex_home) => {
            let at = ForkAt {
                codex_home: codex_home.as_deref(),
                cwd: cwd.as_deref(),
                permissions: None,
            };
            fork_in(&server, source, &plan, at).await
        }
        Err(err) => Err(err),
    };
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

/// Refuses what no server could fork (an unsupported version, a source that is not there, a
/// cut its turns do not have, a folder that does not exist) before any process is asked.
pub(crate) fn checked(request: &ForkRequest<'_>) -> HarnessResult<(CutPlan, Option<PathBuf>)> {
    if let Some(note) = capabilities(&request.binary.version).note {
        return Err(HarnessError::Unsupported(note));
    }
    check_session(request.source)?;
    let plan = CutPlan::plan(request.anchors, request.cut)?;
    let cwd = match request.cwd {
        Some(dir) if !dir.is_dir() => {
            return Err(HarnessError::InvalidInput(format!(
                "the fork's working directory {} does not exist",
                dir.display()
            )))
        }
        Some(dir) => Some(dir.to_owned()),
        None => None,
    };
    Ok((plan, cwd))
}

/// What a [`Cut`] becomes for `thread/fork` (its `lastTurnId` or `beforeTurnId`), and the turn
/// refs the fork must hold.
#[derive(Debug, PartialEq)]
pub(crate) struct CutPlan {
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

/// Where a fork lands in its server: the server's `CODEX_HOME` (from `initialize`), the fork's
/// folder, and its mode when it will run in that same server.
pub(crate) struct ForkAt<'a> {
    pub codex_home: Option<&'a Path>,
    pub cwd: Option<&'a Path>,
    pub permissions: Option<&'a PermissionMode>,
}

/// Runs `thread/fork` in an initialized `server` and checks the new rollout.
pub(crate) async fn fork_in(
    server: &AppServer,
    source: &NativeSession,
    plan: &CutPlan,
    at: ForkAt<'_>,
) -> HarnessResult<Forked> {
    let ForkAt {
        codex_home,
        cwd,
        permissions,
    } = at;
    let request = ThreadForkParams {
        thread_id: source.session_id.clone(),
        last_turn_id: plan.last_turn_id.clone(),
        before_turn_id: plan.before_turn_id.clone(),
        cwd: cwd.map(|dir| dir.to_string_lossy().into_owned()),
        approval_policy: permissions.and_then(|p| p.mode.clone()),
        sandbox: permissions.and_then(|p| p.sandbox.clone()),
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
    let path = rollout_path(&thread, codex_home);
    let checked = match check_cwd(&thread, cwd) {
        Ok(()) => verify(path.as_deref(), &thread, source, &plan.keep).await,
        Err(err) => Err(err),
    };
    match checked {
        Ok(path) => Ok(Forked {
            session: NativeSession {
                kind: HarnessKind::Codex,
                session_id: thread.id.clone(),
                path: Some(path),
                cwd: match cwd {
                    Some(dir) => dir.to_owned(),
                    None => thread.cwd.clone().unwrap_or_else(|| source.cwd.clone()),
                },
            },
            pending: None,
        }),
        Err(err) => {
            discard(server, &thread, path.as_deref(), source).await;
            Err(err)
        }
    }
}

/// A fork asked to run in `cwd` must say it does (the thread records its cwd, and a resume
/// runs there).
fn check_cwd(thread: &ThreadInfo, cwd: Option<&Path>) -> HarnessResult<()> {
    let Some(want) = cwd else { return Ok(()) };
    let same = |got: &Path| {
        got == want
            || matches!(
                (std::fs::canonicalize(got), std::fs::canonicalize(want)),
                (Ok(a), Ok(b)) if a == b
            )
    };
    match thread.cwd.as_deref() {
        Some(got) if same(got) => Ok(()),
        got => Err(HarnessError::failed(
            HarnessKind::Codex,
            format!(
                "thread/fork was asked to run the fork in {} but it records {:?}",
                want.display(),
                got
            ),
            "",
        )),
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
    let mut wait = VERIFY_FIRST_RETRY;
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
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(VERIFY_EVERY_MAX);
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
    let reader = open_fork_rollout(path, source).map_err(|e| e.to_string())?;
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

/// Opens the fork's rollout with its `history_base` resolved to the source's recorded file
/// when the base names the source (the usual case), and by a search of the `sessions` folder
/// only for other ids (the source's own bases): the search walks every rollout under it, on
/// every fork's critical path. The recorded file is taken only where the search would have
/// found it, a `rollout-…-<id>.jsonl` (a revision segment `…_<rev>.jsonl` is another id).
fn open_fork_rollout(path: &Path, source: &NativeSession) -> Result<CodexReader, HistoryError> {
    let sessions = path
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "sessions"))
        .or_else(|| path.parent())
        .map(Path::to_owned);
    let source_id = source.session_id.clone();
    let own_name = format!("-{source_id}.jsonl");
    let source_path = source.path.clone().filter(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&own_name))
            && p.is_file()
    });
    CodexReader::open_with(path, move |id| match &source_path {
        Some(known) if id == source_id => Some(known.clone()),
        _ => find_rollout(sessions.as_deref()?, id),
    })
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

    /// The fork's `history_base` resolves to the source's recorded file even where a search
    /// of `sessions/` would not find it, and never to a recorded file named for another id
    /// (a revision segment).
    #[test]
    fn the_fork_base_resolves_to_the_recorded_source_file() {
        let dir = tempfile::tempdir().unwrap();
        let source_id = "019a0000-0000-7000-8000-00000000000a";
        let fork_id = "019a0000-0000-7000-8000-00000000000f";
        let meta = |id: &str, extra: &str| {
            format!(
                "{{\"timestamp\":\"2026-11-30T09:00:00Z\",\"type\":\"session_meta\",\
                 \"payload\":{{\"id\":\"{id}\"{extra}}}}}\n"
            )
        };
        let source_text = meta(source_id, "");
        let base = format!(
            ",\"forked_from_id\":\"{source_id}\",\"history_base\":{{\"thread_id\":\
             \"{source_id}\",\"end_byte_offset\":{}}}",
            source_text.len()
        );
        let sessions = dir.path().join("sessions/2026/11/30");
        std::fs::create_dir_all(&sessions).unwrap();
        let fork = sessions.join(format!("rollout-2026-11-30T09-00-01-{fork_id}.jsonl"));
        std::fs::write(&fork, meta(fork_id, &base)).unwrap();
        // The source lies outside `sessions/` (imported from elsewhere): no search finds it.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let source_at = |name: String| {
            let path = elsewhere.join(name);
            std::fs::write(&path, &source_text).unwrap();
            NativeSession {
                kind: HarnessKind::Codex,
                session_id: source_id.into(),
                path: Some(path),
                cwd: dir.path().to_owned(),
            }
        };
        let own = source_at(format!("rollout-2026-11-30T09-00-00-{source_id}.jsonl"));
        let reader = open_fork_rollout(&fork, &own).unwrap();
        assert_eq!(reader.missing_base(), None);
        assert_eq!(reader.forked_from(), Some(source_id));
        let segment = source_at(format!("rollout-2026-11-30T09-00-00-{source_id}_r1.jsonl"));
        let reader = open_fork_rollout(&fork, &segment).unwrap();
        assert!(reader.missing_base().is_some());
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
