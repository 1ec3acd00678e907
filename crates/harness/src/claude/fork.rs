//! Claude Code's native fork (see "Claude Code 2.1.197: the stream-json runtime and lazy
//! fork" in docs/harness-behaviour.md): lazy. [`fork`] validates the cut and mints the fork's id and
//! path without running anything; the fork's native session appears with its first prompt,
//! through a runtime opened on [`SessionTarget::PendingFork`] (`--resume SRC --fork-session
//! --session-id NEW --resume-session-at CHECKPOINT`). The CLI copies the source's records up
//! to the checkpoint into the new file and never writes the source.
//!
//! A fork into another folder ([`ForkRequest::cwd`]) runs its first prompt in that folder and
//! names the source by its transcript's path (`--resume <path>`), since 2.1.197 finds a session
//! id only in the project folders of the current folder's git worktrees; the new transcript
//! lands in the new folder's project folder, every copied record carrying the new `cwd`
//! ("Forking into another folder" in docs/harness-behaviour.md).
//!
//! [`SessionTarget::PendingFork`]: crate::contract::SessionTarget::PendingFork

use std::time::Instant;

use super::launch::{
    check_kind, check_session_id, require_checkpoint, require_file, transcript_of,
};
use super::paths;
use super::version::require_fork_support;
use crate::contract::{Cut, ForkRequest, Forked, NativeSession, PendingFork};
use crate::{HarnessError, HarnessKind, HarnessResult, TurnAnchor};

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
        cwd: _,
    } = request;
    let fork_cwd = request.fork_cwd().to_owned();
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
    // The fork's transcript lives in its own folder's project folder; its first prompt runs
    // there, resuming the source by the path of its transcript when that is another folder.
    let real_cwd = paths::real_cwd(&fork_cwd)?;
    let id = uuid::Uuid::new_v4().to_string();
    let session = NativeSession {
        kind: HarnessKind::Claude,
        path: Some(paths::session_path(
            &paths::config_dir(env)?,
            &real_cwd,
            &id,
        )),
        session_id: id,
        cwd: fork_cwd,
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

#[cfg(test)]
mod tests {
    use super::*;

    use TurnAnchor as A;

    #[test]
    fn checkpoints_need_a_finished_turn_with_a_reply() {
        let anchors = [
            A::of("u1", Some("a1"), true),
            A::of("u2", None, true),
            A::of("u3", Some("a3"), false),
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
