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

use forkhost_store::GrantRow;

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::grant_scope::{now_ms, GrantScope, GrantView};
use crate::base::thread_handle::TurnState;
use crate::base::view::{ApprovalView, SubjectView};
use crate::host::Host;

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
        let slot = self.handle(thread_id);
        let streaming = {
            let live = slot.live.lock().await;
            live.as_ref().map(|l| {
                l.turn.retire();
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
        // A file change keeps where its files land (L-1); one that cannot say is not kept.
        let Some(scope) = GrantScope::of(subject).and_then(GrantScope::resolved) else {
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
        if !self.inner.session_grants.load(Ordering::SeqCst) || !turn.session_grants() {
            return false;
        }
        let Ok(rows) = self.store().grants(thread_id).await else {
            return false;
        };
        rows.into_iter()
            .filter(|row| row.granted_at < turn.started_ms())
            .filter_map(GrantView::from_row)
            .any(|grant| {
                grant.scope.covers(&request.subject)
                    && grant.scope.lands_as_granted(&request.subject)
            })
    }

    /// Ends a runtime whose grants were revoked while its turn ran, once that turn is over,
    /// unless it was already replaced or another turn started.
    pub(crate) async fn retire_runtime(&self, thread_id: &str, turn: &Arc<TurnState>) {
        let slot = self.handle(thread_id);
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
