//! A native session's coordinates, which session a runtime opens, and where a fork cuts.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::approval::PermissionMode;

use super::binary::HarnessBinary;
use crate::history::TurnAnchor;
use crate::kind::HarnessKind;

/// A native session's coordinates: enough to resume it or fork it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NativeSession {
    pub kind: HarnessKind,
    /// Claude session id, Codex thread id, Pi session id.
    pub session_id: String,
    /// The native file, where the harness keeps one. For a lazy (Claude) fork this is where
    /// the file will appear.
    pub path: Option<PathBuf>,
    /// The working directory the harness runs in (Claude scopes resume to it).
    pub cwd: PathBuf,
}

/// Which session a runtime opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionTarget {
    /// A brand-new session in `cwd`.
    New { cwd: PathBuf },
    /// An existing session, resumed exactly (never a silent new one).
    Resume(NativeSession),
    /// A fork that materializes with its first prompt (Claude).
    PendingFork(PendingFork),
}

/// A fork whose native session is created by the harness on the first prompt. Stored as JSON
/// in the thread's `pending_fork` column until then, so it survives restarts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingFork {
    /// The session to fork from; `None` for a fork before the first turn (a fresh session).
    pub source: Option<NativeSession>,
    /// The fork's own coordinates, minted up front.
    pub session: NativeSession,
    /// The native checkpoint to cut at (Claude `--resume-session-at`); `None` = the source's
    /// latest.
    pub resume_at: Option<String>,
}

/// Where a fork cuts, as a 0-based index into the source's turn anchors. The Host resolves
/// `latest` to `After(last complete turn)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cut {
    /// Keep turns `0..=i`.
    After(usize),
    /// Keep turns `0..i` (turn i's prompt goes back to the user for editing).
    Before(usize),
}

/// A native fork's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forked {
    pub session: NativeSession,
    /// Set when the native session appears only with the first prompt.
    pub pending: Option<PendingFork>,
}

/// Everything a native fork needs: derive a new session from `source` at `cut`. `anchors` are
/// the source's turns as its reader indexed them; `env` is extra environment for any process
/// the fork runs (the rest is inherited).
#[derive(Debug, Clone, Copy)]
pub struct ForkRequest<'a> {
    pub binary: &'a HarnessBinary,
    pub source: &'a NativeSession,
    pub anchors: &'a [TurnAnchor],
    pub cut: Cut,
    pub env: &'a [(String, String)],
    /// The folder the fork runs in (an existing directory, e.g. a git worktree holding the
    /// files as of the fork point); `None` = the source's folder. The fork's
    /// [`NativeSession::cwd`] is this folder, its native session lives where the harness keeps
    /// that folder's sessions, and it resumes from there ("Forking into another folder" in
    /// docs/harness-behaviour.md).
    pub cwd: Option<&'a Path>,
}

impl ForkRequest<'_> {
    /// The folder the fork runs in: [`ForkRequest::cwd`], else the source's.
    pub fn fork_cwd(&self) -> &Path {
        self.cwd.unwrap_or(&self.source.cwd)
    }
}

/// Everything a runtime needs to start.
#[derive(Debug, Clone)]
pub struct OpenSpec {
    pub binary: HarnessBinary,
    pub target: SessionTarget,
    /// Extra environment for the process (the rest is inherited).
    pub env: Vec<(String, String)>,
    /// How much the harness may do without asking; checked against its
    /// [`PermissionChoices`](super::PermissionChoices) before it starts.
    pub permissions: PermissionMode,
    /// Whether to load the project's own agent config (hooks, MCP servers, extensions), as
    /// the user decided for the folder; `None` where there is none to decide on.
    pub trusted: Option<bool>,
    /// The model to start with (`None`: the harness's own choice). Claude takes it as
    /// `--model`, Codex sends it with each turn; Pi ignores it (its session records the model
    /// `set_model` chose).
    pub model: Option<String>,
}
