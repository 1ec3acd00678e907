//! Tool calls a prompt scripts by itself, for tests that need a call that acts (writes a file)
//! rather than the harmless `CALL_TOOL` command, which harnesses run without asking:
//!
//! * ``RUN_COMMAND `cmd` ``: one call of the request's shell tool running `cmd` (the text
//!   between the first two backticks after the marker).
//! * ``WRITE_FILE `path` ``: one call of the `Write` tool (Claude Code's; the path should be
//!   absolute, as it requires), or Pi's `write`, writing [`WRITTEN`] to `path`; without such a
//!   tool the reply says so.
//! * ``EDIT_FILE `path` `old` `new` ``: Claude Code's `Read` of `path` (it edits only a file
//!   read in the session), then, with the read's result, its `Edit` replacing `old` by `new`;
//!   Pi's `read` and `edit` where the request offers those instead.
//! * ``ASK_USER `question` ``: one call of Claude Code's `AskUserQuestion` tool asking
//!   `question` with the options [`ASK_OPTIONS`]; without such a tool the reply says so.
//!
//! Once the request holds a tool result after the prompt, the reply is the usual text followed
//! by ` (tool result: <output>)`, as for `CALL_TOOL`.

use serde_json::json;

use super::history::{last_user_index, Role};
use super::{pick_shell_tool, shell_args, Parsed, Plan};

/// What a scripted `WRITE_FILE` writes.
pub const WRITTEN: &str = "written by the fake model\n";

/// The options a scripted `ASK_USER` offers.
pub const ASK_OPTIONS: [&str; 2] = ["Red", "Blue"];

const RUN: &str = "RUN_COMMAND";
const WRITE: &str = "WRITE_FILE";
const ASK: &str = "ASK_USER";
const EDIT: &str = "EDIT_FILE";

/// The text between the first two backticks after `marker` in `text`.
fn quoted_after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let start = rest.find('`')? + 1;
    let len = rest[start..].find('`')?;
    Some(&rest[start..start + len])
}

/// The first `n` backtick-quoted texts after `marker` in `text`.
fn quoted_n<'a>(text: &'a str, marker: &str, n: usize) -> Option<Vec<&'a str>> {
    let mut rest = &text[text.find(marker)? + marker.len()..];
    let mut out = Vec::new();
    for _ in 0..n {
        let start = rest.find('`')? + 1;
        let len = rest[start..].find('`')?;
        out.push(&rest[start..start + len]);
        rest = &rest[start + len + 1..];
    }
    Some(out)
}

/// `EDIT_FILE`: `Read` first, `Edit` once the read's result is in, then the usual text.
/// Claude Code's `Read`/`Edit` (`file_path`, `old_string`/`new_string`), else Pi's
/// `read`/`edit` (`path`, an `edits` list of `oldText`/`newText`).
fn edit_plan(parsed: &Parsed, base: &str, args: &[&str], results: usize) -> Plan {
    let tool = |name: &str| parsed.tools.iter().find(|t| t.name == name).cloned();
    let (path, old, new) = (args[0], args[1], args[2]);
    let claude = tool("Read").zip(tool("Edit")).map(|(read, edit)| {
        (
            read,
            json!({ "file_path": path }),
            edit,
            json!({ "file_path": path, "old_string": old, "new_string": new }),
        )
    });
    let pi = || {
        tool("read").zip(tool("edit")).map(|(read, edit)| {
            (
                read,
                json!({ "path": path }),
                edit,
                json!({ "path": path, "edits": [{ "oldText": old, "newText": new }] }),
            )
        })
    };
    match (results, claude.or_else(pi)) {
        (0, Some((read, args, _, _))) => Plan::ToolCall { tool: read, args },
        (1, Some((_, _, edit, args))) => Plan::ToolCall { tool: edit, args },
        (0 | 1, None) => Plan::Text(format!("{base} (no read and edit tools offered)")),
        _ => Plan::Text(format!("{base} (edited)")),
    }
}

/// The plan for a prompt that scripts its own call; `None` for any other prompt.
pub(crate) fn plan(parsed: &Parsed, base: &str) -> Option<Plan> {
    let history = &parsed.history;
    let last_user = last_user_index(history)?;
    let text = &history[last_user].text;
    let command = quoted_after(text, RUN);
    let path = quoted_after(text, WRITE);
    let question = quoted_after(text, ASK);
    if let Some(args) = quoted_n(text, EDIT, 3) {
        let after = &history[last_user + 1..];
        let results = after.iter().filter(|m| m.role == Role::Tool).count();
        return Some(edit_plan(parsed, base, &args, results));
    }
    if command.is_none() && path.is_none() && question.is_none() {
        return None;
    }
    if let Some(result) = history[last_user + 1..]
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
    {
        let output: String = result.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let output: String = output.chars().take(300).collect();
        return Some(Plan::Text(format!("{base} (tool result: {output})")));
    }
    if let Some(command) = command {
        return Some(match pick_shell_tool(&parsed.tools) {
            Some(tool) => {
                let args = shell_args(&tool, command);
                Plan::ToolCall { tool, args }
            }
            None => Plan::Text(format!("{base} (no shell tool offered)")),
        });
    }
    if let Some(question) = question {
        return Some(
            match parsed.tools.iter().find(|t| t.name == "AskUserQuestion") {
                Some(tool) => Plan::ToolCall {
                    tool: tool.clone(),
                    args: json!({ "questions": [{
                        "question": question,
                        "header": "Choice",
                        "multiSelect": false,
                        "options": ASK_OPTIONS.map(|o| json!({"label": o, "description": format!("pick {o}")})),
                    }]}),
                },
                None => Plan::Text(format!("{base} (no question tool offered)")),
            },
        );
    }
    let path = path?;
    let tool = |name: &str| parsed.tools.iter().find(|t| t.name == name).cloned();
    Some(match (tool("Write"), tool("write")) {
        (Some(tool), _) => Plan::ToolCall {
            tool,
            args: json!({ "file_path": path, "content": WRITTEN }),
        },
        // Pi's own write tool.
        (None, Some(tool)) => Plan::ToolCall {
            tool,
            args: json!({ "path": path, "content": WRITTEN }),
        },
        (None, None) => Plan::Text(format!("{base} (no write tool offered)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_quoted_text() {
        assert_eq!(
            quoted_after("please RUN_COMMAND `echo a > b` now", RUN),
            Some("echo a > b")
        );
        assert_eq!(quoted_after("`x` RUN_COMMAND `y`", RUN), Some("y"));
        assert_eq!(quoted_after("RUN_COMMAND `unterminated", RUN), None);
        assert_eq!(quoted_after("nothing here", RUN), None);
        assert_eq!(
            quoted_n("EDIT_FILE `/a b` `x` `y` and `z`", EDIT, 3),
            Some(vec!["/a b", "x", "y"])
        );
        assert_eq!(quoted_n("EDIT_FILE `/a` `x`", EDIT, 3), None);
    }
}
