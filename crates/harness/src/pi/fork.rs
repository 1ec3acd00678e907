//! Pi's native fork (see "Pi 1.6.0: the RPC runtime and native fork" and "Pi: a fork at the first
//! prompt" in docs/harness-behaviour.md).
//!
//! Always in a `pi --mode rpc --session <source>` process of its own, never through a live
//! runtime (a fork in a streaming process ends that process's run). The process switches to
//! the new session, which Pi writes next to the source with `parentSession` set; it is closed
//! right after. Pi's `fork {entryId}` keeps the path up to the **parent** of a user entry, so:
//!
//! | cut | Pi command | kept up to |
//! | --- | --- | --- |
//! | after T, T not last | `fork {entryId: user entry of T+1}` | T's checkpoint |
//! | after T, T last (latest) | `clone` | the leaf = T's checkpoint |
//! | before T (T > 1) | `fork {entryId: user entry of T}` | T−1's checkpoint |
//! | before turn 1 | none: a fresh session, pending until its first prompt | nothing |
//!
//! Before turn 1 there is nothing to inherit, and Pi would not write such a fork's file until
//! a prompt arrives (an empty fork stays in memory and vanishes with the fork's process), so
//! the fork is a `PendingFork` without source: a session id minted here, which the runtime
//! opens with `--session-id` (the file appears with its first prompt). It carries no
//! `parentSession`; the Host keeps the lineage.
//!
//! The source is only read: before spawning, sources Pi would write to on open are refused
//! (see [`session_files::check_opens_read_only`]), and the process runs without extensions,
//! skills, templates, context files, MCP or project-local resources (nothing that could append
//! to a session), offline. After the fork, Pi's own `get_entries` confirms the new session ends
//! exactly at the expected checkpoint; on any failure the new file is removed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use super::process::{RpcClient, RpcProcess};
use super::protocol;
use super::session_files;
use super::session_files::same_file;
use super::timeouts::{CLOSE_GRACE, REQUEST_TIMEOUT, STARTUP_TIMEOUT};
use super::version::require_supported;
use crate::contract::{Cut, ForkRequest, Forked, NativeSession, PendingFork};
use crate::{HarnessBinary, HarnessError, HarnessKind, HarnessResult, TurnAnchor};

/// How long to wait for the rest of stderr when reporting a failure.
const WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// What a cut asks of Pi.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Plan {
    /// Before turn 1: a fresh session.
    Fresh,
    /// A native fork whose new session must end at checkpoint `keep_to`.
    Native { keep_to: String, at: At },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum At {
    /// `fork` at this user entry (the prompt after the kept turns).
    UserEntry(String),
    /// The kept turn is the last one: `clone` the leaf.
    Leaf,
}

/// Derives a new Pi session from `source` at `cut`; see the module docs.
pub async fn fork(request: ForkRequest<'_>) -> HarnessResult<Forked> {
    require_supported(request.binary)?;
    let plan = plan(request.anchors, request.cut)?;
    let (source, env) = (request.source, request.env);
    let path = session_files::existing_file(source, env)?;
    match plan {
        Plan::Fresh => Ok(fresh(source)),
        Plan::Native { keep_to, at } => {
            native(request.binary, source, &path, &keep_to, &at, env).await
        }
    }
}

/// Validates `cut` against the anchors and picks the Pi operation.
fn plan(anchors: &[TurnAnchor], cut: Cut) -> HarnessResult<Plan> {
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

/// Before turn 1: a fresh session, pending until its first prompt.
fn fresh(source: &NativeSession) -> Forked {
    let session = NativeSession {
        kind: HarnessKind::Pi,
        session_id: uuid::Uuid::now_v7().to_string(),
        path: None,
        cwd: source.cwd.clone(),
    };
    tracing::info!(session_id = %session.session_id, "pi fork before turn 1: fresh pending session");
    Forked {
        session: session.clone(),
        pending: Some(PendingFork {
            source: None,
            session,
            resume_at: None,
        }),
    }
}

async fn native(
    binary: &HarnessBinary,
    source: &NativeSession,
    path: &Path,
    keep_to: &str,
    at: &At,
    env: &[(String, String)],
) -> HarnessResult<Forked> {
    session_files::check_opens_read_only(path)?;
    if !source.cwd.is_dir() {
        return Err(HarnessError::InvalidInput(format!(
            "the source's working directory {} does not exist",
            source.cwd.display()
        )));
    }
    let started = Instant::now();
    let (process, _events) = RpcProcess::spawn(binary, &fork_args(path), &source.cwd, env).await?;
    let client = process.client();
    let mut created = None;
    let result = run(&client, path, keep_to, at, &mut created).await;
    process.shutdown(CLOSE_GRACE).await;
    let result = result.and_then(|(file, id)| {
        if file.is_file() {
            Ok((file, id))
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
    });
    match result {
        Ok((file, id)) => {
            tracing::info!(
                session_id = %id,
                keep_to,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "pi fork created"
            );
            Ok(Forked {
                session: NativeSession {
                    kind: HarnessKind::Pi,
                    session_id: id,
                    path: Some(file),
                    cwd: source.cwd.clone(),
                },
                pending: None,
            })
        }
        Err(err) => {
            if let Some(file) = created {
                remove_stray(&file, path);
            }
            Err(err)
        }
    }
}

/// Pi without anything that could write to a session on its own, and without network.
fn fork_args(source: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--mode".into(), "rpc".into(), "--session".into()];
    args.push(source.as_os_str().to_owned());
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

/// The RPC exchange; `created` is set as soon as Pi has switched to a new session file.
async fn run(
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
async fn check_ends_at(client: &RpcClient, keep_to: &str) -> HarnessResult<()> {
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
async fn entries_after(client: &RpcClient, since: &str) -> HarnessResult<Value> {
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

async fn state(
    client: &RpcClient,
    timeout: std::time::Duration,
) -> HarnessResult<(PathBuf, String)> {
    let response = ask(client, "get_state", json!({}), timeout).await?;
    match protocol::state_session(&response.data).filter(|_| response.success) {
        Some((file, id)) => Ok((PathBuf::from(file), id)),
        None => Err(client.failure("pi get_state named no session", WAIT).await),
    }
}

async fn ask(
    client: &RpcClient,
    command: &str,
    fields: Value,
    timeout: std::time::Duration,
) -> HarnessResult<super::protocol::Response> {
    match client.request(command, fields, timeout).await {
        Ok(response) => Ok(response),
        Err(err) => Err(client.failure(format!("pi `{command}`: {err}"), WAIT).await),
    }
}

/// Removes a fork file Pi wrote before the fork failed. Never the source.
fn remove_stray(file: &Path, source: &Path) {
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

#[cfg(test)]
mod tests {
    use super::*;

    use TurnAnchor as A;

    fn three() -> Vec<TurnAnchor> {
        vec![
            A::of("u1", Some("a1"), true),
            A::of("u2", Some("a2"), true),
            A::of("u3", Some("a3"), true),
        ]
    }

    fn native(keep_to: &str, at: At) -> Plan {
        Plan::Native {
            keep_to: keep_to.into(),
            at,
        }
    }

    #[test]
    fn cuts_map_to_pis_fork_and_clone() {
        let a = three();
        assert_eq!(
            plan(&a, Cut::After(0)).unwrap(),
            native("a1", At::UserEntry("u2".into()))
        );
        assert_eq!(
            plan(&a, Cut::Before(1)).unwrap(),
            native("a1", At::UserEntry("u2".into()))
        );
        assert_eq!(
            plan(&a, Cut::Before(2)).unwrap(),
            native("a2", At::UserEntry("u3".into()))
        );
        assert_eq!(plan(&a, Cut::After(2)).unwrap(), native("a3", At::Leaf));
        assert_eq!(plan(&a, Cut::Before(0)).unwrap(), Plan::Fresh);
    }

    #[test]
    fn bad_cuts_are_typed_errors() {
        let a = three();
        assert!(matches!(
            plan(&a, Cut::After(3)),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            plan(&a, Cut::Before(3)),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            plan(&[], Cut::Before(0)),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            plan(&a, Cut::After(usize::MAX)),
            Err(HarnessError::TurnNotFound(_))
        ));
        let running = vec![
            A::of("u1", Some("a1"), true),
            A::of("u2", Some("u2"), false),
        ];
        assert!(matches!(
            plan(&running, Cut::After(1)),
            Err(HarnessError::Unsupported(_))
        ));
        // Before a running turn is fine: everything kept is complete.
        assert_eq!(
            plan(&running, Cut::Before(1)).unwrap(),
            native("a1", At::UserEntry("u2".into()))
        );
        let no_checkpoint = vec![A::of("u1", None, true), A::of("u2", Some("a2"), true)];
        assert!(matches!(
            plan(&no_checkpoint, Cut::After(0)),
            Err(HarnessError::CheckpointNotFound(_))
        ));
        let no_turn_ref = vec![A::of("u1", Some("a1"), true), A::of("", Some("a2"), true)];
        assert!(matches!(
            plan(&no_turn_ref, Cut::Before(1)),
            Err(HarnessError::CheckpointNotFound(_))
        ));
    }

    #[test]
    fn before_turn_one_is_a_fresh_pending_session() {
        let source = NativeSession {
            kind: HarnessKind::Pi,
            session_id: "src".into(),
            path: Some("/s.jsonl".into()),
            cwd: "/work".into(),
        };
        let forked = fresh(&source);
        let pending = forked.pending.expect("pending");
        assert_eq!(pending.source, None);
        assert_eq!(pending.session, forked.session);
        assert_eq!(forked.session.cwd, source.cwd);
        assert_ne!(forked.session.session_id, source.session_id);
        assert_eq!(forked.session.path, None);
    }

    #[tokio::test]
    async fn an_old_pi_never_forks() {
        let binary = HarnessBinary {
            kind: HarnessKind::Pi,
            path: "/nonexistent/pi".into(),
            version: "0.73.1".into(),
        };
        let source = NativeSession {
            kind: HarnessKind::Pi,
            session_id: "src".into(),
            path: Some("/nonexistent/s.jsonl".into()),
            cwd: "/".into(),
        };
        let anchors = three();
        let err = fork(ForkRequest {
            binary: &binary,
            source: &source,
            anchors: &anchors,
            cut: Cut::After(0),
            env: &[],
        })
        .await
        .err();
        assert!(matches!(err, Some(HarnessError::Unsupported(_))), "{err:?}");
    }
}
