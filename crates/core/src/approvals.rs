//! Approvals in the Host: the requests a thread's runtime is waiting on, with the turn that
//! raised them, and how each one ended. A request stays pending until the user answers it
//! ([`Host::answer_approval`](crate::Host::answer_approval)), the harness withdraws it, or the
//! turn or process ends; nothing here answers for the user, and nothing times out on its own.

use forkhost_harness::ApprovalDecision;

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::host::Host;
use crate::pending::Resolution;
use crate::slot::{Live, TurnState};
use crate::view::{ApprovalView, SubjectView};

impl Host {
    /// Answers a pending request of the thread's runtime. An id that is not pending (answered,
    /// withdrawn, its turn over) is `invalid_input`; the harness refusing is `harness_failed`.
    pub async fn answer_approval(
        &self,
        thread_id: &str,
        request_id: &str,
        decision: ApprovalDecision,
    ) -> HostResult<()> {
        self.store().thread(thread_id).await?;
        let slot = self.slot(thread_id);
        let mut live = slot.live.lock().await;
        let native = live
            .as_ref()
            .and_then(|l| l.turn.approvals().native_id(request_id));
        let (Some(current), Some(native)) = (live.as_mut(), native) else {
            return Err(HostError::InvalidInput(format!(
                "no pending approval request {request_id:?} in thread {thread_id}"
            )));
        };
        current.runtime.answer(&native, decision).await?;
        // A withdrawal that crossed the answer has already been reported.
        let taken = current.turn.approvals().take(request_id);
        drop(live);
        let answered = taken.is_some();
        if let (ApprovalDecision::ApproveForSession, Some(request)) = (decision, &taken) {
            self.record_grant(thread_id, &request.subject).await;
        }
        tracing::info!(thread = %thread_id, request = %request_id, decision = decision.name(), "approval answered");
        if answered {
            self.resolved(thread_id, request_id, Resolution::Answered(decision));
        }
        Ok(())
    }

    /// Answers a pending question request with one text per question (each an offered
    /// option, or any text where the question takes it), or dismisses it (`None`). Answers
    /// that do not fit the questions are `invalid_input`, and the question stays pending.
    pub async fn answer_question(
        &self,
        thread_id: &str,
        request_id: &str,
        answers: Option<Vec<String>>,
    ) -> HostResult<()> {
        self.store().thread(thread_id).await?;
        let slot = self.slot(thread_id);
        let mut live = slot.live.lock().await;
        let Some(current) = live.as_mut().filter(|l| {
            l.turn
                .approvals()
                .get(request_id)
                .is_some_and(|r| matches!(r.subject, SubjectView::Question { .. }))
        }) else {
            return Err(HostError::InvalidInput(format!(
                "no pending question {request_id:?} in thread {thread_id}"
            )));
        };
        let how = match answers {
            Some(_) => Resolution::Replied,
            None => Resolution::Dismissed,
        };
        let native = current
            .turn
            .approvals()
            .native_id(request_id)
            .unwrap_or_default();
        current.runtime.answer_question(&native, answers).await?;
        let answered = current.turn.approvals().take(request_id).is_some();
        drop(live);
        tracing::info!(thread = %thread_id, request = %request_id, how = how.name(), "question answered");
        if answered {
            self.resolved(thread_id, request_id, how);
        }
        Ok(())
    }

    /// The requests the thread's runtime is waiting on, oldest first.
    pub async fn pending_approvals(&self, thread_id: &str) -> HostResult<Vec<ApprovalView>> {
        self.store().thread(thread_id).await?;
        let slot = self.slot(thread_id);
        let live = slot.live.lock().await;
        Ok(live
            .as_ref()
            .map(|l| l.turn.approvals().list())
            .unwrap_or_default())
    }

    /// Declines every pending request of a runtime (a turn being stopped): the harness hears
    /// a refusal rather than an answer that never comes.
    pub(crate) async fn decline_pending(&self, thread_id: &str, live: &mut Live) {
        let ids = live.turn.approvals().ids();
        for id in ids {
            let native = live.turn.approvals().native_id(&id).unwrap_or_default();
            if let Err(err) = live
                .runtime
                .answer(&native, ApprovalDecision::Decline)
                .await
            {
                tracing::warn!(thread = %thread_id, request = %id, code = HostError::from(err).code(), "could not decline a pending request");
            }
            if live.turn.approvals().take(&id).is_some() {
                self.resolved(
                    thread_id,
                    &id,
                    Resolution::Answered(ApprovalDecision::Decline),
                );
            }
        }
    }

    /// Reports every pending request of a runtime as gone (its turn or process ended).
    pub(crate) fn drop_pending(&self, thread_id: &str, turn: &TurnState) {
        for request in turn.approvals().drain() {
            self.resolved(thread_id, &request.id, Resolution::Gone);
        }
    }

    pub(crate) fn resolved(&self, thread_id: &str, id: &str, how: Resolution) {
        tracing::info!(thread = %thread_id, request = %id, how = how.name(), "approval resolved");
        self.emit(HostEvent::ApprovalResolved {
            thread_id: thread_id.to_owned(),
            id: id.to_owned(),
            how: how.into(),
        });
    }
}
