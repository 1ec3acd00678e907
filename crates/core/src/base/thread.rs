//! [`Thread`]: a thread row read once. The store keeps the harness as text and a pending fork
//! as JSON; here they are parsed, in one place, and everything core asks of a row — which
//! harness, which native session, which session a runtime opens, which file holds its text,
//! what a fork of it forks from — is answered from the parsed form.

use std::path::PathBuf;

use forkhost_harness::{HarnessKind, NativeSession, PendingFork, PermissionMode, SessionTarget};
use forkhost_store::{ThreadRow, ThreadState};

use crate::base::error::{HostError, HostResult};
use crate::base::view::{ForkView, NativeView, PermissionsView, ThreadView};

/// A thread as core works with it.
#[derive(Debug, Clone)]
pub(crate) struct Thread {
    /// The row as read: its `revision` guards any write back.
    pub row: ThreadRow,
    pub kind: HarnessKind,
    /// Its own native session, once the harness named it (a pending fork's is minted up front;
    /// its file appears with the first prompt).
    pub native: Option<NativeSession>,
    /// A fork that materializes with its first prompt.
    pub pending: Option<PendingFork>,
    /// The folder the harness runs in.
    pub folder: PathBuf,
}

impl Thread {
    pub fn parse(row: ThreadRow) -> HostResult<Thread> {
        let kind: HarnessKind =
            row.harness
                .parse()
                .map_err(|e: forkhost_harness::kind::UnknownHarness| {
                    HostError::Internal(e.to_string())
                })?;
        let pending = row
            .pending_fork
            .as_deref()
            .map(decode_pending)
            .transpose()?;
        let folder = PathBuf::from(&row.cwd);
        let native = row
            .native_session_id
            .as_ref()
            .map(|session_id| NativeSession {
                kind,
                session_id: session_id.clone(),
                path: row.native_path.as_ref().map(PathBuf::from),
                cwd: folder.clone(),
            });
        Ok(Thread {
            row,
            kind,
            native,
            pending,
            folder,
        })
    }

    pub fn id(&self) -> &str {
        &self.row.id
    }

    /// How much its harness may do without asking (the harness's default where unset).
    pub fn permissions(&self) -> PermissionMode {
        PermissionMode {
            mode: self.row.permission_mode.clone(),
            sandbox: self.row.permission_sandbox.clone(),
        }
    }

    pub fn state(&self) -> ThreadState {
        self.row.state
    }

    /// Refuses operations on a thread whose native session is gone, or that a fork is still
    /// creating.
    pub fn usable(&self) -> HostResult<()> {
        match self.state() {
            ThreadState::Missing => Err(HostError::SessionNotFound(format!(
                "the native session of thread {} is gone",
                self.id()
            ))),
            ThreadState::Creating => Err(HostError::Busy(format!(
                "thread {} is still being created",
                self.id()
            ))),
            _ => Ok(()),
        }
    }

    /// Its own native file, where the harness keeps one (it may not exist yet).
    pub fn native_path(&self) -> Option<PathBuf> {
        self.row.native_path.as_ref().map(PathBuf::from)
    }

    /// Its native session does not exist on disk yet: a pending fork, or a new thread before
    /// its first prompt. Its stored turns may still be someone else's (the fork's source).
    pub fn is_materializing(&self) -> bool {
        self.pending.is_some() || self.state() == ThreadState::Pending
    }

    /// Which native session its runtime opens. A thread that had a session resumes exactly
    /// that one: if its file is gone that is `session_not_found`, never a silent new session.
    pub fn session_target(&self) -> HostResult<SessionTarget> {
        if let Some(pending) = &self.pending {
            return Ok(SessionTarget::PendingFork(pending.clone()));
        }
        match &self.native {
            Some(native) => {
                if native
                    .path
                    .as_ref()
                    .is_some_and(|p| !forkhost_harness::session_present(self.kind, p))
                {
                    return Err(HostError::SessionNotFound(format!(
                        "the native session of thread {} is gone",
                        self.id()
                    )));
                }
                Ok(SessionTarget::Resume(native.clone()))
            }
            None => Ok(SessionTarget::New {
                cwd: self.folder.clone(),
            }),
        }
    }

    /// Where its text is read from: its own file, or — for a fork that has not materialized —
    /// its source's file (its inherited anchors point there).
    pub fn text_file(&self) -> Option<PathBuf> {
        if let Some(path) = self.native_path() {
            if forkhost_harness::session_present(self.kind, &path) || self.pending.is_none() {
                return Some(path);
            }
        }
        self.pending
            .as_ref()
            .and_then(|p| p.source.as_ref())
            .and_then(|s| s.path.clone())
    }

    /// The native session a fork of this thread forks: its own, or — while it is a pending fork
    /// with no file of its own — its source's, since its inherited turns are the source's.
    pub fn fork_source(&self) -> HostResult<NativeSession> {
        match &self.pending {
            Some(pending) => pending.source.clone().ok_or_else(|| {
                HostError::TurnNotFound(format!(
                    "thread {} has no turns to fork from yet",
                    self.id()
                ))
            }),
            None => self.native.clone().ok_or_else(|| {
                HostError::SessionNotFound(format!("thread {} has no session", self.id()))
            }),
        }
    }
}

/// The `pending_fork` column's text for a pending fork.
pub(crate) fn encode_pending(pending: &PendingFork) -> HostResult<String> {
    serde_json::to_string(pending).map_err(|e| HostError::Internal(e.to_string()))
}

fn decode_pending(text: &str) -> HostResult<PendingFork> {
    serde_json::from_str(text)
        .map_err(|e| HostError::Internal(format!("bad pending fork record: {e}")))
}

/// The store keeps the harness as text: a row naming none this build knows has no view
/// (`internal`, as [`Thread::parse`] says of it).
impl TryFrom<&ThreadRow> for ThreadView {
    type Error = HostError;

    fn try_from(row: &ThreadRow) -> Result<Self, HostError> {
        let harness = row
            .harness
            .parse()
            .map_err(|e| HostError::Internal(format!("thread {}: {e}", row.id)))?;
        Ok(ThreadView {
            id: row.id.clone(),
            harness,
            cwd: row.cwd.clone(),
            title: row.title.clone(),
            state: row.state,
            native: NativeView {
                session_id: row.native_session_id.clone(),
                path: row.native_path.clone(),
            },
            fork: row.fork.as_ref().map(|f| ForkView {
                source_thread: f.source_thread.clone(),
                source_turn: f.source_turn.clone(),
                boundary: f.boundary,
                source_harness: f.source_harness.as_deref().and_then(|h| h.parse().ok()),
                source_turn_number: None,
            }),
            permissions: PermissionsView {
                mode: row.permission_mode.clone(),
                sandbox: row.permission_sandbox.clone(),
                sandbox_default: false,
            },
            revision: row.revision,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A new Claude thread's row (other modules' tests start from it too).
    pub(crate) fn row() -> ThreadRow {
        ThreadRow {
            id: "t".into(),
            harness: "claude".into(),
            cwd: "/w".into(),
            title: "t".into(),
            title_custom: false,
            state: ThreadState::Pending,
            native_session_id: None,
            native_path: None,
            fork: None,
            pending_fork: None,
            permission_mode: None,
            permission_sandbox: None,
            revision: 0,
            created_at: 0,
            updated_at: 0,
        }
    }

    fn session(id: &str, path: &str) -> NativeSession {
        NativeSession {
            kind: HarnessKind::Claude,
            session_id: id.into(),
            path: Some(PathBuf::from(path)),
            cwd: PathBuf::from("/w"),
        }
    }

    #[test]
    fn a_new_thread_opens_a_new_session_in_its_folder() {
        let thread = Thread::parse(row()).unwrap();
        assert_eq!(thread.kind, HarnessKind::Claude);
        assert!(thread.is_materializing());
        assert_eq!(
            thread.session_target().unwrap(),
            SessionTarget::New {
                cwd: PathBuf::from("/w")
            }
        );
        assert_eq!(
            thread.fork_source().unwrap_err().code(),
            "session_not_found"
        );
    }

    #[test]
    fn a_pending_fork_reads_and_forks_its_source_until_its_file_appears() {
        let pending = PendingFork {
            source: Some(session("src", "/nowhere/src.jsonl")),
            session: session("fork", "/nowhere/fork.jsonl"),
            resume_at: Some("cp".into()),
        };
        let thread = Thread::parse(ThreadRow {
            native_session_id: Some("fork".into()),
            native_path: Some("/nowhere/fork.jsonl".into()),
            pending_fork: Some(encode_pending(&pending).unwrap()),
            ..row()
        })
        .unwrap();
        assert_eq!(thread.pending.as_ref(), Some(&pending));
        assert_eq!(
            thread.text_file(),
            Some(PathBuf::from("/nowhere/src.jsonl"))
        );
        assert_eq!(thread.fork_source().unwrap().session_id, "src");
        assert_eq!(
            thread.session_target().unwrap(),
            SessionTarget::PendingFork(pending)
        );
    }

    #[test]
    fn a_resumed_session_whose_file_is_gone_is_not_found() {
        let thread = Thread::parse(ThreadRow {
            state: ThreadState::Ready,
            native_session_id: Some("s".into()),
            native_path: Some("/nowhere/s.jsonl".into()),
            ..row()
        })
        .unwrap();
        assert!(!thread.is_materializing());
        assert_eq!(
            thread.session_target().unwrap_err().code(),
            "session_not_found"
        );
        assert_eq!(thread.text_file(), Some(PathBuf::from("/nowhere/s.jsonl")));
    }

    #[test]
    fn a_bad_row_is_an_internal_error() {
        let bad_kind = Thread::parse(ThreadRow {
            harness: "vim".into(),
            ..row()
        });
        assert_eq!(bad_kind.unwrap_err().code(), "internal");
        let bad_pending = Thread::parse(ThreadRow {
            pending_fork: Some("{".into()),
            ..row()
        });
        assert_eq!(bad_pending.unwrap_err().code(), "internal");
    }
}
