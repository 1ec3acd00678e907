//! The steps of a Pi fork (see [`super`]): checking a request and planning its cut, Pi's own
//! cut in a process of its own, and the RPC exchange and checks a warm spare
//! ([`crate::pi::spare`]) runs too. Shared by the cold path, the fork into another folder
//! ([`super::into_folder`]) and the spare; it knows none of them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::contract::{Cut, ForkRequest, NativeSession};
use crate::pi::process::{RpcClient, RpcProcess};
use crate::pi::protocol;
use crate::pi::session_files::{self, same_file};
use crate::pi::timeouts::{CLOSE_GRACE, REQUEST_TIMEOUT, STARTUP_TIMEOUT};
use crate::pi::version::require_supported;
use crate::{HarnessBinary, HarnessError, HarnessKind, HarnessResult, TurnAnchor};

/// How long to wait for the rest of stderr when reporting a failure.
const WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// What a cut asks of Pi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Before turn 1: a fresh session.
    Fresh,
    /// A native fork whose new session must end at checkpoint `keep_to`.
    Native { keep_to: String, at: At },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum At {
    /// `fork` at this user entry (the prompt after the kept turns).
    UserEntry(String),
    /// The kept turn is the last one: `clone` the leaf.
    Leaf,
}

/// A fork request, checked: what Pi must do, the source's file, and the other folder it
/// goes into, if any.
pub(crate) struct Prepared<'a> {
    pub plan: Plan,
    pub path: PathBuf,
    pub into: Option<&'a Path>,
}

/// Checks a fork request before anything runs (the cold path and a warm spare alike).
pub(crate) fn prepare<'a>(request: &ForkRequest<'a>) -> HarnessResult<Prepared<'a>> {
    require_supported(request.binary)?;
    let plan = plan(request.anchors, request.cut)?;
    let source = request.source;
    let path = session_files::existing_file(source, request.env)?;
    let into = into_other_folder(request);
    if let Some(dir) = into {
        if !dir.is_dir() {
            return Err(HarnessError::InvalidInput(format!(
                "the fork's working directory {} does not exist",
                dir.display()
            )));
        }
    }
    Ok(Prepared { plan, path, into })
}

/// [`ForkRequest::cwd`] when it is another folder than the source's.
pub(crate) fn into_other_folder<'a>(request: &ForkRequest<'a>) -> Option<&'a Path> {
    request
        .cwd
        .filter(|dir| !same_file(dir, &request.source.cwd))
}

/// A native cut of the source, as [`cut`] makes it.
pub(crate) struct NativeCut<'a> {
    pub binary: &'a HarnessBinary,
    pub source: &'a NativeSession,
    /// The source's file.
    pub path: &'a Path,
    pub keep_to: &'a str,
    pub at: &'a At,
    pub env: &'a [(String, String)],
}

/// Validates `cut` against the anchors and picks the Pi operation.
pub(super) fn plan(anchors: &[TurnAnchor], cut: Cut) -> HarnessResult<Plan> {
    let turn_not_found = |i: usize| {
        HarnessError::TurnNotFound(format!(
            "turn {} (the session has {} turns)",
            i.saturating_add(1),
            anchors.len()
        ))
    };
    let keep = match cut {
        Cut::After(i) => i.checked_add(1).filter(|_| i < anchors.len()),
        Cut::Before(i) => Some(i).filter(|_| i < anchors.len()),
    };
    let keep = keep.ok_or_else(|| match cut {
        Cut::After(i) | Cut::Before(i) => turn_not_found(i),
    })?;
    if keep == 0 {
        return Ok(Plan::Fresh);
    }
    let kept = &anchors[keep - 1];
    if !kept.complete {
        return Err(HarnessError::Unsupported(format!(
            "turn {keep} is still in progress; a fork needs a completed turn"
        )));
    }
    let keep_to = kept
        .native_checkpoint_ref
        .clone()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            HarnessError::CheckpointNotFound(format!("turn {keep} has no pi entry to cut at"))
        })?;
    let at = match anchors.get(keep) {
        Some(next) if !next.native_turn_ref.is_empty() => {
            At::UserEntry(next.native_turn_ref.clone())
        }
        Some(_) => {
            return Err(HarnessError::CheckpointNotFound(format!(
                "turn {} has no pi user entry to fork at",
                keep + 1
            )))
        }
        None => At::Leaf,
    };
    Ok(Plan::Native { keep_to, at })
}

/// Pi's own fork (or clone) of the source at the cut, in a process of its own: the new
/// session's file and id. Pi writes it next to the source, or into `session_dir`
/// (`--session-dir`); either way its header names the source's cwd and, as
/// `parentSession`, the source. On any failure the new file is removed.
pub(crate) async fn cut(
    request: &NativeCut<'_>,
    session_dir: Option<&Path>,
) -> HarnessResult<(PathBuf, String)> {
    let NativeCut {
        binary,
        source,
        path,
        keep_to,
        at,
        env,
    } = *request;
    check_source(path, source)?;
    let mut args = fork_args("--session", path);
    if let Some(dir) = session_dir {
        args.extend(["--session-dir".into(), dir.as_os_str().to_owned()]);
    }
    let (process, _events) = RpcProcess::spawn(binary, &args, &source.cwd, env, false).await?;
    let client = process.client();
    let mut created = None;
    let result = run(&client, path, keep_to, at, &mut created).await;
    process.shutdown(CLOSE_GRACE).await;
    let result = result.and_then(|(file, id)| {
        check_written(&file)?;
        Ok((file, id))
    });
    if result.is_err() {
        if let Some(file) = created {
            remove_stray(&file, path);
        }
    }
    result
}

/// A source Pi may open: opening it writes nothing (see
/// [`session_files::check_opens_read_only`]) and its working directory exists (Pi refuses a
/// session whose cwd is gone).
pub(crate) fn check_source(path: &Path, source: &NativeSession) -> HarnessResult<()> {
    session_files::check_opens_read_only(path)?;
    if !source.cwd.is_dir() {
        return Err(HarnessError::InvalidInput(format!(
            "the source's working directory {} does not exist",
            source.cwd.display()
        )));
    }
    Ok(())
}

/// Pi wrote the fork's file (a native fork keeps at least turn 1, so it is written at once).
pub(crate) fn check_written(file: &Path) -> HarnessResult<()> {
    if file.is_file() {
        Ok(())
    } else {
        Err(HarnessError::failed(
            HarnessKind::Pi,
            format!(
                "pi did not write the fork's session file {}",
                file.display()
            ),
            "",
        ))
    }
}

/// Pi without anything that could write to a session on its own, and without network,
/// opening `session` with `flag` (`--session`, or `--fork` to copy it into the cwd).
pub(crate) fn fork_args(flag: &str, session: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--mode".into(), "rpc".into(), flag.into()];
    args.push(session.as_os_str().to_owned());
    args.extend(
        [
            "--offline",
            "--no-extensions",
            "--no-skills",
            "--no-prompt-templates",
            "--no-context-files",
            "--no-themes",
            "--no-mcp",
            "--no-approve",
        ]
        .map(OsString::from),
    );
    args
}

/// The RPC exchange in a process that has the source open (the cold path's own process, or
/// a warm spare switched to it); `created` is set as soon as Pi has switched to a new
/// session file.
pub(crate) async fn run(
    client: &RpcClient,
    source: &Path,
    keep_to: &str,
    at: &At,
    created: &mut Option<PathBuf>,
) -> HarnessResult<(PathBuf, String)> {
    let (opened, _) = state(client, STARTUP_TIMEOUT).await?;
    if !same_file(&opened, source) {
        return Err(client
            .failure(
                format!("pi opened {} instead of the source", opened.display()),
                WAIT,
            )
            .await);
    }
    let (command, fields) = command_for(client, keep_to, at).await?;
    let fields_entry = fields
        .get("entryId")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let rpc = Instant::now();
    let response = ask(client, command, fields, REQUEST_TIMEOUT).await?;
    let rpc_ms = rpc.elapsed().as_millis() as u64;
    if !response.success {
        let why = response.error.unwrap_or_default();
        return Err(if why.contains("Invalid entry ID") {
            let entry = fields_entry.unwrap_or_default();
            HarnessError::CheckpointNotFound(format!("pi has no user entry {entry:?} to fork at"))
        } else {
            client
                .failure(format!("pi {command} failed: {why}"), WAIT)
                .await
        });
    }
    if response.data.get("cancelled").and_then(Value::as_bool) == Some(true) {
        return Err(client
            .failure(format!("pi {command} was cancelled"), WAIT)
            .await);
    }
    let (file, id) = state(client, REQUEST_TIMEOUT).await?;
    if same_file(&file, source) {
        return Err(client
            .failure(format!("pi {command} stayed on the source"), WAIT)
            .await);
    }
    *created = Some(file.clone());
    check_ends_at(client, keep_to).await?;
    tracing::debug!(command, rpc_ms, "pi native fork call");
    Ok((file, id))
}

/// The command for `at`. For the leaf, first confirms the source still ends at `keep_to`: if
/// a prompt was appended since the anchors were read, fork before it instead.
async fn command_for(
    client: &RpcClient,
    keep_to: &str,
    at: &At,
) -> HarnessResult<(&'static str, Value)> {
    let user = match at {
        At::UserEntry(user) => user.clone(),
        At::Leaf => {
            let after = entries_after(client, keep_to).await?;
            if protocol::entry_types(&after).is_empty() {
                return Ok(("clone", json!({})));
            }
            protocol::user_child_of(&after, keep_to).ok_or_else(|| {
                HarnessError::CheckpointNotFound(format!(
                    "the source went on past entry {keep_to} without a new prompt; its \
                     anchors are stale"
                ))
            })?
        }
    };
    Ok(("fork", json!({ "entryId": user })))
}

/// The new session must hold `keep_to` and nothing after it but labels (which Pi re-creates
/// at the end of a fork).
pub(crate) async fn check_ends_at(client: &RpcClient, keep_to: &str) -> HarnessResult<()> {
    let after = entries_after(client, keep_to).await?;
    let extra: Vec<String> = protocol::entry_types(&after)
        .into_iter()
        .filter(|t| t != "label")
        .collect();
    if extra.is_empty() {
        Ok(())
    } else {
        Err(HarnessError::CheckpointNotFound(format!(
            "pi's fork goes on past entry {keep_to} ({} more entries)",
            extra.len()
        )))
    }
}

/// `get_entries {since}`; an entry Pi does not have is `CheckpointNotFound`.
pub(crate) async fn entries_after(client: &RpcClient, since: &str) -> HarnessResult<Value> {
    let response = ask(
        client,
        "get_entries",
        json!({ "since": since }),
        REQUEST_TIMEOUT,
    )
    .await?;
    if response.success {
        Ok(response.data)
    } else {
        Err(HarnessError::CheckpointNotFound(format!(
            "pi has no entry {since} in this session"
        )))
    }
}

pub(crate) async fn state(
    client: &RpcClient,
    timeout: std::time::Duration,
) -> HarnessResult<(PathBuf, String)> {
    let response = ask(client, "get_state", json!({}), timeout).await?;
    match protocol::state_session(&response.data).filter(|_| response.success) {
        Some((file, id)) => Ok((PathBuf::from(file), id)),
        None => Err(client.failure("pi get_state named no session", WAIT).await),
    }
}

pub(crate) async fn ask(
    client: &RpcClient,
    command: &str,
    fields: Value,
    timeout: std::time::Duration,
) -> HarnessResult<protocol::Response> {
    match client.request(command, fields, timeout).await {
        Ok(response) => Ok(response),
        Err(err) => Err(client.failure(format!("pi `{command}`: {err}"), WAIT).await),
    }
}

/// Removes a fork file Pi wrote before the fork failed. Never the source.
pub(crate) fn remove_stray(file: &Path, source: &Path) {
    if same_file(file, source) || !file.is_file() {
        return;
    }
    match std::fs::remove_file(file) {
        Ok(()) => tracing::info!(path = %file.display(), "removed the failed pi fork's file"),
        Err(err) => {
            tracing::warn!(path = %file.display(), %err, "cannot remove a failed pi fork's file")
        }
    }
}
