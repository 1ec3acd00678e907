//! What a Claude Code runtime process runs for a [`SessionTarget`]: its flags and the session's
//! coordinates, after checking that what the target names exists (the CLI would only say so
//! once started).

use std::path::PathBuf;

use super::paths;
use super::version::require_fork_support;
use crate::contract::{NativeSession, OpenSpec, PendingFork, SessionTarget};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// What to run for a target.
pub(super) struct Launch {
    pub args: Vec<String>,
    /// The session's coordinates; its `path` is always set.
    pub session: NativeSession,
    /// The transcript (it may not exist yet).
    pub transcript: PathBuf,
    pub real_cwd: PathBuf,
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

pub(super) fn check_kind(kind: HarnessKind) -> HarnessResult<()> {
    if kind == HarnessKind::Claude {
        Ok(())
    } else {
        Err(HarnessError::InvalidInput(format!(
            "a {kind} session given to the claude runtime"
        )))
    }
}

/// The session id must be a uuid: anything else, `--resume` would take as a session title.
pub(super) fn check_session_id(id: &str) -> HarnessResult<()> {
    uuid::Uuid::parse_str(id)
        .map(|_| ())
        .map_err(|_| HarnessError::InvalidInput(format!("not a claude session id: {id:?}")))
}

/// The transcript of `session`: its recorded path, else where the CLI keeps it.
pub(super) fn transcript_of(
    session: &NativeSession,
    env: &[(String, String)],
) -> HarnessResult<PathBuf> {
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

pub(super) fn require_file(path: &std::path::Path, session_id: &str) -> HarnessResult<()> {
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
pub(super) async fn require_checkpoint(path: PathBuf, uuid: String) -> HarnessResult<()> {
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
pub(super) async fn plan(spec: &OpenSpec) -> HarnessResult<Launch> {
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
        let source_path = transcript_of(source, &spec.env)?;
        require_file(&source_path, &source.session_id)?;
        // In its own folder the CLI finds the source by id. From another folder 2.1.197 finds
        // an id only in the project folders of the folder's git worktrees (2.1.332 in any), but
        // both pins resume a transcript named by its path: the fork's records are then written
        // with the new cwd, into the new folder's project folder.
        let resume = if paths::real_cwd(&source.cwd).ok().as_deref() == Some(real_cwd.as_path()) {
            source.session_id.clone()
        } else {
            source_path.to_string_lossy().into_owned()
        };
        args.extend(["--resume".into(), resume, "--fork-session".into()]);
        if let Some(at) = &pending.resume_at {
            require_checkpoint(source_path, at.clone()).await?;
            args.extend(["--resume-session-at".into(), at.clone()]);
        }
    }
    args.extend(["--session-id".into(), fork.session_id.clone()]);
    Ok(Launch::new(args, fork.clone(), path, real_cwd))
}
