//! The requests a runtime is waiting on, and how each one stopped being pending.

use forkhost_harness::{ApprovalDecision, ApprovalRequest};

use crate::events::ApprovalResolution;
use crate::grant_scope::GrantScope;
use crate::view::{ApprovalView, SubjectView};

/// The view of `request`, raised in turn `turn` of the runtime numbered `runtime`, with
/// the session rules "Always" would add.
pub(crate) fn approval_view(request: ApprovalRequest, turn: u64, runtime: u64) -> ApprovalView {
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

/// Its name in `approval_resolved` events (`Resolution::name`'s word; a test holds them equal).
impl From<Resolution> for ApprovalResolution {
    fn from(how: Resolution) -> Self {
        use ApprovalDecision as D;
        match how {
            Resolution::Answered(D::Approve) => ApprovalResolution::Approve,
            Resolution::Answered(D::ApproveForSession) => ApprovalResolution::ApproveForSession,
            Resolution::Answered(D::Decline) => ApprovalResolution::Decline,
            Resolution::Answered(D::DeclineAndStop) => ApprovalResolution::DeclineAndStop,
            Resolution::Replied => ApprovalResolution::Answered,
            Resolution::Dismissed => ApprovalResolution::Dismissed,
            Resolution::Withdrawn => ApprovalResolution::Withdrawn,
            Resolution::Gone => ApprovalResolution::Gone,
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

#[cfg(test)]
mod tests {
    use forkhost_harness::ApprovalSubject;

    use super::*;

    fn request(id: &str) -> ApprovalView {
        approval_view(
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
