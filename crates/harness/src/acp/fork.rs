//! Forking an ACP agent's session at a turn, and reading a stored session back, each in a
//! process of its own (never through a live runtime, whose turn may be running).
//!
//! A fork after turn k copies turn k's snapshot ([`super::runtime`]): `session/fork` of the
//! snapshot, so the snapshot stays as it was for the next fork and the source session is
//! neither prompted nor changed. Before the first turn there is nothing to copy: the fork is a
//! new session. A turn without a snapshot (the agent offers no `session/fork`, the snapshot
//! failed, or the session was made outside Forkhost) cannot be forked this way, and the error
//! says so in words.

use std::path::Path;
use std::time::Duration;

use super::agent::AgentProcess;
use super::AgentCommand;
use crate::contract::{Cut, ForkRequest};
use crate::error::{HarnessError, HarnessResult};
use crate::history::Turn;

/// An agent's stored sessions, reached through processes of their own.
#[derive(Debug, Clone, Copy)]
pub struct AgentSessions<'a> {
    pub agent: &'a AgentCommand,
    /// The program to run (found on PATH, or the agent's variable).
    pub program: &'a Path,
    /// Extra environment for each process.
    pub env: &'a [(String, String)],
}

impl AgentSessions<'_> {
    /// A new session holding the conversation up to a turn: a copy of `snapshot` (the turn's
    /// native checkpoint), or a new session when `None` (a fork before the first turn). Its id.
    pub async fn fork_at(&self, snapshot: Option<&str>, cwd: &Path) -> HarnessResult<String> {
        let process = self.start(cwd).await?;
        let forked = match snapshot {
            Some(snapshot) if process.offers.fork => process.fork_session(snapshot, cwd).await,
            Some(_) => Err(HarnessError::Unsupported(format!(
                "{} cannot fork at an earlier message (it offers no session/fork): continue \
                 in Claude Code, Codex or Pi instead",
                self.agent.product_name
            ))),
            None => process.new_session(cwd).await,
        };
        process.close(Duration::from_secs(3)).await;
        forked
    }

    /// Session `id` as the agent plays it back (`session/load`), turn by turn.
    pub async fn history(&self, id: &str, cwd: &Path) -> HarnessResult<Vec<Turn>> {
        let process = self.start(cwd).await?;
        let turns = process.replay(id, cwd).await;
        process.close(Duration::from_secs(3)).await;
        turns
    }

    async fn start(&self, cwd: &Path) -> HarnessResult<AgentProcess> {
        AgentProcess::start(self.agent, self.program, cwd, self.env).await
    }
}

/// The snapshot a fork at `request.cut` copies: that of the last turn it keeps (`None` before
/// the first turn: the fork is a new session). A kept turn without one refuses in words.
pub(super) fn snapshot_at<'a>(
    request: &ForkRequest<'a>,
    product: &str,
) -> HarnessResult<Option<&'a str>> {
    let last_kept = match request.cut {
        Cut::After(i) => Some(i),
        Cut::Before(0) => None,
        Cut::Before(i) => Some(i - 1),
    };
    let Some(i) = last_kept else {
        return Ok(None);
    };
    let anchor = request
        .anchors
        .get(i)
        .ok_or_else(|| HarnessError::InvalidInput(format!("the session has no turn {}", i + 1)))?;
    let snapshot = anchor.native_checkpoint_ref.as_deref().ok_or_else(|| {
        HarnessError::Unsupported(format!(
            "turn {} of this {product} session has no snapshot (it was made outside Forkhost, or \
             its snapshot failed), so {product} cannot fork there: continue in Claude Code, \
             Codex or Pi instead",
            i + 1
        ))
    })?;
    Ok(Some(snapshot))
}
