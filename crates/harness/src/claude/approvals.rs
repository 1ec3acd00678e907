//! Claude Code's tool approvals over stdio ("Claude Code: tool approvals over stdio" in
//! docs/harness-behaviour.md): a `can_use_tool` control request becomes an
//! [`ApprovalRequest`], kept here until the user's decision is written back as its
//! `control_response`, the CLI withdraws it (`control_cancel_request`), or the process ends.
//! Nothing here answers on the user's behalf.

use std::path::Path;

use serde_json::{json, Value};

use super::write_diff;
use crate::contract::{
    Answer, ApprovalDecision, ApprovalRequest, ApprovalSubject, PermissionChoices, PermissionMode,
    Question,
};
use crate::{HarnessError, HarnessResult};

/// The `--permission-mode` words both pinned CLIs accept (2.1.332 also takes `manual`, its new
/// name for `default`, which 2.1.197 refuses). Claude has no sandbox choice.
pub(crate) const CHOICES: PermissionChoices = PermissionChoices {
    modes: &[
        "default",
        "acceptEdits",
        "plan",
        "auto",
        "dontAsk",
        "bypassPermissions",
    ],
    sandboxes: &[],
};

/// The flags that route the CLI's questions to us (`--permission-prompt-tool stdio`: without
/// it a headless run denies every call that would ask) and set the chosen mode. A word the
/// CLI does not take is refused before any process starts.
pub(crate) fn permission_args(mode: &PermissionMode) -> HarnessResult<Vec<String>> {
    if !CHOICES.accepts(mode) {
        return Err(HarnessError::InvalidInput(format!(
            "claude permission mode {:?} (sandbox {:?}): it takes one of {:?} and no sandbox",
            mode.mode, mode.sandbox, CHOICES.modes
        )));
    }
    let mut args = vec!["--permission-prompt-tool".to_owned(), "stdio".to_owned()];
    if let Some(mode) = &mode.mode {
        args.extend(["--permission-mode".to_owned(), mode.clone()]);
    }
    Ok(args)
}

/// What a model is told when the user declines a call.
const DECLINED: &str = "The user declined this tool call.";
/// What it is told when the user declines and stops the turn (the CLI replaces it with its own
/// "doesn't want to proceed" text, since `interrupt` ends the turn).
const STOPPED: &str = "The user declined this tool call and stopped the turn.";
/// What it is told when the user dismisses its questions.
const DISMISSED: &str = "The user dismissed the question without answering.";

/// The tool through which the model asks the user questions; its request is a question,
/// answered through `updatedInput.answers`, not an approval.
const ASK: &str = "AskUserQuestion";

/// A `can_use_tool` request as the CLI sent it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolPermission {
    pub request_id: String,
    pub tool_name: String,
    pub input: Value,
    /// The CLI's own ideas of what "always" would add (rules, directories, a mode).
    pub suggestions: Vec<Value>,
    pub tool_use_id: Option<String>,
}

impl ToolPermission {
    /// The request as the Host sees it, for a session running in `cwd`. Reads the file a
    /// `Write` would replace (bounded), so it is called off the async reader.
    pub(crate) fn request(&self, cwd: &Path) -> ApprovalRequest {
        self.request_with(cwd, true)
    }

    fn request_with(&self, cwd: &Path, read_files: bool) -> ApprovalRequest {
        ApprovalRequest {
            unsandboxed: self.tool_name == "Bash"
                && self.input.get("dangerouslyDisableSandbox") == Some(&Value::Bool(true)),
            id: self.request_id.clone(),
            tool_call_id: self.tool_use_id.clone(),
            subject: subject(&self.tool_name, &self.input, cwd, read_files),
            reason: None,
            session_rules: match self.is_question() {
                true => Vec::new(),
                false => self.session_grants().into_iter().map(|(_, w)| w).collect(),
            },
        }
    }

    /// The request without reading any file (its `Write` shown with no diff), for when
    /// reading the file did not finish in time.
    pub(crate) fn request_undiffed(&self, cwd: &Path) -> ApprovalRequest {
        let mut request = self.request_with(cwd, false);
        request.reason = Some("the file this replaces could not be read in time".into());
        request
    }

    /// Whether "approve for this session" means anything for it.
    pub(crate) fn can_approve_for_session(&self) -> bool {
        !self.is_question() && !self.session_grants().is_empty()
    }

    pub(crate) fn is_question(&self) -> bool {
        self.tool_name == ASK
    }

    /// The `control_response` line answering an `AskUserQuestion` call: the questions back
    /// with `answers` keyed by question text (the form the CLI's tool reads), or a refusal
    /// when the user dismissed it. Answers must fit the questions (one each, an offered
    /// option or, as the CLI allows "Other", free text).
    pub(crate) fn answer_question(&self, answers: Option<&[String]>) -> HarnessResult<String> {
        let Some(answers) = answers else {
            return Ok(self.respond(json!({ "behavior": "deny", "message": DISMISSED })));
        };
        let questions = questions(&self.input);
        if answers.len() != questions.len() {
            return Err(HarnessError::InvalidInput(format!(
                "{} answers for {} questions",
                answers.len(),
                questions.len()
            )));
        }
        let keyed: serde_json::Map<String, Value> = questions
            .iter()
            .zip(answers)
            .map(|(q, a)| (q.prompt.clone(), Value::String(a.clone())))
            .collect();
        let mut input = self.input.clone();
        if let Some(obj) = input.as_object_mut() {
            obj.insert("answers".into(), Value::Object(keyed));
        }
        Ok(self.respond(json!({ "behavior": "allow", "updatedInput": input })))
    }

    /// What "approve for this session" sends back as `updatedPermissions`, each with the
    /// words the card shows for it. Only suggestions no broader than the request survive
    /// ("Claude Code: tool approvals over stdio" in docs/harness-behaviour.md):
    /// - rules for this call's own tool, with `destination: "session"` (never a settings
    ///   file); a Bash rule is re-scoped to exactly this command (the CLI suggests prefix
    ///   rules such as `echo approved *`), and dropped when the command itself holds a
    ///   wildcard; a rule with no content is kept but named for what it is, every input;
    /// - `acceptEdits` for a file edit, named as what it is: edits inside the session's
    ///   working folders (the CLI keeps asking about files outside them and about its
    ///   protected paths, and Forkhost never answers those for it);
    /// - nothing else: `addDirectories` widens every tool's reach to a whole folder, other
    ///   mode switches and rule removals are not what the user looked at.
    fn session_grants(&self) -> Vec<(Value, String)> {
        let tool = self.tool_name.as_str();
        let mut out = Vec::new();
        for suggestion in &self.suggestions {
            match suggestion.get("type").and_then(Value::as_str) {
                Some("addRules")
                    if suggestion.get("behavior").and_then(Value::as_str) == Some("allow") =>
                {
                    let rules = suggestion.get("rules").and_then(Value::as_array);
                    for rule in rules.map(Vec::as_slice).unwrap_or_default() {
                        if str_of(rule, "toolName") != Some(tool) {
                            continue;
                        }
                        let content = match tool {
                            "Bash" => match str_of(&self.input, "command") {
                                Some(command) if !command.contains('*') => Some(command),
                                _ => continue,
                            },
                            _ => str_of(rule, "ruleContent"),
                        };
                        let words = match content {
                            Some(c) if tool == "Bash" => {
                                format!("run exactly `{c}` again without asking (Claude rule {tool}({c}))")
                            }
                            Some(c) => format!(
                                "use {tool} for {c} without asking (Claude rule {tool}({c}))"
                            ),
                            None => format!("every use of {tool}, with any input"),
                        };
                        let mut kept = json!({ "toolName": tool });
                        if let Some(c) = content {
                            kept["ruleContent"] = json!(c);
                        }
                        out.push((
                            json!({
                                "type": "addRules",
                                "rules": [kept],
                                "behavior": "allow",
                                "destination": "session",
                            }),
                            words,
                        ));
                    }
                }
                Some("setMode")
                    if is_file_edit(tool)
                        && suggestion.get("mode").and_then(Value::as_str)
                            == Some("acceptEdits") =>
                {
                    out.push((
                        json!({ "type": "setMode", "mode": "acceptEdits", "destination": "session" }),
                        "edit files inside this session's working folders without asking \
                         (Claude's acceptEdits mode; files outside them are still asked)"
                            .to_owned(),
                    ));
                }
                _ => {}
            }
        }
        out
    }

    /// The `control_response` line for the user's answer. A question takes answers (or a
    /// decline); an approval takes a decision, "for this session" only where the CLI offered
    /// something to remember. The Host checks the same before it answers, so a refusal here
    /// means the two disagree.
    pub(crate) fn reply_line(&self, answer: &Answer) -> HarnessResult<String> {
        let id = &self.request_id;
        match answer {
            Answer::Questions(answers) if self.is_question() => {
                self.answer_question(answers.as_deref())
            }
            Answer::Questions(_) => Err(HarnessError::InvalidInput(format!(
                "claude request {id:?} asks for an approval, not an answer"
            ))),
            Answer::Decision(d) if self.is_question() && d.approves() => {
                Err(HarnessError::InvalidInput(format!(
                    "claude request {id:?} is a question: answer it, or decline it"
                )))
            }
            Answer::Decision(ApprovalDecision::ApproveForSession)
                if !self.can_approve_for_session() =>
            {
                Err(HarnessError::InvalidInput(format!(
                    "claude offers nothing to remember for request {id:?}; approve it once"
                )))
            }
            Answer::Decision(d) => Ok(self.answer(*d)),
        }
    }

    /// The `control_response` line for `decision`.
    pub(crate) fn answer(&self, decision: ApprovalDecision) -> String {
        let response = match decision {
            ApprovalDecision::Approve => json!({
                "behavior": "allow",
                "updatedInput": self.input,
            }),
            ApprovalDecision::ApproveForSession => json!({
                "behavior": "allow",
                "updatedInput": self.input,
                "updatedPermissions": self
                    .session_grants()
                    .into_iter()
                    .map(|(update, _)| update)
                    .collect::<Vec<_>>(),
            }),
            ApprovalDecision::Decline => json!({ "behavior": "deny", "message": DECLINED }),
            ApprovalDecision::DeclineAndStop => json!({
                "behavior": "deny",
                "message": STOPPED,
                "interrupt": true,
            }),
        };
        self.respond(response)
    }

    fn respond(&self, response: Value) -> String {
        json!({
            "type": "control_response",
            "response": {
                "subtype": "success",
                "request_id": self.request_id,
                "response": response,
            },
        })
        .to_string()
    }
}

fn is_file_edit(tool: &str) -> bool {
    matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit")
}

fn str_of<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// What the call wants to do: a command, a file change (with a diff where the input gives
/// one), or any other tool with its input.
fn subject(tool: &str, input: &Value, cwd: &Path, read_files: bool) -> ApprovalSubject {
    let other = || ApprovalSubject::Tool {
        name: tool.to_owned(),
        input: input.clone(),
    };
    match tool {
        ASK => ApprovalSubject::Question {
            questions: questions(input),
        },
        // Claude's Bash runs in the session's cwd; the request does not repeat it.
        "Bash" => match str_of(input, "command") {
            Some(command) => ApprovalSubject::Command {
                command: command.to_owned(),
                cwd: Some(cwd.to_path_buf()),
            },
            None => other(),
        },
        "Write" | "Edit" | "MultiEdit" => match str_of(input, "file_path") {
            Some(path) => ApprovalSubject::FileChange {
                paths: vec![path.to_owned()],
                diff: write_diff::diff(tool, path, input, read_files),
            },
            None => other(),
        },
        _ => other(),
    }
}

/// `AskUserQuestion`'s questions: each with its header, text and option labels; the CLI
/// always lets the user type another answer ("Other"). Several picks of a multi-select
/// question go back joined by ", ", as the CLI reads them.
fn questions(input: &Value) -> Vec<Question> {
    let list = input.get("questions").and_then(Value::as_array);
    list.map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|q| Question {
            header: str_of(q, "header").map(str::to_owned),
            prompt: str_of(q, "question").unwrap_or_default().to_owned(),
            options: q
                .get("options")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|o| str_of(o, "label").map(str::to_owned))
                .collect(),
            free_text: true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash() -> ToolPermission {
        ToolPermission {
            request_id: "r1".into(),
            tool_name: "Bash".into(),
            input: json!({"command": "touch a.txt", "description": "d"}),
            suggestions: vec![
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow","destination":"localSettings"}),
                json!({"type":"addDirectories","directories":["/w"],"destination":"session"}),
                json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
            ],
            tool_use_id: Some("toolu_1".into()),
        }
    }

    fn response(line: &str) -> Value {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["type"], "control_response");
        assert_eq!(v["response"]["subtype"], "success");
        assert_eq!(v["response"]["request_id"], "r1");
        v["response"]["response"].clone()
    }

    /// Review L-2: Bash asked to run without the sandbox says so.
    #[test]
    fn a_command_outside_the_sandbox_is_marked() {
        assert!(!bash().request(Path::new("/w")).unsandboxed);
        let mut outside = bash();
        outside.input["dangerouslyDisableSandbox"] = json!(true);
        assert!(outside.request(Path::new("/w")).unsandboxed);
    }

    #[test]
    fn a_command_is_asked_with_its_cwd() {
        let request = bash().request(Path::new("/w"));
        assert_eq!(request.id, "r1");
        assert_eq!(request.tool_call_id.as_deref(), Some("toolu_1"));
        assert_eq!(
            request.subject,
            ApprovalSubject::Command {
                command: "touch a.txt".into(),
                cwd: Some("/w".into())
            }
        );
        assert!(request.can_approve_for_session());
    }

    #[test]
    fn decisions_become_responses() {
        let p = bash();
        let allow = response(&p.answer(ApprovalDecision::Approve));
        assert_eq!(allow["behavior"], "allow");
        assert_eq!(allow["updatedInput"], p.input);
        assert!(allow.get("updatedPermissions").is_none());

        let session = response(&p.answer(ApprovalDecision::ApproveForSession));
        let grants = session["updatedPermissions"].as_array().unwrap();
        assert_eq!(
            grants,
            &[
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow","destination":"session"})
            ],
            "the exact command only: no folder, no mode switch for a command"
        );

        let deny = response(&p.answer(ApprovalDecision::Decline));
        assert_eq!(deny["behavior"], "deny");
        assert!(deny.get("interrupt").is_none());
        let stop = response(&p.answer(ApprovalDecision::DeclineAndStop));
        assert_eq!(stop["interrupt"], true);
    }

    #[test]
    fn file_edits_carry_a_diff_and_may_switch_mode() {
        let write = ToolPermission {
            tool_name: "Write".into(),
            input: json!({"file_path": "/nonexistent/forkhost/a.txt", "content": "one\ntwo\n"}),
            suggestions: vec![
                json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
            ],
            ..bash()
        };
        let ApprovalSubject::FileChange { paths, diff } = write.request(Path::new("/w")).subject
        else {
            panic!("not a file change")
        };
        assert_eq!(paths, ["/nonexistent/forkhost/a.txt"]);
        assert!(diff.unwrap().ends_with("@@ -0,0 +1,2 @@\n+one\n+two\n"));
        let session = response(&write.answer(ApprovalDecision::ApproveForSession));
        assert_eq!(session["updatedPermissions"][0]["mode"], "acceptEdits");

        let edit = subject(
            "Edit",
            &json!({"file_path": "/w/b", "old_string": "x", "new_string": "y"}),
            Path::new("/w"),
            true,
        );
        let ApprovalSubject::FileChange { diff, .. } = edit else {
            panic!("not a file change")
        };
        assert_eq!(diff.unwrap(), "--- /w/b\n+++ /w/b\n@@ -1 +1 @@\n-x\n+y\n");
        let other = subject("WebFetch", &json!({"url": "u"}), Path::new("/w"), true);
        assert!(matches!(other, ApprovalSubject::Tool { name, .. } if name == "WebFetch"));
    }

    #[test]
    fn always_grants_no_more_than_the_card_names() {
        // M4: "Always" on `git push origin feature`, which the CLI suggests as a prefix rule.
        let push = ToolPermission {
            input: json!({"command": "git push origin feature"}),
            suggestions: vec![
                json!({"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"git push:*"},{"toolName":"Read","ruleContent":"//home/u/**"}],"behavior":"allow","destination":"localSettings"}),
                json!({"type":"addDirectories","directories":["/home/u"],"destination":"session"}),
                json!({"type":"setMode","mode":"bypassPermissions","destination":"session"}),
                json!({"type":"replaceRules","rules":[],"behavior":"deny","destination":"session"}),
            ],
            ..bash()
        };
        let request = push.request(Path::new("/w"));
        assert_eq!(
            request.session_rules.len(),
            1,
            "{:?}",
            request.session_rules
        );
        assert!(request.session_rules[0].contains("`git push origin feature`"));
        let sent = response(&push.answer(ApprovalDecision::ApproveForSession));
        assert_eq!(
            sent["updatedPermissions"],
            json!([{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"git push origin feature"}],"behavior":"allow","destination":"session"}])
        );

        // A command that is itself a wildcard cannot be remembered exactly: nothing to grant.
        let star = ToolPermission {
            input: json!({"command": "rm -rf *"}),
            ..push.clone()
        };
        assert!(!star.request(Path::new("/w")).can_approve_for_session());

        // Another tool's rule keeps its content and says so; a rule with none says "any input".
        let fetch = ToolPermission {
            tool_name: "WebFetch".into(),
            input: json!({"url": "https://example.com/a"}),
            suggestions: vec![
                json!({"type":"addRules","rules":[{"toolName":"WebFetch","ruleContent":"domain:example.com"}],"behavior":"allow","destination":"localSettings"}),
                json!({"type":"addRules","rules":[{"toolName":"WebFetch"}],"behavior":"allow","destination":"localSettings"}),
            ],
            ..bash()
        };
        let rules = fetch.request(Path::new("/w")).session_rules;
        assert!(
            rules[0].contains("WebFetch(domain:example.com)"),
            "{rules:?}"
        );
        assert!(rules[1].contains("any input"), "{rules:?}");
    }

    #[test]
    fn a_question_is_answered_through_updated_input() {
        let ask = ToolPermission {
            tool_name: "AskUserQuestion".into(),
            input: json!({"questions": [
                {"question": "Which colour?", "header": "Colour", "multiSelect": false,
                 "options": [{"label": "Red", "description": "r"}, {"label": "Blue", "description": "b"}]}
            ]}),
            suggestions: vec![],
            ..bash()
        };
        let request = ask.request(Path::new("/w"));
        assert!(!request.can_approve_for_session());
        assert_eq!(
            request.subject,
            ApprovalSubject::Question {
                questions: vec![Question {
                    header: Some("Colour".into()),
                    prompt: "Which colour?".into(),
                    options: vec!["Red".into(), "Blue".into()],
                    free_text: true,
                }]
            }
        );
        let answered = response(&ask.answer_question(Some(&["Blue".into()])).unwrap());
        assert_eq!(answered["behavior"], "allow");
        assert_eq!(answered["updatedInput"]["answers"]["Which colour?"], "Blue");
        assert_eq!(
            answered["updatedInput"]["questions"],
            ask.input["questions"]
        );
        let dismissed = response(&ask.answer_question(None).unwrap());
        assert_eq!(dismissed["behavior"], "deny");
        assert!(matches!(
            ask.answer_question(Some(&[])),
            Err(HarnessError::InvalidInput(_))
        ));
    }

    #[test]
    fn no_suggestions_no_session_approval() {
        let p = ToolPermission {
            suggestions: vec![
                json!({"type":"setMode","mode":"acceptEdits","destination":"session"}),
            ],
            ..bash()
        };
        assert!(!p.request(Path::new("/w")).can_approve_for_session());
    }

    #[test]
    fn modes_are_checked_before_the_flags() {
        let mode = |m: Option<&str>, s: Option<&str>| PermissionMode {
            mode: m.map(Into::into),
            sandbox: s.map(Into::into),
        };
        assert_eq!(
            permission_args(&mode(None, None)).unwrap(),
            ["--permission-prompt-tool", "stdio"]
        );
        assert_eq!(
            permission_args(&mode(Some("acceptEdits"), None)).unwrap(),
            [
                "--permission-prompt-tool",
                "stdio",
                "--permission-mode",
                "acceptEdits"
            ]
        );
        for bad in [
            mode(Some("yolo"), None),
            mode(Some("manual"), None),
            mode(None, Some("read-only")),
        ] {
            assert!(
                matches!(permission_args(&bad), Err(HarnessError::InvalidInput(_))),
                "{bad:?}"
            );
        }
    }
}
