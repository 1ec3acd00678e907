//! Codex's approval requests ("Codex: approval requests and sandbox" in
//! `docs/harness-behaviour.md`): the app-server's own JSON-RPC requests that wait for the
//! user, turned into [`ApprovalRequest`]s, and the user's [`ApprovalDecision`] turned into the
//! reply the server waits for. Nothing here answers on the user's behalf: a request Forkhost
//! cannot show is declined (never approved) with a log line naming its method.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::contract::{
    Answer, ApprovalDecision, ApprovalRequest, ApprovalSubject, PermissionChoices, Question,
};
use crate::{HarnessError, HarnessResult};

/// The approval policies and sandboxes `thread/start` and `thread/resume` take (0.171.0's
/// `AskForApproval` without the experimental `granular` object, and `SandboxMode`).
pub(crate) const CHOICES: PermissionChoices = PermissionChoices {
    modes: &["untrusted", "on-request", "never"],
    sandboxes: &["read-only", "workspace-write", "danger-full-access"],
};

const COMMAND: &str = "item/commandExecution/requestApproval";
const FILE_CHANGE: &str = "item/fileChange/requestApproval";
/// The `request_user_input` tool's questions (experimental in the protocol).
const USER_INPUT: &str = "item/tool/requestUserInput";

/// Which server requests reach the user; every other one is declined at once by
/// [`decline_unshown`].
pub(crate) fn is_shown(method: &str) -> bool {
    matches!(method, COMMAND | FILE_CHANGE | USER_INPUT)
}

/// What the reply to one request needs; its writer holds it until the user answers (the
/// Host keeps the list of pending requests, not this module).
#[derive(Debug, Clone)]
pub(crate) struct Waiting {
    /// The server's JSON-RPC id, echoed in the reply (a number or a string).
    rpc_id: Value,
    /// For questions: each question's id and what it takes; the reply is keyed by id.
    questions: Option<Vec<(String, Question)>>,
    /// Whether the request offered `acceptForSession`.
    session: bool,
}

/// The file changes the runtime's requests refer to.
#[derive(Debug, Default)]
pub(crate) struct Approvals {
    /// `item/started` fileChange items by item id: their paths and diff, which the later
    /// `item/fileChange/requestApproval` only names by `itemId`.
    changes: HashMap<String, (Vec<String>, Option<String>)>,
}

/// Our id for a server request: its JSON-RPC id as text.
pub(crate) fn id_text(rpc_id: &Value) -> String {
    match rpc_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Approvals {
    /// Remembers a fileChange item's paths and diff (from `item/started`).
    pub fn note_item(&mut self, item: &Value) {
        if item.get("type").and_then(Value::as_str) != Some("fileChange") {
            return;
        }
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            return;
        };
        let changes = item.get("changes").and_then(Value::as_array);
        let changes = changes.map(Vec::as_slice).unwrap_or_default();
        let paths = changes
            .iter()
            .filter_map(|c| c.get("path").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let diffs: Vec<&str> = changes
            .iter()
            .filter_map(|c| c.get("diff").and_then(Value::as_str))
            .collect();
        let diff = (!diffs.is_empty()).then(|| diffs.join("\n"));
        self.changes.insert(id.to_owned(), (paths, diff));
    }

    /// A shown server request becomes an [`ApprovalRequest`], with what its reply needs.
    pub fn request(
        &self,
        rpc_id: Value,
        method: &str,
        params: &Value,
    ) -> (ApprovalRequest, Waiting) {
        let item_id = params.get("itemId").and_then(Value::as_str);
        let id = id_text(&rpc_id);
        if method == USER_INPUT {
            let asked = user_input_questions(params);
            let questions = asked.iter().map(|(_, q)| q.clone()).collect();
            let waiting = Waiting {
                rpc_id,
                questions: Some(asked),
                session: false,
            };
            let request = ApprovalRequest {
                id,
                tool_call_id: item_id.map(str::to_owned),
                subject: ApprovalSubject::Question { questions },
                reason: None,
                session_rules: Vec::new(),
                unsandboxed: false,
            };
            return (request, waiting);
        }
        let subject = if method == FILE_CHANGE {
            let (paths, diff) = item_id
                .and_then(|i| self.changes.get(i).cloned())
                .unwrap_or_default();
            ApprovalSubject::FileChange { paths, diff }
        } else {
            ApprovalSubject::Command {
                command: str_of(params, "command").unwrap_or_default(),
                cwd: str_of(params, "cwd").map(Into::into),
            }
        };
        let session_rules = match offers_session(params) {
            true => session_rules(&subject, params),
            false => Vec::new(),
        };
        let waiting = Waiting {
            rpc_id,
            questions: None,
            session: !session_rules.is_empty(),
        };
        let request = ApprovalRequest {
            id,
            tool_call_id: item_id.map(str::to_owned),
            unsandboxed: method != FILE_CHANGE && escalated(params),
            subject,
            reason: str_of(params, "reason").filter(|r| !r.trim().is_empty()),
            session_rules,
        };
        (request, waiting)
    }

    /// At a turn's end: its file changes are no longer asked about.
    pub fn turn_ended(&mut self) {
        self.changes.clear();
    }
}

impl Waiting {
    /// The reply line for the user's answer. A question can only be declined by a decision
    /// (that dismisses it); approving one, or "for this session" where the request offered
    /// none, is refused (the Host checks the same first).
    pub fn reply(&self, answer: Answer) -> HarnessResult<String> {
        match answer {
            Answer::Decision(decision) => self.answer(decision),
            Answer::Questions(answers) => self.answer_question(answers),
        }
    }

    fn answer(&self, decision: ApprovalDecision) -> HarnessResult<String> {
        let id = id_text(&self.rpc_id);
        if self.questions.is_some() {
            if decision.approves() {
                return Err(HarnessError::InvalidInput(format!(
                    "codex request {id:?} is a question: answer it, or decline it"
                )));
            }
            return self.answer_question(None);
        }
        if decision == ApprovalDecision::ApproveForSession && !self.session {
            return Err(HarnessError::InvalidInput(format!(
                "codex request {id:?} cannot be approved for the session: approve it once"
            )));
        }
        let reply = json!({ "id": self.rpc_id, "result": { "decision": wire_decision(decision) } });
        Ok(format!("{reply}\n"))
    }

    /// The reply to a question: `{answers: {questionId: {answers: [text]}}}`, empty when the
    /// user dismissed it.
    fn answer_question(&self, answers: Option<Vec<String>>) -> HarnessResult<String> {
        let id = id_text(&self.rpc_id);
        let Some(questions) = &self.questions else {
            return Err(HarnessError::InvalidInput(format!(
                "codex request {id:?} asks for an approval, not an answer"
            )));
        };
        let mut keyed = serde_json::Map::new();
        if let Some(answers) = &answers {
            if answers.len() != questions.len()
                || !questions
                    .iter()
                    .zip(answers)
                    .all(|((_, q), a)| q.accepts(a))
            {
                return Err(HarnessError::InvalidInput(format!(
                    "the answers do not fit codex request {id:?}'s {} questions",
                    questions.len()
                )));
            }
            for ((qid, _), answer) in questions.iter().zip(answers) {
                keyed.insert(qid.clone(), json!({ "answers": [answer] }));
            }
        }
        let reply = json!({ "id": self.rpc_id, "result": { "answers": keyed } });
        Ok(format!("{reply}\n"))
    }
}

/// Whether the request lets the user approve it for the session: yes unless it lists its
/// `availableDecisions` (experimental) without `acceptForSession`.
fn offers_session(params: &Value) -> bool {
    let Some(decisions) = params.get("availableDecisions").and_then(Value::as_array) else {
        return true;
    };
    decisions.iter().any(|d| {
        d.as_str() == Some("acceptForSession")
            || d.get("acceptForSession").is_some()
            || d.get("type").and_then(Value::as_str) == Some("acceptForSession")
    })
}

/// What `acceptForSession` makes the app-server remember, in words
/// ("Codex: approval requests and sandbox" in docs/harness-behaviour.md): a command is
/// remembered as exactly that command; a file change with a `grantRoot` allows every write
/// under that folder for the rest of the session, which is broader than the files shown,
/// and the card says so.
fn session_rules(subject: &ApprovalSubject, params: &Value) -> Vec<String> {
    match subject {
        ApprovalSubject::Command { command, .. } => {
            vec![format!(
                "run exactly `{command}` again without asking, in this session"
            )]
        }
        ApprovalSubject::FileChange { paths, .. } => match str_of(params, "grantRoot") {
            Some(root) => vec![format!(
                "write any file under {root} without asking, in this session (Codex's grant \
                 root: more than the files shown)"
            )],
            None => vec![format!(
                "change {} again without asking, in this session",
                match paths.len() {
                    1 => paths[0].clone(),
                    n => format!("these {n} files"),
                }
            )],
        },
        _ => Vec::new(),
    }
}

/// The decision's name in `CommandExecutionApprovalDecision` / `FileChangeApprovalDecision`:
/// `cancel` also interrupts the turn.
pub(crate) fn wire_decision(decision: ApprovalDecision) -> &'static str {
    match decision {
        ApprovalDecision::Approve => "accept",
        ApprovalDecision::ApproveForSession => "acceptForSession",
        ApprovalDecision::Decline => "decline",
        ApprovalDecision::DeclineAndStop => "cancel",
    }
}

/// The reply to a server request Forkhost does not show the user: a refusal in the method's
/// own shape where it has one (never an approval), else "method not found" so the server
/// never waits on us.
pub(crate) fn decline_unshown(rpc_id: Value, method: &str) -> String {
    tracing::warn!(
        method,
        "codex app-server asked what Forkhost does not show; declined"
    );
    const REASON: &str = "Forkhost does not show this request";
    let reply = match method {
        COMMAND | FILE_CHANGE => json!({ "id": rpc_id, "result": { "decision": "decline" } }),
        "mcpServer/elicitation/request" => {
            json!({ "id": rpc_id, "result": { "action": "decline", "content": null, "_meta": null } })
        }
        "execCommandApproval" | "applyPatchApproval" => {
            json!({ "id": rpc_id, "result": { "decision": { "denied": { "rejection": REASON } } } })
        }
        _ => {
            json!({ "id": rpc_id, "error": { "code": -32601, "message": format!("{REASON}: {method} is not handled") } })
        }
    };
    format!("{reply}\n")
}

/// `ToolRequestUserInputParams.questions`: id, header, text, options (labels), and whether
/// another answer is taken (`isOther`, or no options at all).
fn user_input_questions(params: &Value) -> Vec<(String, Question)> {
    let list = params.get("questions").and_then(Value::as_array);
    list.map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|q| {
            let options: Vec<String> = q
                .get("options")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|o| str_of(o, "label"))
                .collect();
            let other = q.get("isOther").and_then(Value::as_bool) == Some(true);
            let question = Question {
                header: str_of(q, "header").filter(|h| !h.is_empty()),
                prompt: str_of(q, "question").unwrap_or_default(),
                free_text: other || options.is_empty(),
                options,
            };
            (str_of(q, "id").unwrap_or_default(), question)
        })
        .collect()
}

/// Whether a command request asks to run outside the sandbox: Codex's escalated sandbox
/// permissions (`sandbox_permissions: "require_escalated"`, as its rollouts record it, in
/// either spelling), or the older `with_escalated_permissions: true`.
fn escalated(params: &Value) -> bool {
    let word = ["sandboxPermissions", "sandbox_permissions"]
        .iter()
        .find_map(|k| str_of(params, k));
    let flag = ["withEscalatedPermissions", "with_escalated_permissions"]
        .iter()
        .any(|k| params.get(*k) == Some(&Value::Bool(true)));
    flag || word.as_deref() == Some("require_escalated")
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::PermissionMode;

    #[test]
    fn a_command_request_is_pending_until_answered_once() {
        let a = Approvals::default();
        let params = json!({"threadId": "t", "turnId": "u", "itemId": "call_1",
                            "command": "touch x", "cwd": "/w"});
        let (req, waiting) = a.request(json!(0), COMMAND, &params);
        assert_eq!(req.id, "0");
        assert_eq!(req.tool_call_id.as_deref(), Some("call_1"));
        assert_eq!(
            req.subject,
            ApprovalSubject::Command {
                command: "touch x".into(),
                cwd: Some("/w".into())
            }
        );
        let reply = waiting
            .reply(Answer::Decision(ApprovalDecision::DeclineAndStop))
            .unwrap();
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply, json!({"id": 0, "result": {"decision": "cancel"}}));
        assert!(
            waiting.reply(Answer::Questions(None)).is_err(),
            "an approval takes no answers"
        );
        assert_eq!(req.session_rules.len(), 1);
        assert!(req.session_rules[0].contains("`touch x`"));
        assert!(!req.unsandboxed);
    }

    /// Review L-2: a command that asks to leave the sandbox says so.
    #[test]
    fn an_escalated_command_is_marked_outside_the_sandbox() {
        let a = Approvals::default();
        for extra in [
            json!({"sandboxPermissions": "require_escalated"}),
            json!({"sandbox_permissions": "require_escalated"}),
            json!({"withEscalatedPermissions": true}),
        ] {
            let mut params = json!({"threadId": "t", "turnId": "u", "itemId": "call_1",
                                    "command": "touch x", "cwd": "/w"});
            params
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let (req, _) = a.request(json!(1), COMMAND, &params);
            assert!(req.unsandboxed, "{extra}");
        }
    }

    #[test]
    fn available_decisions_reason_and_grant_root_reach_the_card() {
        let mut a = Approvals::default();
        // M4: a request that does not offer acceptForSession cannot be approved for it.
        let params = json!({"threadId": "t", "turnId": "u", "itemId": "c", "command": "ls",
                            "cwd": "/w", "reason": "needs the network",
                            "availableDecisions": ["accept", "decline", "cancel"]});
        let (req, waiting) = a.request(json!(3), COMMAND, &params);
        assert!(!req.can_approve_for_session());
        assert_eq!(req.reason.as_deref(), Some("needs the network"));
        assert!(matches!(
            waiting.reply(Answer::Decision(ApprovalDecision::ApproveForSession)),
            Err(HarnessError::InvalidInput(_))
        ));
        assert!(waiting
            .reply(Answer::Decision(ApprovalDecision::Approve))
            .is_ok());

        // A file change's grant root is broader than its files, and the words say so.
        a.note_item(&json!({"type": "fileChange", "id": "f", "changes": [
            {"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "x\n"}]}));
        let params = json!({"threadId": "t", "turnId": "u", "itemId": "f", "grantRoot": "/w"});
        let (req, _) = a.request(json!(4), FILE_CHANGE, &params);
        assert!(
            req.session_rules[0].contains("any file under /w"),
            "{:?}",
            req.session_rules
        );
    }

    #[test]
    fn a_file_change_request_carries_the_started_items_diff() {
        let mut a = Approvals::default();
        a.note_item(
            &json!({"type": "fileChange", "id": "call_2", "status": "inProgress",
            "changes": [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "hello\n"}]}),
        );
        let (req, _) = a.request(
            json!("s9"),
            FILE_CHANGE,
            &json!({"threadId": "t", "itemId": "call_2"}),
        );
        assert_eq!(
            req.subject,
            ApprovalSubject::FileChange {
                paths: vec!["/w/a.txt".into()],
                diff: Some("hello\n".into())
            }
        );
        a.turn_ended();
        let (after, _) = a.request(
            json!("s10"),
            FILE_CHANGE,
            &json!({"threadId": "t", "itemId": "call_2"}),
        );
        assert_eq!(
            after.subject,
            ApprovalSubject::FileChange {
                paths: vec![],
                diff: None
            },
            "a turn's items end with it"
        );
    }

    #[test]
    fn a_user_input_request_is_a_question_answered_by_id() {
        let a = Approvals::default();
        let params = json!({"threadId": "t", "turnId": "u", "itemId": "call_3", "questions": [
            {"id": "colour", "header": "Colour", "question": "Which colour?", "isOther": false,
             "isSecret": false, "options": [{"label": "Red", "description": ""}, {"label": "Blue", "description": ""}]},
            {"id": "name", "header": "", "question": "Its name?", "isOther": false, "isSecret": false, "options": null}
        ]});
        let (req, waiting) = a.request(json!(7), USER_INPUT, &params);
        let ApprovalSubject::Question { questions } = &req.subject else {
            panic!("not a question: {:?}", req.subject)
        };
        assert_eq!(questions[0].options, ["Red", "Blue"]);
        assert!(!questions[0].free_text && questions[1].free_text);
        assert_eq!(questions[1].header, None);
        assert!(waiting
            .reply(Answer::Decision(ApprovalDecision::Approve))
            .is_err());
        assert!(waiting
            .reply(Answer::Questions(Some(vec!["Green".into(), "x".into()])))
            .is_err());
        let reply = waiting
            .reply(Answer::Questions(Some(vec!["Blue".into(), "Rex".into()])))
            .unwrap();
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(
            reply,
            json!({"id": 7, "result": {"answers": {
                "colour": {"answers": ["Blue"]}, "name": {"answers": ["Rex"]}}}})
        );
        let (_, eight) = a.request(json!(8), USER_INPUT, &params);
        let dismissed = eight
            .reply(Answer::Decision(ApprovalDecision::Decline))
            .unwrap();
        assert!(dismissed.contains(r#""answers":{}"#), "{dismissed}");
    }

    #[test]
    fn decisions_and_unshown_requests_never_approve() {
        assert_eq!(wire_decision(ApprovalDecision::Approve), "accept");
        assert_eq!(
            wire_decision(ApprovalDecision::ApproveForSession),
            "acceptForSession"
        );
        assert_eq!(wire_decision(ApprovalDecision::Decline), "decline");
        for method in [
            "item/permissions/requestApproval",
            "mcpServer/elicitation/request",
            "execCommandApproval",
            "whatever/else",
        ] {
            let line = decline_unshown(json!(3), method);
            assert!(
                !line.contains("accept") && !line.contains("approved"),
                "{line}"
            );
        }
        assert!(CHOICES.accepts(&PermissionMode {
            mode: Some("untrusted".into()),
            sandbox: Some("workspace-write".into())
        }));
        assert!(!CHOICES.accepts(&PermissionMode {
            mode: Some("on-failure".into()),
            sandbox: None
        }));
    }
}
