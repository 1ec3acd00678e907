//! Pi's extension dialogs (`extension_ui_request` with `select`, `confirm`, `input` or
//! `editor`; "RPC Extension UI" in the Pi package's own documentation): an extension asking
//! the user something, such as a permission gate asking before a command. Pi itself never asks; its
//! extensions may. Each dialog becomes a question request; the answer (or a dismissal) goes
//! back as the `extension_ui_response` Pi blocks on.

use serde_json::{json, Value};

use crate::contract::{ApprovalRequest, ApprovalSubject, Question};
use crate::{HarnessError, HarnessResult};

/// What "yes" and "no" are called in a `confirm` dialog's question.
const YES: &str = "Yes";
const NO: &str = "No";

/// A dialog Pi waits on.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Dialog {
    pub id: String,
    kind: Kind,
    question: Question,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Select,
    Confirm,
    /// `input` and `editor`: free text.
    Text,
}

impl Dialog {
    /// The dialog in an `extension_ui_request` event; `None` for anything else
    /// (fire-and-forget methods such as `notify` need no answer).
    pub fn parse(event: &Value) -> Option<Dialog> {
        if event.get("type").and_then(Value::as_str) != Some("extension_ui_request") {
            return None;
        }
        let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
        let id = text("id")?;
        let title = text("title").unwrap_or_default();
        let (kind, prompt, options) = match event.get("method").and_then(Value::as_str)? {
            "select" => {
                let options = event
                    .get("options")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|o| o.as_str().map(str::to_owned))
                    .collect();
                (Kind::Select, title, options)
            }
            "confirm" => {
                let prompt = match text("message") {
                    Some(message) if !message.is_empty() => format!("{title}\n\n{message}"),
                    _ => title,
                };
                (Kind::Confirm, prompt, vec![YES.to_owned(), NO.to_owned()])
            }
            "input" | "editor" => (Kind::Text, title, Vec::new()),
            _ => return None,
        };
        Some(Dialog {
            id,
            kind,
            question: Question {
                header: None,
                prompt,
                options,
                free_text: kind == Kind::Text,
            },
        })
    }

    /// The request the Host shows: one question, never "for this session".
    pub fn request(&self) -> ApprovalRequest {
        ApprovalRequest {
            id: self.id.clone(),
            tool_call_id: None,
            subject: ApprovalSubject::Question {
                questions: vec![self.question.clone()],
            },
            reason: None,
            session_rules: Vec::new(),
            unsandboxed: false,
        }
    }

    /// The `extension_ui_response` line for an answer, or for a dismissal (`None`).
    pub fn reply(&self, answers: Option<&[String]>) -> HarnessResult<String> {
        let response = match answers {
            None => json!({ "cancelled": true }),
            Some([answer]) if self.question.accepts(answer) => match self.kind {
                Kind::Confirm => json!({ "confirmed": answer == YES }),
                Kind::Select | Kind::Text => json!({ "value": answer }),
            },
            Some(_) => {
                return Err(HarnessError::InvalidInput(format!(
                    "pi dialog {:?} takes one answer{}",
                    self.id,
                    match self.question.free_text {
                        true => String::new(),
                        false => format!(" of {:?}", self.question.options),
                    }
                )))
            }
        };
        let mut object = response.as_object().cloned().unwrap_or_default();
        object.insert("type".into(), json!("extension_ui_response"));
        object.insert("id".into(), json!(self.id));
        Ok(format!("{}\n", Value::Object(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(dialog: &Dialog, answers: Option<&[String]>) -> Value {
        let line = dialog.reply(answers).unwrap();
        assert!(line.ends_with('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["type"], "extension_ui_response");
        assert_eq!(v["id"], dialog.id);
        v
    }

    #[test]
    fn a_select_takes_only_its_options() {
        let d = Dialog::parse(&json!({"type": "extension_ui_request", "id": "u1",
            "method": "select", "title": "Allow rm -rf?", "options": ["Yes", "No"], "timeout": 5}))
        .unwrap();
        let ApprovalSubject::Question { questions } = d.request().subject else {
            panic!("not a question")
        };
        assert_eq!(questions[0].prompt, "Allow rm -rf?");
        assert_eq!(questions[0].options, ["Yes", "No"]);
        assert_eq!(reply(&d, Some(&["No".into()]))["value"], "No");
        assert!(d.reply(Some(&["Maybe".into()])).is_err());
        assert!(d.reply(Some(&[])).is_err());
        assert_eq!(reply(&d, None)["cancelled"], true);
    }

    #[test]
    fn confirm_and_text_dialogs() {
        let c = Dialog::parse(&json!({"type": "extension_ui_request", "id": "u2",
            "method": "confirm", "title": "Clear?", "message": "All lost."}))
        .unwrap();
        assert_eq!(c.question.prompt, "Clear?\n\nAll lost.");
        assert_eq!(reply(&c, Some(&["Yes".into()]))["confirmed"], true);
        assert_eq!(reply(&c, Some(&["No".into()]))["confirmed"], false);
        let t = Dialog::parse(&json!({"type": "extension_ui_request", "id": "u3",
            "method": "editor", "title": "Edit", "prefill": "x"}))
        .unwrap();
        assert!(t.question.free_text && t.question.options.is_empty());
        assert_eq!(reply(&t, Some(&["any text".into()]))["value"], "any text");
    }

    #[test]
    fn notifications_and_other_events_are_not_dialogs() {
        for event in [
            json!({"type": "extension_ui_request", "id": "n", "method": "notify", "message": "m"}),
            json!({"type": "agent_start"}),
            json!({"type": "extension_ui_request", "method": "select"}),
        ] {
            assert_eq!(Dialog::parse(&event), None, "{event}");
        }
    }
}
