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

use std::sync::atomic::Ordering;
use std::sync::Arc;

use forkhost_harness::ApprovalDecision;
use forkhost_store::GrantRow;

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::grant_scope::{now_ms, GrantScope, GrantView};
use crate::host::Host;
use crate::slot::TurnState;
use crate::view::{ApprovalView, SubjectView};

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
        crate::pending::approval_view(
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
}
