//! What carries over when a conversation continues in another harness: a source's turns, as
//! its reader materialized them, become a [`Seed`].
//!
//! Every user and assistant text comes exactly, in order. A shell command (Claude Code's
//! `Bash`, Codex's `shell`/`shell_command`/`exec_command`/`local_shell`, Pi's `bash`) comes as
//! a shell call the target records as its own tool call and result. A file read, write or
//! edit ([`files`]) comes as the target's own file tool call where it has one (Claude Code,
//! Pi); Codex records edits as `apply_patch` calls whose form (a freeform custom tool or a JSON
//! function) depends on the model family the session will use, unknown when the history is
//! written, and the Responses API refuses a call of a tool the request does not declare, so
//! into Codex they come as text. Any other tool (a search, a web fetch) has no equivalent in
//! every target and comes as faithful text of what was called and what came back, bounded
//! ([`MAX_NOTE_OUTPUT`]). Reasoning never reaches the readers' messages, so nothing of it is
//! carried; a harness error recorded in a reply comes as a note.
//!
//! [`MAX_NOTE_OUTPUT`]: crate::contract::MAX_NOTE_OUTPUT

mod files;

use serde_json::Value;

pub use files::file_op;

use crate::contract::{FileCall, Seed, SeedStep, SeedTool, SeedTurn, ShellCall};
use crate::history::{Role, ToolCall, Turn};
use crate::kind::HarnessKind;

/// The seed of `turns` of a `from` session, to be written by the harness `into`.
pub fn seed_of(from: HarnessKind, into: HarnessKind, turns: &[Turn]) -> Seed {
    let from_name = from.harness().product_name().to_owned();
    let files = into != HarnessKind::Codex;
    let turns = turns
        .iter()
        .map(|turn| turn_seed(&from_name, files, turn))
        .collect();
    Seed {
        from: from_name,
        turns,
    }
}

fn turn_seed(from: &str, files: bool, turn: &Turn) -> SeedTurn {
    let mut prompt: Option<String> = None;
    let mut reply = Vec::new();
    for message in &turn.messages {
        match message.role {
            Role::User if prompt.is_none() => prompt = Some(message.text.clone()),
            // A second user text before any reply belongs to the prompt; after one, it is
            // something the user added mid-turn.
            Role::User if reply.is_empty() => {
                let p = prompt.get_or_insert_with(String::new);
                p.push_str("\n\n");
                p.push_str(&message.text);
            }
            Role::User => push_text(&mut reply, format!("[the user added] {}", message.text)),
            Role::Assistant | Role::Other => {
                push_text(&mut reply, message.text.clone());
                if let Some(error) = &message.error {
                    push_text(
                        &mut reply,
                        format!("[the reply ended in an error: {error}]"),
                    );
                }
            }
            Role::Tool => match &message.tool {
                Some(call) => reply.push(tool_step(from, files, call)),
                None => push_text(&mut reply, message.text.clone()),
            },
        }
    }
    SeedTurn {
        prompt: prompt.unwrap_or_default(),
        reply,
    }
}

fn push_text(reply: &mut Vec<SeedStep>, text: String) {
    if !text.trim().is_empty() {
        reply.push(SeedStep::Text(text));
    }
}

/// `files`: whether the target records file tool calls as its own.
fn tool_step(from: &str, files: bool, call: &ToolCall) -> SeedStep {
    let file = files.then(|| file_op(call)).flatten();
    match (shell_command(call), file, &call.output) {
        (Some(command), _, Some(output)) => SeedStep::Shell(ShellCall {
            command,
            output: output.clone(),
            is_error: call.is_error,
        }),
        (None, Some((path, op)), Some(output)) => SeedStep::File(FileCall {
            path,
            op,
            output: output.clone(),
            is_error: call.is_error,
        }),
        // A call without a result (cut short) or without a shell equivalent: as text.
        _ => SeedStep::Text(
            SeedTool {
                name: call.name.clone(),
                input: call.input.clone(),
                output: call.output.clone(),
                is_error: call.is_error,
            }
            .note(from),
        ),
    }
}

/// The command line of a shell tool call, by the tool names and argument shapes of the three
/// harnesses; `None` for any other tool.
pub fn shell_command(call: &ToolCall) -> Option<String> {
    let input = &call.input;
    let field = |key: &str| input.get(key);
    let command = match call.name.as_str() {
        "Bash" | "bash" | "shell_command" => field("command").and_then(as_command),
        "exec_command" => field("cmd")
            .or_else(|| field("command"))
            .and_then(as_command),
        "shell" | "local_shell" => field("command")
            .or_else(|| field("action").and_then(|a| a.get("command")))
            .and_then(as_command),
        _ => None,
    }?;
    (!command.trim().is_empty()).then_some(command)
}

/// A command as a string, or as an argv: `["bash", "-lc", "cmd"]` is `cmd`; any other argv is
/// its words joined (quoted where they need it).
fn as_command(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let words = words?;
            match words.as_slice() {
                [shell, flag, script]
                    if ["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"]
                        .contains(shell)
                        && ["-lc", "-c"].contains(flag) =>
                {
                    Some((*script).to_owned())
                }
                _ => Some(
                    words
                        .iter()
                        .map(|w| quoted(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            }
        }
        _ => None,
    }
}

fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    match plain {
        true => word.to_owned(),
        false => format!("'{}'", word.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::history::Message;

    fn call(name: &str, input: Value, output: Option<&str>) -> ToolCall {
        ToolCall {
            id: Some("c1".into()),
            name: name.into(),
            input,
            output: output.map(Into::into),
            is_error: false,
        }
    }

    #[test]
    fn shell_calls_of_every_harness_are_recognized() {
        let cases = [
            call(
                "Bash",
                json!({"command": "ls -a", "description": "x"}),
                None,
            ),
            call("bash", json!({"command": "ls -a"}), None),
            call("shell_command", json!({"command": "ls -a"}), None),
            call("exec_command", json!({"cmd": "ls -a"}), None),
            call("shell", json!({"command": ["bash", "-lc", "ls -a"]}), None),
            call("local_shell", json!({"command": ["ls", "-a"]}), None),
            call(
                "shell",
                json!({"action": {"type": "exec", "command": ["sh", "-c", "ls -a"]}}),
                None,
            ),
        ];
        for c in &cases {
            assert_eq!(shell_command(c).as_deref(), Some("ls -a"), "{c:?}");
        }
        let argv = call("shell", json!({"command": ["echo", "it's here"]}), None);
        assert_eq!(shell_command(&argv).unwrap(), r"echo 'it'\''s here'");
        assert_eq!(
            shell_command(&call("Edit", json!({"command": "x"}), None)),
            None
        );
        assert_eq!(
            shell_command(&call("Bash", json!({"command": " "}), None)),
            None
        );
        assert_eq!(shell_command(&call("Bash", json!({}), None)), None);
    }

    fn turn(messages: Vec<Message>) -> Turn {
        Turn {
            native_turn_ref: "t".into(),
            native_checkpoint_ref: Some("c".into()),
            messages,
            complete: true,
            usage: None,
            model: None,
        }
    }

    #[test]
    fn a_turn_carries_its_texts_in_order_and_its_tools_by_kind() {
        let t = turn(vec![
            Message::new(Role::User, "do it"),
            Message::new(Role::Assistant, "first"),
            Message::for_tool(call("Bash", json!({"command": "make"}), Some("ok\n"))),
            Message::for_tool(call("Edit", json!({"file_path": "a"}), Some("edited"))),
            Message::for_tool(call("Bash", json!({"command": "make"}), None)),
            Message::new(Role::Assistant, ""),
            Message::error(Role::Assistant, "overloaded"),
            Message::new(Role::User, "and more"),
            Message::new(Role::Assistant, "last"),
        ]);
        let seed = seed_of(HarnessKind::Claude, HarnessKind::Codex, &[t]);
        assert_eq!(seed.from, "Claude Code");
        let turn = &seed.turns[0];
        assert_eq!(turn.prompt, "do it");
        let steps = &turn.reply;
        assert_eq!(steps.len(), 7, "{steps:?}");
        assert_eq!(steps[0], SeedStep::Text("first".into()));
        assert_eq!(
            steps[1],
            SeedStep::Shell(ShellCall {
                command: "make".into(),
                output: "ok\n".into(),
                is_error: false
            })
        );
        match &steps[2] {
            SeedStep::Text(t) => {
                assert!(t.starts_with("[tool call in Claude Code: Edit] {\"file_path\":\"a\"}"));
                assert!(t.ends_with("returned:\nedited"));
            }
            other => panic!("{other:?}"),
        }
        // A shell call without a result is a note, not a dangling call.
        assert!(matches!(&steps[3], SeedStep::Text(t) if t.ends_with("no result was recorded")));
        assert_eq!(
            steps[4],
            SeedStep::Text("[the reply ended in an error: overloaded]".into())
        );
        assert_eq!(steps[5], SeedStep::Text("[the user added] and more".into()));
        assert_eq!(steps[6], SeedStep::Text("last".into()));
    }

    #[test]
    fn file_calls_come_as_the_targets_own_where_it_has_file_tools() {
        let t = turn(vec![
            Message::new(Role::User, "fix it"),
            Message::for_tool(call(
                "Edit",
                json!({"file_path": "/w/a.rs", "old_string": "a", "new_string": "b"}),
                Some("edited"),
            )),
            Message::for_tool(call("Read", json!({"file_path": "/w/b.rs"}), None)),
        ]);
        for into in [HarnessKind::Claude, HarnessKind::Pi] {
            let seed = seed_of(HarnessKind::Claude, into, std::slice::from_ref(&t));
            let steps = &seed.turns[0].reply;
            assert_eq!(
                steps[0],
                SeedStep::File(FileCall {
                    path: "/w/a.rs".into(),
                    op: crate::contract::FileOp::Edit {
                        edits: vec![crate::contract::TextEdit {
                            old: "a".into(),
                            new: "b".into()
                        }]
                    },
                    output: "edited".into(),
                    is_error: false,
                }),
                "into {into}"
            );
            // A call without its result stays a note.
            assert!(
                matches!(&steps[1], SeedStep::Text(n) if n.ends_with("no result was recorded"))
            );
        }
        let seed = seed_of(HarnessKind::Claude, HarnessKind::Codex, &[t]);
        match &seed.turns[0].reply[0] {
            SeedStep::Text(note) => assert!(note.starts_with("[tool call in Claude Code: Edit]")),
            other => panic!("into Codex an edit is text: {other:?}"),
        }
    }

    #[test]
    fn user_texts_before_the_reply_make_one_prompt() {
        let t = turn(vec![
            Message::new(Role::User, "one"),
            Message::new(Role::User, "two"),
        ]);
        let seed = seed_of(
            HarnessKind::Pi,
            HarnessKind::Claude,
            &[t.clone(), turn(Vec::new())],
        );
        assert_eq!(seed.turns[0].prompt, "one\n\ntwo");
        assert!(seed.turns[0].reply.is_empty());
        assert_eq!(seed.turns[1].prompt, "");
        assert_eq!(seed.len(), 2);
    }
}
