//! A Pi fork into another folder ([`ForkRequest::cwd`], e.g. a git worktree); see "Forking
//! into another folder" in docs/harness-behaviour.md.
//!
//! Pi keeps sessions per cwd and runs a session in the cwd its header records, and 1.6.0 has
//! no single operation that both cuts a session and moves it: RPC `fork`/`clone` write the cut
//! with the **source's** cwd (into the source's folder, or `--session-dir`), and the CLI's
//! `--fork <path>` copies a **whole** session into the current folder (header `cwd` = the
//! process's cwd, `parentSession` = the copied file). So the fork is made in two native
//! steps, each in a process of its own:
//!
//! 1. the usual cut ([`super::steps::cut`]) of the source, written into a private staging
//!    folder (`--session-dir`), never next to the source;
//! 2. `pi --mode rpc --fork <staged cut>` started in the new folder: Pi writes the new session
//!    into that folder's session folder with that folder as its cwd; `get_entries` confirms
//!    it still ends at the checkpoint.
//!
//! The staging folder is removed afterwards; the fork's `parentSession`, which names the
//! staged cut, is made to name the source ([`repoint_parent`]). On any failure the new file is
//! removed; the source is only read.
//!
//! [`ForkRequest::cwd`]: crate::contract::ForkRequest::cwd

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::steps::{check_ends_at, cut, fork_args, remove_stray, state, NativeCut};
use crate::contract::{first_recorded, Forked, NativeSession};
use crate::pi::process::RpcProcess;
use crate::pi::session_files::same_file;
use crate::pi::timeouts::{CLOSE_GRACE, STARTUP_TIMEOUT};
use crate::{HarnessBinary, HarnessError, HarnessKind, HarnessResult};

/// How long to wait for the rest of stderr when reporting a failure.
const WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Forks `request.source` at its cut into `dir` (an existing folder other than the source's).
pub(super) async fn into_folder(request: NativeCut<'_>, dir: &Path) -> HarnessResult<Forked> {
    let started = Instant::now();
    let staging = Staging::create()?;
    let (staged, _) = cut(&request, Some(staging.path())).await?;
    let copy = Copy {
        binary: request.binary,
        env: request.env,
        staged: &staged,
        keep_to: request.keep_to,
        parent: Some(request.path),
    };
    let copied = copy_into(&copy, dir).await;
    drop(staging);
    let (file, id) = copied?;
    tracing::info!(
        session_id = %id,
        keep_to = request.keep_to,
        dir = %dir.display(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "pi fork into another folder created"
    );
    Ok(Forked {
        session: NativeSession {
            kind: HarnessKind::Pi,
            session_id: id,
            path: Some(file),
            cwd: dir.to_owned(),
        },
        pending: None,
    })
}

/// A staged session to copy into a folder with Pi's own `--fork`.
pub(crate) struct Copy<'a> {
    pub binary: &'a HarnessBinary,
    pub env: &'a [(String, String)],
    /// The staged file (in a [`Staging`] folder).
    pub staged: &'a Path,
    /// The entry the copy must end at.
    pub keep_to: &'a str,
    /// The session the copy's `parentSession` names; `None`: it names none (a conversation
    /// carried from another harness has no Pi parent).
    pub parent: Option<&'a Path>,
}

/// Step 2: `--fork <staged>` in `dir`; the new session's file and id.
pub(crate) async fn copy_into(request: &Copy<'_>, dir: &Path) -> HarnessResult<(PathBuf, String)> {
    let staged = request.staged;
    let args = fork_args("--fork", staged);
    let (process, _events) =
        RpcProcess::spawn(request.binary, &args, dir, request.env, false).await?;
    let client = process.client();
    let mut created = None;
    let result = async {
        let (file, id) = state(&client, STARTUP_TIMEOUT).await?;
        if same_file(&file, staged) || request.parent.is_some_and(|p| same_file(&file, p)) {
            return Err(client
                .failure(
                    format!(
                        "pi --fork stayed on {} instead of copying it",
                        file.display()
                    ),
                    WAIT,
                )
                .await);
        }
        created = Some(file.clone());
        check_ends_at(&client, request.keep_to).await?;
        Ok((file, id))
    }
    .await;
    process.shutdown(CLOSE_GRACE).await;
    let result = result.and_then(|(file, id)| {
        check_written_for(&file, dir)?;
        repoint_parent(&file, request.parent)?;
        Ok((file, id))
    });
    if result.is_err() {
        if let Some(file) = created {
            remove_stray(&file, request.parent.unwrap_or(staged));
        }
    }
    result
}

/// The new file exists and its header records `dir` as the session's cwd.
fn check_written_for(file: &Path, dir: &Path) -> HarnessResult<()> {
    let failed = |what: String| Err(HarnessError::failed(HarnessKind::Pi, what, ""));
    if !file.is_file() {
        return failed(format!(
            "pi did not write the fork's session file {}",
            file.display()
        ));
    }
    match first_recorded(file, |v| v.get("cwd")) {
        Some(cwd) if same_file(Path::new(&cwd), dir) => Ok(()),
        got => failed(format!(
            "the fork {} records the cwd {got:?}, not {}",
            file.display(),
            dir.display()
        )),
    }
}

/// The new session's header names the staged cut as its `parentSession`, a file removed right
/// after: it is made to name the source, as a fork Pi makes in the source's folder does (Pi's
/// own session tree then finds the parent), or, without one, to name none. Only the fork's
/// first line changes, written to a temporary file and renamed over it; the rest is copied
/// byte for byte.
fn repoint_parent(file: &Path, source: Option<&Path>) -> HarnessResult<()> {
    let failed = |what: String| HarnessError::failed(HarnessKind::Pi, what, "");
    let bytes = std::fs::read(file)
        .map_err(|err| failed(format!("cannot read the fork {}: {err}", file.display())))?;
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[..end])
        .map_err(|err| failed(format!("the fork {} has no header: {err}", file.display())))?;
    let Some(fields) = header.as_object_mut() else {
        return Err(failed(format!("the fork {} has no header", file.display())));
    };
    match source {
        Some(source) => fields.insert(
            "parentSession".into(),
            serde_json::Value::String(source.display().to_string()),
        ),
        None => fields.remove("parentSession"),
    };
    let mut out = serde_json::to_vec(&header).map_err(|err| failed(err.to_string()))?;
    out.extend_from_slice(&bytes[end..]);
    let temp = file.with_extension("jsonl.forkhost-tmp");
    crate::private_files::write_private(&temp, &out)
        .and_then(|()| std::fs::rename(&temp, file))
        .map_err(|err| {
            let _ = std::fs::remove_file(&temp);
            failed(format!("cannot write the fork {}: {err}", file.display()))
        })
}

/// A private folder for the staged cut, removed with everything in it when dropped.
pub(crate) struct Staging(PathBuf);

impl Staging {
    pub(crate) fn create() -> HarnessResult<Staging> {
        let path = std::env::temp_dir().join(format!("forkhost-pi-fork-{}", uuid::Uuid::new_v4()));
        crate::private_files::create_private_dir(&path).map_err(|err| {
            HarnessError::failed(
                HarnessKind::Pi,
                format!("cannot create a staging folder {}: {err}", path.display()),
                "",
            )
        })?;
        Ok(Staging(path))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_dir_all(&self.0) {
            tracing::warn!(path = %self.0.display(), %err, "cannot remove the pi fork's staging folder");
        }
    }
}
