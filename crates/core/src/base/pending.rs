//! The requests a runtime is waiting on, and how each one stopped being pending.

use forkhost_harness::{ApprovalDecision, ApprovalRequest, Reply};

use crate::base::events::ApprovalResolution;
use crate::base::grant_scope::GrantScope;
use crate::base::view::{ApprovalView, QuestionView, SubjectView};

/// The view of `request`, raised in turn `turn` of the runtime numbered `runtime`, with
/// the session rules "Always" would add.
pub(crate) fn approval_view(request: ApprovalRequest, turn: u64, runtime: u64) -> ApprovalView {
    let can_approve_for_session = request.can_approve_for_session();
    let mut subject: SubjectView = request.subject.into();
    if let SubjectView::Command { unsandboxed, .. } = &mut subject {
        *unsandboxed = request.unsandboxed;
    }
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

/// A thread's pending requests, oldest first, each with the reply that answers it. The one
/// list: a request's harness keeps none, and the UI's is a copy of this.
#[derive(Debug, Default)]
pub(crate) struct PendingApprovals {
    requests: Vec<(ApprovalView, Reply)>,
}

impl PendingApprovals {
    /// Records a request; a harness that re-raises an id replaces the older one.
    pub fn add(&mut self, request: ApprovalView, reply: Reply) {
        self.requests.retain(|(r, _)| r.id != request.id);
        self.requests.push((request, reply));
    }

    pub fn get(&self, id: &str) -> Option<&ApprovalView> {
        self.requests.iter().map(|(r, _)| r).find(|r| r.id == id)
    }

    /// Removes the one runtime `runtime` raised with the harness's own id `native` (which the
    /// harness withdrew).
    pub fn take_native(&mut self, runtime: u64, native: &str) -> Option<(ApprovalView, Reply)> {
        let id = format!("{runtime}-{native}");
        self.take(&id)
    }

    /// Removes one to answer it; `None` when it was not (or no longer) pending.
    pub fn take(&mut self, id: &str) -> Option<(ApprovalView, Reply)> {
        let at = self.requests.iter().position(|(r, _)| r.id == id)?;
        Some(self.requests.remove(at))
    }

    /// Removes every request runtime `runtime` raised (its turn or process ended), oldest
    /// first.
    pub fn drain_runtime(&mut self, runtime: u64) -> Vec<(ApprovalView, Reply)> {
        let prefix = format!("{runtime}-");
        let (theirs, others) = std::mem::take(&mut self.requests)
            .into_iter()
            .partition(|(r, _)| r.id.starts_with(&prefix));
        self.requests = others;
        theirs
    }

    pub fn list(&self) -> Vec<ApprovalView> {
        self.requests.iter().map(|(r, _)| r.clone()).collect()
    }
}

/// Whether `answers` fit `questions`: one per question, each an offered option or any text
/// where the question takes it.
pub(crate) fn answers_fit(questions: &[QuestionView], answers: &[String]) -> bool {
    answers.len() == questions.len()
        && questions
            .iter()
            .zip(answers)
            .all(|(q, a)| q.free_text || q.options.iter().any(|o| o == a))
}

#[cfg(test)]
mod tests {
    use forkhost_harness::ApprovalSubject;

    use super::*;

    fn ids(pending: &PendingApprovals) -> Vec<String> {
        pending.list().into_iter().map(|r| r.id).collect()
    }

    fn request(id: &str) -> ApprovalView {
        approval_view(raw(id), 1, 7)
    }

    fn raw(id: &str) -> ApprovalRequest {
        ApprovalRequest {
            id: id.into(),
            tool_call_id: Some(format!("call-{id}")),
            subject: ApprovalSubject::Command {
                command: "touch x".into(),
                cwd: None,
            },
            reason: None,
            session_rules: vec!["run exactly `touch x` again".into()],
            unsandboxed: false,
        }
    }

    #[test]
    fn requests_stay_until_taken_or_drained() {
        let mut pending = PendingApprovals::default();
        pending.add(request("a"), Reply::default());
        pending.add(request("b"), Reply::default());
        pending.add(approval_view(raw("c"), 1, 8), Reply::default());
        assert_eq!(ids(&pending), ["7-a", "7-b", "8-c"]);
        assert_eq!(
            pending.take("7-a").map(|(r, _)| r.native_id),
            Some("a".into())
        );
        assert!(pending.take("7-a").is_none(), "answered once only");
        assert!(pending.take_native(8, "b").is_none(), "another runtime's b");
        assert_eq!(
            pending.take_native(7, "b").map(|(r, _)| r.id),
            Some("7-b".into())
        );
        pending.add(request("d"), Reply::default());
        assert_eq!(pending.drain_runtime(7).len(), 1);
        assert_eq!(ids(&pending), ["8-c"], "a later runtime's requests stay");
    }

    #[test]
    fn a_re_raised_id_replaces_the_older_request() {
        let mut pending = PendingApprovals::default();
        pending.add(request("a"), Reply::default());
        pending.add(request("b"), Reply::default());
        pending.add(request("a"), Reply::default());
        assert_eq!(ids(&pending), ["7-b", "7-a"]);
    }

    #[test]
    fn answers_fit_only_their_questions() {
        let q = |options: &[&str], free_text| QuestionView {
            header: None,
            prompt: "?".into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            free_text,
        };
        let questions = [q(&["Red", "Blue"], false), q(&[], true)];
        let fit = |a: &[&str]| {
            answers_fit(
                &questions,
                &a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
        };
        assert!(fit(&["Blue", "Rex"]));
        assert!(!fit(&["Green", "Rex"]), "not an option");
        assert!(!fit(&["Blue"]), "one answer per question");
        assert!(!fit(&["Blue", "Rex", "x"]));
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

    #[test]
    fn resolutions_on_the_wire_are_the_names_in_the_logs() {
        let decisions = [
            ApprovalDecision::Approve,
            ApprovalDecision::ApproveForSession,
            ApprovalDecision::Decline,
            ApprovalDecision::DeclineAndStop,
        ];
        let others = [
            Resolution::Replied,
            Resolution::Dismissed,
            Resolution::Withdrawn,
            Resolution::Gone,
        ];
        for how in decisions
            .map(Resolution::Answered)
            .into_iter()
            .chain(others)
        {
            let resolution = ApprovalResolution::from(how);
            let wire = serde_json::to_value(resolution).unwrap();
            assert_eq!(wire.as_str(), Some(how.name()));
            assert_eq!(resolution.as_str(), how.name());
        }
    }
}
