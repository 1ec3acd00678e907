//! Approvals in the Host: the requests a thread's runtime is waiting on, with the turn that
//! raised them, and how each one ended. A request stays pending until the user answers it
//! ([`Host::answer_approval`](crate::Host::answer_approval)), the harness withdraws it, or the
//! turn or process ends; nothing here answers for the user, and nothing times out on its own.
//!
//! The thread's [`ThreadHandle`] holds the only list, each request with its own reply: answering
//! takes the request off the list and sends through its reply, never taking the runtime's
//! lock, so an answer is never queued behind a send or a mode change.

use forkhost_harness::{Answer, ApprovalDecision, Reply};

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::pending::{answers_fit, Resolution};
use crate::base::thread_handle::{ThreadHandle, TurnState};
use crate::base::view::{ApprovalView, SubjectView};
use crate::host::Host;

impl Host {
    /// Answers a pending request of the thread's runtime. An id that is not pending (answered,
    /// withdrawn, its turn over) is `invalid_input`, as is approving a question or approving
    /// "for this session" where that means nothing; the harness failing to take the answer
    /// (its process gone) is `harness_failed`.
    pub async fn answer_approval(
        &self,
        thread_id: &str,
        request_id: &str,
        decision: ApprovalDecision,
    ) -> HostResult<()> {
        self.store().thread(thread_id).await?;
        let slot = self.handle(thread_id);
        let taken = {
            let mut pending = slot.pending();
            let request = pending.get(request_id).ok_or_else(|| {
                HostError::InvalidInput(format!(
                    "no pending approval request {request_id:?} in thread {thread_id}"
                ))
            })?;
            if matches!(request.subject, SubjectView::Question { .. }) && decision.approves() {
                return Err(HostError::InvalidInput(format!(
                    "request {request_id:?} is a question: answer it, or decline it"
                )));
            }
            if decision == ApprovalDecision::ApproveForSession && !request.can_approve_for_session {
                return Err(HostError::InvalidInput(format!(
                    "request {request_id:?} cannot be approved for this session: approve it once"
                )));
            }
            pending.take(request_id)
        };
        let Some((request, reply)) = taken else {
            return Err(HostError::InvalidInput(format!(
                "no pending approval request {request_id:?} in thread {thread_id}"
            )));
        };
        let written = reply.send(Answer::Decision(decision)).await;
        tracing::info!(thread = %thread_id, request = %request_id, decision = decision.name(), written = written.is_ok(), "approval answered");
        if let Err(err) = written {
            self.answer_failed(&slot, request, reply, &err);
            return Err(err.into());
        }
        if decision == ApprovalDecision::ApproveForSession {
            self.record_grant(thread_id, &request.subject).await;
        }
        self.resolved(thread_id, request_id, Resolution::Answered(decision));
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
        let slot = self.handle(thread_id);
        let taken = {
            let mut pending = slot.pending();
            let Some(SubjectView::Question { questions }) =
                pending.get(request_id).map(|r| &r.subject)
            else {
                return Err(HostError::InvalidInput(format!(
                    "no pending question {request_id:?} in thread {thread_id}"
                )));
            };
            if let Some(answers) = &answers {
                if !answers_fit(questions, answers) {
                    return Err(HostError::InvalidInput(format!(
                        "{} answers do not fit request {request_id:?}'s {} questions (one \
                         each, an offered option where only those are taken)",
                        answers.len(),
                        questions.len()
                    )));
                }
            }
            pending.take(request_id)
        };
        let Some((request, reply)) = taken else {
            return Err(HostError::InvalidInput(format!(
                "no pending question {request_id:?} in thread {thread_id}"
            )));
        };
        let how = match answers {
            Some(_) => Resolution::Replied,
            None => Resolution::Dismissed,
        };
        let written = reply.send(Answer::Questions(answers)).await;
        tracing::info!(thread = %thread_id, request = %request_id, how = how.name(), written = written.is_ok(), "question answered");
        if let Err(err) = written {
            self.answer_failed(&slot, request, reply, &err);
            return Err(err.into());
        }
        self.resolved(thread_id, request_id, how);
        Ok(())
    }

    /// An answer did not reach the harness: one it refused as not fitting leaves the request
    /// pending (it can still be answered); otherwise its process is gone, and so is it.
    fn answer_failed(
        &self,
        slot: &ThreadHandle,
        request: ApprovalView,
        reply: Reply,
        err: &forkhost_harness::HarnessError,
    ) {
        if matches!(err, forkhost_harness::HarnessError::InvalidInput(_)) && reply.is_open() {
            slot.add_pending(request, reply);
        } else {
            self.resolved(&slot.thread_id, &request.id, Resolution::Gone);
        }
    }

    /// The requests the thread's runtime is waiting on, oldest first.
    pub async fn pending_approvals(&self, thread_id: &str) -> HostResult<Vec<ApprovalView>> {
        self.store().thread(thread_id).await?;
        Ok(self.handle(thread_id).pending().list())
    }

    /// A request the runtime raised: answered at once by a session grant that covers it, or
    /// kept and shown. Its own task answers a granted one, so the pump never waits on the
    /// harness; the reply reaches only the runtime that raised it.
    pub(crate) async fn raised(
        &self,
        thread_id: &str,
        view: ApprovalView,
        reply: Reply,
        turn: &TurnState,
    ) {
        if self.granted(thread_id, &view, turn).await {
            let thread = thread_id.to_owned();
            tokio::spawn(async move {
                match reply
                    .send(Answer::Decision(ApprovalDecision::Approve))
                    .await
                {
                    Ok(()) => {
                        tracing::info!(thread = %thread, request = %view.id, "approved by a session grant")
                    }
                    // Its process went before the answer; nothing was approved.
                    Err(err) => {
                        tracing::warn!(thread = %thread, request = %view.id, error = %err, "a session grant could not answer")
                    }
                }
            });
            return;
        }
        self.handle(thread_id).add_pending(view.clone(), reply);
        self.emit(HostEvent::ApprovalRequested {
            thread_id: thread_id.to_owned(),
            request: view,
        });
    }

    /// The harness no longer waits for request `native` of runtime `turn` (answered ones are
    /// already off the list).
    pub(crate) fn withdrawn(&self, thread_id: &str, turn: &TurnState, native: &str) {
        let withdrawn = self
            .handle(thread_id)
            .pending()
            .take_native(turn.generation(), native);
        if let Some((request, _)) = withdrawn {
            self.resolved(thread_id, &request.id, Resolution::Withdrawn);
        }
    }

    /// Declines every pending request of the thread (a turn being stopped): the harness hears
    /// a refusal rather than an answer that never comes.
    pub(crate) async fn decline_pending(&self, thread_id: &str, slot: &ThreadHandle) {
        let all: Vec<_> = {
            let mut pending = slot.pending();
            let ids: Vec<String> = pending.list().into_iter().map(|r| r.id).collect();
            ids.iter().filter_map(|id| pending.take(id)).collect()
        };
        for (request, reply) in all {
            if let Err(err) = reply
                .send(Answer::Decision(ApprovalDecision::Decline))
                .await
            {
                tracing::warn!(thread = %thread_id, request = %request.id, code = HostError::from(err).code(), "could not decline a pending request");
            }
            self.resolved(
                thread_id,
                &request.id,
                Resolution::Answered(ApprovalDecision::Decline),
            );
        }
    }
}

#[cfg(test)]
#[path = "approvals_tests.rs"]
mod tests;
