//! `session/request_permission`: an agent's tool call waiting for the user, on the same card
//! as the native harnesses' requests. The options are the agent's own (`allow_once`,
//! `allow_always`, `reject_once`, `reject_always`, each with the name it gives them): "approve
//! for this session" is offered only when the agent offers an `allow_always`, and the card
//! says what that is in the agent's words (its option's name and the call it was asked for),
//! never wider. The answer is the chosen option's id.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::contract::{ApprovalDecision, ApprovalRequest, ApprovalSubject};
use crate::error::{HarnessError, HarnessResult};

/// One request as the agent asked it, to be answered once.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    /// The JSON-RPC id to answer.
    pub rpc_id: Value,
    /// `(optionId, kind)` of each option offered.
    options: Vec<(String, String)>,
}

/// The card for a request, and what answering it needs. `product` names the agent on the card.
pub(crate) fn read(rpc_id: Value, params: &Value, product: &str) -> (ApprovalRequest, Asked) {
    let call = params.get("toolCall").cloned().unwrap_or(Value::Null);
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let title = text(&call, "title").unwrap_or_else(|| "a tool".to_owned());
    let input = call.get("rawInput").cloned().unwrap_or(Value::Null);
    let subject = match call.get("kind").and_then(Value::as_str) {
        Some("execute") => ApprovalSubject::Command {
            command: text(&input, "command").unwrap_or_else(|| title.clone()),
            cwd: text(&input, "cwd").map(PathBuf::from),
        },
        Some("edit" | "delete" | "move") => ApprovalSubject::FileChange {
            paths: call
                .get("locations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|l| text(l, "path"))
                .collect(),
            diff: None,
        },
        _ => ApprovalSubject::Tool {
            name: title.clone(),
            input,
        },
    };
    let options: Vec<(String, String, String)> = params
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| {
            Some((
                text(o, "optionId")?,
                text(o, "kind").unwrap_or_default(),
                text(o, "name").unwrap_or_default(),
            ))
        })
        .collect();
    let session_rules = options
        .iter()
        .filter(|(_, kind, _)| kind == "allow_always")
        .map(|(_, _, name)| format!("{product}'s “{name}” for {title}, as {product} applies it"))
        .take(1)
        .collect();
    let id = match &rpc_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let request = ApprovalRequest {
        id,
        tool_call_id: text(&call, "toolCallId"),
        subject,
        reason: None,
        session_rules,
        unsandboxed: false,
    };
    let asked = Asked {
        rpc_id,
        options: options
            .into_iter()
            .map(|(id, kind, _)| (id, kind))
            .collect(),
    };
    (request, asked)
}

impl Asked {
    /// The answer line for `decision`, and whether the turn is to stop after it. A decision
    /// the agent offered no option for is `InvalidInput` (the request stays open).
    pub fn answer(&self, decision: ApprovalDecision) -> HarnessResult<(String, bool)> {
        let pick = |kinds: &[&str]| {
            kinds.iter().find_map(|kind| {
                self.options
                    .iter()
                    .find(|(_, k)| k == kind)
                    .map(|(id, _)| id.clone())
            })
        };
        let (option, stop) = match decision {
            ApprovalDecision::Approve => (pick(&["allow_once"]), false),
            ApprovalDecision::ApproveForSession => (pick(&["allow_always"]), false),
            ApprovalDecision::Decline => (pick(&["reject_once", "reject_always"]), false),
            ApprovalDecision::DeclineAndStop => (None, true),
        };
        let outcome = match (option, stop) {
            (Some(option), _) => json!({ "outcome": "selected", "optionId": option }),
            // Stopping the turn: the request is cancelled, and the turn with it.
            (None, true) => json!({ "outcome": "cancelled" }),
            (None, false) => {
                return Err(HarnessError::InvalidInput(format!(
                    "the agent offered no option for {}",
                    decision.name()
                )))
            }
        };
        Ok((
            super::wire::result_line(&self.rpc_id, json!({ "outcome": outcome })),
            stop,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opencode_request() -> Value {
        json!({"sessionId": "s", "toolCall": {"toolCallId": "call_1", "title": "touch a.txt",
            "kind": "execute", "status": "pending", "locations": [],
            "rawInput": {"command": "touch a.txt"}},
            "options": [{"optionId": "once", "kind": "allow_once", "name": "Allow once"},
                {"optionId": "always", "kind": "allow_always", "name": "Always allow"},
                {"optionId": "reject", "kind": "reject_once", "name": "Reject"}]})
    }

    #[test]
    fn the_card_shows_the_call_and_the_agents_own_always() {
        let (request, _) = read(json!(0), &opencode_request(), "OpenCode");
        assert_eq!(request.id, "0");
        assert_eq!(request.tool_call_id.as_deref(), Some("call_1"));
        assert_eq!(
            request.subject,
            ApprovalSubject::Command {
                command: "touch a.txt".into(),
                cwd: None
            }
        );
        assert_eq!(
            request.session_rules,
            ["OpenCode's “Always allow” for touch a.txt, as OpenCode applies it"]
        );
    }

    #[test]
    fn each_decision_picks_the_agents_option_or_is_refused() {
        let (_, asked) = read(json!(7), &opencode_request(), "OpenCode");
        let chosen = |d| {
            let (line, stop) = asked.answer(d).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["id"], 7);
            (v["result"]["outcome"].clone(), stop)
        };
        assert_eq!(chosen(ApprovalDecision::Approve).0["optionId"], "once");
        assert_eq!(
            chosen(ApprovalDecision::ApproveForSession).0["optionId"],
            "always"
        );
        assert_eq!(chosen(ApprovalDecision::Decline).0["optionId"], "reject");
        let (outcome, stop) = chosen(ApprovalDecision::DeclineAndStop);
        assert_eq!(
            (outcome["outcome"].as_str(), stop),
            (Some("cancelled"), true)
        );

        let mut once_only = opencode_request();
        once_only["options"] = json!([{"optionId": "y", "kind": "allow_once", "name": "Yes"}]);
        let (request, asked) = read(json!(8), &once_only, "OpenCode");
        assert!(!request.can_approve_for_session());
        assert!(matches!(
            asked.answer(ApprovalDecision::ApproveForSession),
            Err(HarnessError::InvalidInput(_))
        ));
    }
}
