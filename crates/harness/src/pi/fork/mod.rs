//! Pi's native fork (see "Pi 1.6.0: the RPC runtime and native fork" and "Pi: a fork at the first
//! prompt" in docs/harness-behaviour.md).
//!
//! Always in a `pi --mode rpc --session <source>` process of its own, never through a live
//! runtime (a fork in a streaming process ends that process's run). The process switches to
//! the new session, which Pi writes next to the source with `parentSession` set; it is closed
//! right after. (A warm spare, [`super::spare`], runs the same exchange, [`steps::run`], in an idle
//! process switched to the source, and stays on as the fork's runtime.) Pi's `fork {entryId}` keeps the path up to the **parent** of a user entry, so:
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
//! A fork into another folder ([`ForkRequest::cwd`]) cuts the same way into a staging folder,
//! then copies the cut into the new folder with Pi's own `--fork` (see [`into_folder`]).
//!
//! The source is only read: before spawning, sources Pi would write to on open are refused
//! (see [`crate::pi::session_files::check_opens_read_only`]), and the process runs without
//! extensions, skills, templates, context files, MCP or project-local resources (nothing that
//! could append to a session), offline. After the fork, Pi's own `get_entries` confirms the new session ends
//! exactly at the expected checkpoint; on any failure the new file is removed.
//!
//! This file is the entry (plan, then dispatch); the steps every path shares (checks, the cut,
//! the RPC exchange) are [`steps`], and the fork into another folder is [`into_folder`].

#[cfg(test)]
mod fork_tests;
pub(super) mod into_folder;
pub(super) mod steps;

use std::path::Path;
use std::time::Instant;

use steps::{cut, prepare, At, NativeCut, Plan, Prepared};

use crate::contract::{ForkRequest, Forked, NativeSession, PendingFork};
use crate::{HarnessBinary, HarnessKind, HarnessResult};

/// Derives a new Pi session from `source` at `cut`; see the module docs.
pub async fn fork(request: ForkRequest<'_>) -> HarnessResult<Forked> {
    let Prepared { plan, path, into } = prepare(&request)?;
    let (source, env) = (request.source, request.env);
    match (plan, into) {
        (Plan::Fresh, _) => Ok(fresh(request.fork_cwd())),
        (Plan::Native { keep_to, at }, None) => {
            native(request.binary, source, &path, &keep_to, &at, env).await
        }
        (Plan::Native { keep_to, at }, Some(dir)) => {
            let cut = NativeCut {
                binary: request.binary,
                source,
                path: &path,
                keep_to: &keep_to,
                at: &at,
                env,
            };
            into_folder::into_folder(cut, dir).await
        }
    }
}

/// Before turn 1: a fresh session in `cwd`, pending until its first prompt.
pub(crate) fn fresh(cwd: &Path) -> Forked {
    let session = NativeSession {
        kind: HarnessKind::Pi,
        session_id: uuid::Uuid::now_v7().to_string(),
        path: None,
        cwd: cwd.to_owned(),
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
    let started = Instant::now();
    let request = NativeCut {
        binary,
        source,
        path,
        keep_to,
        at,
        env,
    };
    let (file, id) = cut(&request, None).await?;
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
