//! Approvals in the Host: the requests a thread's runtime is waiting on, with the turn that
//! raised them, and how each one ended. A request stays pending until the user answers it
//! ([`Host::answer_approval`](crate::Host::answer_approval)), the harness withdraws it, or the
//! turn or process ends; nothing here answers for the user, and nothing times out on its own.

use std::path::PathBuf;

use forkhost_harness::{ApprovalDecision, ApprovalRequest, ApprovalSubject, Question};
use serde::Serialize;

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::grants::GrantScope;
use crate::host::Host;
use crate::slot::{Live, TurnState};

/// A pending request as the app and the CLI see it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ApprovalView {
    /// Its id in this Host; answer with this id. It names the runtime that raised it as well
    /// as the harness's own id, which repeats across processes (Codex numbers from `0` in
    /// each app-server), so an answer can never reach a later process's request.
    pub id: String,
    /// The harness's own id, within the runtime that raised it.
    #[serde(skip)]
    #[ts(skip)]
    pub native_id: String,
    /// Which turn of this runtime raised it (1 for the first turn sent to the process).
    #[ts(type = "number")]
    pub turn: u64,
    /// The tool call it is about, when the harness names it (matches `tool_call` events).
    pub tool_call_id: Option<String>,
    pub subject: SubjectView,
    /// Why the harness asks, when it says.
    pub reason: Option<String>,
    /// Whether "approve for this session" means something to this harness.
    pub can_approve_for_session: bool,
    /// What "Always this session" adds, one line each, for the card to list: the harness's
    /// own session rules, then Forkhost's (exactly this request, should the harness process
    /// start again). Empty when only "approve once" is offered.
    pub session_rules: Vec<String>,
}

/// What the harness wants to do (the contract's `ApprovalSubject`, exported to the UI).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum SubjectView {
    Command {
        command: String,
        #[ts(type = "string | null")]
        cwd: Option<PathBuf>,
    },
    FileChange {
        paths: Vec<String>,
        diff: Option<String>,
    },
    Tool {
        name: String,
        #[ts(type = "unknown")]
        input: serde_json::Value,
    },
    /// Questions, answered with [`Host::answer_question`] (one text per question).
    Question { questions: Vec<QuestionView> },
}

/// One question of a question request.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct QuestionView {
    /// A short label, when the harness gives one.
    pub header: Option<String>,
    pub prompt: String,
    /// The answers offered; empty when only free text fits.
    pub options: Vec<String>,
    /// Whether an answer other than the options is taken.
    pub free_text: bool,
}

impl From<Question> for QuestionView {
    fn from(q: Question) -> Self {
        QuestionView {
            header: q.header,
            prompt: q.prompt,
            options: q.options,
            free_text: q.free_text,
        }
    }
}

impl From<ApprovalSubject> for SubjectView {
    fn from(subject: ApprovalSubject) -> Self {
        match subject {
            ApprovalSubject::Command { command, cwd } => SubjectView::Command { command, cwd },
            ApprovalSubject::FileChange { paths, diff } => SubjectView::FileChange { paths, diff },
            ApprovalSubject::Tool { name, input } => SubjectView::Tool { name, input },
            ApprovalSubject::Question { questions } => SubjectView::Question {
                questions: questions.into_iter().map(Into::into).collect(),
            },
        }
    }
}

impl ApprovalView {
    /// The view of `request`, raised in turn `turn` of the runtime numbered `runtime`.
    pub fn new(request: ApprovalRequest, turn: u64, runtime: u64) -> ApprovalView {
        let can_approve_for_session = request.can_approve_for_session();
        let subject: SubjectView = request.subject.into();
        let mut session_rules = request.session_rules;
        if can_approve_for_session {
            if let Some(scope) = GrantScope::of(&subject) {
                session_rules.push(format!(
                    "Forkhost: if this thread's harness starts again, approve exactly this \
                     once more ({})",
                    scope.words()
                ));
            }
        }
        ApprovalView {
            id: format!("{runtime}-{}", request.id),
            native_id: request.id,
            turn,
            tool_call_id: request.tool_call_id,
            subject,
            reason: request.reason,
            can_approve_for_session,
            session_rules,
        }
    }
}

/// How a request stopped being pending, in `approval_resolved` events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// The user (or the policy they chose, like the CLI's `--approve`) answered it.
    Answered(ApprovalDecision),
    /// The user answered its questions.
    Replied,
    /// The user dismissed its questions.
    Dismissed,
    /// The harness no longer waits for it.
    Withdrawn,
    /// Its turn ended or its process went away before an answer.
    Gone,
}

impl Resolution {
    pub fn name(self) -> &'static str {
        match self {
            Resolution::Answered(decision) => decision.name(),
            Resolution::Replied => "answered",
            Resolution::Dismissed => "dismissed",
            Resolution::Withdrawn => "withdrawn",
            Resolution::Gone => "gone",
        }
    }
}

/// One runtime's pending requests, oldest first.
#[derive(Debug, Default)]
pub(crate) struct PendingApprovals {
    requests: Vec<ApprovalView>,
}

impl PendingApprovals {
    /// Records a request; a harness that re-raises an id replaces the older one.
    pub fn add(&mut self, request: ApprovalView) {
        self.requests.retain(|r| r.id != request.id);
        self.requests.push(request);
    }

    pub fn get(&self, id: &str) -> Option<&ApprovalView> {
        self.requests.iter().find(|r| r.id == id)
    }

    /// Removes the one with the harness's own id `native` (which the harness withdrew).
    pub fn take_native(&mut self, native: &str) -> Option<ApprovalView> {
        let at = self.requests.iter().position(|r| r.native_id == native)?;
        Some(self.requests.remove(at))
    }

    /// Removes one; `None` when it was not (or no longer) pending.
    pub fn take(&mut self, id: &str) -> Option<ApprovalView> {
        let at = self.requests.iter().position(|r| r.id == id)?;
        Some(self.requests.remove(at))
    }

    /// Removes every request, oldest first.
    pub fn drain(&mut self) -> Vec<ApprovalView> {
        std::mem::take(&mut self.requests)
    }

    pub fn list(&self) -> Vec<ApprovalView> {
        self.requests.clone()
    }

    pub fn ids(&self) -> Vec<String> {
        self.requests.iter().map(|r| r.id.clone()).collect()
    }

    /// The harness's own id of a pending request.
    pub fn native_id(&self, id: &str) -> Option<String> {
        self.get(id).map(|r| r.native_id.clone())
    }
}

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
            how: how.name().to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(id: &str) -> ApprovalView {
        ApprovalView::new(
            ApprovalRequest {
                id: id.into(),
                tool_call_id: Some(format!("call-{id}")),
                subject: ApprovalSubject::Command {
                    command: "touch x".into(),
                    cwd: None,
                },
                reason: None,
                session_rules: vec!["run exactly `touch x` again".into()],
            },
            1,
            7,
        )
    }

    #[test]
    fn requests_stay_until_taken_or_drained() {
        let mut pending = PendingApprovals::default();
        pending.add(request("a"));
        pending.add(request("b"));
        assert_eq!(pending.ids(), ["7-a", "7-b"]);
        assert_eq!(pending.native_id("7-a").as_deref(), Some("a"));
        assert_eq!(pending.take("7-a").map(|r| r.id), Some("7-a".into()));
        assert!(pending.take("7-a").is_none(), "answered once only");
        assert_eq!(pending.take_native("b").map(|r| r.id), Some("7-b".into()));
        pending.add(request("c"));
        assert_eq!(pending.drain().len(), 1);
        assert!(pending.list().is_empty());
    }

    #[test]
    fn a_re_raised_id_replaces_the_older_request() {
        let mut pending = PendingApprovals::default();
        pending.add(request("a"));
        pending.add(request("b"));
        pending.add(request("a"));
        assert_eq!(pending.ids(), ["7-b", "7-a"]);
    }

    #[test]
    fn resolutions_have_stable_names() {
        assert_eq!(
            Resolution::Answered(ApprovalDecision::DeclineAndStop).name(),
            "decline_and_stop"
        );
        assert_eq!(Resolution::Withdrawn.name(), "withdrawn");
        assert_eq!(Resolution::Replied.name(), "answered");
        assert_eq!(Resolution::Dismissed.name(), "dismissed");
        assert_eq!(Resolution::Gone.name(), "gone");
    }

    #[test]
    fn the_subject_keeps_its_kind_tag() {
        let json = serde_json::to_value(request("a")).unwrap();
        assert_eq!(json["subject"]["kind"], "command");
        assert_eq!(json["subject"]["command"], "touch x");
    }
}
