//! File tool calls recognized across the three harnesses, so a read, write or edit carried
//! into Claude Code or Pi becomes that harness's own call: Claude Code's `Read`, `Write`,
//! `Edit` and `MultiEdit`, Pi's `read`, `write` and `edit` (an `edits` list, or one
//! `oldText`/`newText` pair as older Pi versions and some models send it), and Codex's
//! `apply_patch` when its patch adds or updates exactly one file. Anything else (a patch over
//! several files, a move or a delete, a call whose input does not parse) is `None`, and the
//! carry keeps it as faithful text.

use serde_json::Value;

use crate::contract::{FileOp, TextEdit};
use crate::history::ToolCall;

/// The path and operation of a file tool call, by the tool names and argument shapes of the
/// three harnesses.
pub fn file_op(call: &ToolCall) -> Option<(String, FileOp)> {
    let input = &call.input;
    let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    let number = |key: &str| input.get(key).and_then(Value::as_u64);
    let (path, op) = match call.name.as_str() {
        "Read" | "read" => (
            text("file_path").or_else(|| text("path"))?,
            FileOp::Read {
                offset: number("offset"),
                limit: number("limit"),
            },
        ),
        "Write" | "write" => (
            text("file_path").or_else(|| text("path"))?,
            FileOp::Write {
                content: text("content")?,
            },
        ),
        // `replace_all` replaces every match: not one replacement, so not this shape.
        "Edit" if input.get("replace_all").and_then(Value::as_bool) != Some(true) => (
            text("file_path")?,
            FileOp::Edit {
                edits: vec![TextEdit {
                    old: text("old_string")?,
                    new: text("new_string")?,
                }],
            },
        ),
        "MultiEdit" => (
            text("file_path")?,
            FileOp::Edit {
                edits: edits(input.get("edits")?, "old_string", "new_string")?,
            },
        ),
        "edit" => {
            let edits = match input.get("edits") {
                Some(list) => edits(list, "oldText", "newText")?,
                None => vec![TextEdit {
                    old: text("oldText")?,
                    new: text("newText")?,
                }],
            };
            (text("path")?, FileOp::Edit { edits })
        }
        "apply_patch" => {
            let patch = match input {
                Value::String(patch) => patch.clone(),
                other => other
                    .get("input")
                    .or_else(|| other.get("patch"))
                    .and_then(Value::as_str)?
                    .to_owned(),
            };
            patch_op(&patch)?
        }
        _ => return None,
    };
    (!path.trim().is_empty()).then_some((path, op))
}

/// A list of `{old, new}` objects; `None` if any is not one (or the list is empty).
fn edits(list: &Value, old: &str, new: &str) -> Option<Vec<TextEdit>> {
    let list = match list {
        // Some models send the list as a JSON string (Pi parses it the same way).
        Value::String(s) => serde_json::from_str(s).ok()?,
        other => other.clone(),
    };
    let out: Option<Vec<TextEdit>> = list
        .as_array()?
        .iter()
        .map(|e| {
            Some(TextEdit {
                old: e.get(old)?.as_str()?.to_owned(),
                new: e.get(new)?.as_str()?.to_owned(),
            })
        })
        .collect();
    out.filter(|e| !e.is_empty())
}

/// A Codex patch that adds or updates exactly one file, as a write or an edit: an added file's
/// `+` lines are its content; each `@@` hunk of an update is one replacement of its context
/// and `-` lines by its context and `+` lines.
fn patch_op(patch: &str) -> Option<(String, FileOp)> {
    let mut lines = patch.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next()?.trim() != "*** Begin Patch" {
        return None;
    }
    let header = lines.next()?;
    let body: Vec<&str> = lines
        .take_while(|l| l.trim() != "*** End Patch")
        .filter(|l| *l != "*** End of File")
        .collect();
    if body.iter().any(|l| l.starts_with("*** ")) {
        return None; // another file, a move, or a delete
    }
    if let Some(path) = header.strip_prefix("*** Add File: ") {
        let mut content = String::new();
        for line in &body {
            content.push_str(line.strip_prefix('+')?);
            content.push('\n');
        }
        return Some((path.trim().to_owned(), FileOp::Write { content }));
    }
    let path = header.strip_prefix("*** Update File: ")?;
    let mut edits = Vec::new();
    let mut current: Option<TextEdit> = None;
    for line in body {
        if line.starts_with("@@") {
            edits.extend(current.take());
            current = Some(TextEdit {
                old: String::new(),
                new: String::new(),
            });
            continue;
        }
        let edit = current.get_or_insert_with(|| TextEdit {
            old: String::new(),
            new: String::new(),
        });
        let (sign, rest) = line.split_at(line.len().min(1));
        match sign {
            " " | "" => {
                edit.old.push_str(rest);
                edit.old.push('\n');
                edit.new.push_str(rest);
                edit.new.push('\n');
            }
            "-" => {
                edit.old.push_str(rest);
                edit.old.push('\n');
            }
            "+" => {
                edit.new.push_str(rest);
                edit.new.push('\n');
            }
            _ => return None,
        }
    }
    edits.extend(current);
    edits.retain(|e| e.old != e.new);
    (!edits.is_empty()).then(|| (path.trim().to_owned(), FileOp::Edit { edits }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall {
            id: None,
            name: name.into(),
            input,
            output: Some("ok".into()),
            is_error: false,
        }
    }

    fn edit(old: &str, new: &str) -> TextEdit {
        TextEdit {
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn reads_and_writes_of_claude_code_and_pi_are_recognized() {
        let read = FileOp::Read {
            offset: None,
            limit: None,
        };
        assert_eq!(
            file_op(&call("Read", json!({"file_path": "/a.rs"}))),
            Some(("/a.rs".into(), read.clone()))
        );
        assert_eq!(
            file_op(&call(
                "read",
                json!({"path": "a.rs", "offset": 3, "limit": 10})
            )),
            Some((
                "a.rs".into(),
                FileOp::Read {
                    offset: Some(3),
                    limit: Some(10)
                }
            ))
        );
        let write = FileOp::Write {
            content: "x\n".into(),
        };
        assert_eq!(
            file_op(&call("Write", json!({"file_path": "/a", "content": "x\n"}))),
            Some(("/a".into(), write.clone()))
        );
        assert_eq!(
            file_op(&call("write", json!({"path": "a", "content": "x\n"}))),
            Some(("a".into(), write))
        );
        assert_eq!(file_op(&call("Write", json!({"file_path": "/a"}))), None);
        assert_eq!(file_op(&call("Read", json!({"file_path": " "}))), None);
        assert_eq!(file_op(&call("Grep", json!({"path": "/a"}))), None);
    }

    #[test]
    fn edits_of_every_shape_are_recognized() {
        let one = FileOp::Edit {
            edits: vec![edit("a", "b")],
        };
        assert_eq!(
            file_op(&call(
                "Edit",
                json!({"file_path": "/f", "old_string": "a", "new_string": "b"})
            )),
            Some(("/f".into(), one.clone()))
        );
        // replace_all is not one replacement.
        assert_eq!(
            file_op(&call(
                "Edit",
                json!({"file_path": "/f", "old_string": "a", "new_string": "b", "replace_all": true})
            )),
            None
        );
        assert_eq!(
            file_op(&call(
                "MultiEdit",
                json!({"file_path": "/f", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]})
            )),
            Some((
                "/f".into(),
                FileOp::Edit {
                    edits: vec![edit("a", "b"), edit("c", "d")]
                }
            ))
        );
        assert_eq!(
            file_op(&call(
                "edit",
                json!({"path": "f", "edits": [{"oldText": "a", "newText": "b"}]})
            )),
            Some(("f".into(), one.clone()))
        );
        assert_eq!(
            file_op(&call(
                "edit",
                json!({"path": "f", "edits": "[{\"oldText\": \"a\", \"newText\": \"b\"}]"})
            )),
            Some(("f".into(), one.clone()))
        );
        assert_eq!(
            file_op(&call(
                "edit",
                json!({"path": "f", "oldText": "a", "newText": "b"})
            )),
            Some(("f".into(), one))
        );
        assert_eq!(
            file_op(&call("edit", json!({"path": "f", "edits": []}))),
            None
        );
        assert_eq!(
            file_op(&call(
                "edit",
                json!({"path": "f", "edits": [{"oldText": "a"}]})
            )),
            None
        );
    }

    #[test]
    fn a_codex_patch_of_one_file_is_a_write_or_an_edit() {
        let add = "*** Begin Patch\n*** Add File: src/new.txt\n+one\n+two\n*** End Patch\n";
        assert_eq!(
            file_op(&call("apply_patch", Value::String(add.into()))),
            Some((
                "src/new.txt".into(),
                FileOp::Write {
                    content: "one\ntwo\n".into()
                }
            ))
        );
        let update = "*** Begin Patch\n*** Update File: a.txt\n@@ fn main\n keep\n-old\n+new\n@@\n-x\n+y\n+z\n*** End of File\n*** End Patch";
        assert_eq!(
            file_op(&call("apply_patch", json!({ "input": update }))),
            Some((
                "a.txt".into(),
                FileOp::Edit {
                    edits: vec![edit("keep\nold\n", "keep\nnew\n"), edit("x\n", "y\nz\n")]
                }
            ))
        );
        // Two files, a move, a delete, or no patch at all: not one write or edit.
        let two = "*** Begin Patch\n*** Add File: a\n+1\n*** Add File: b\n+2\n*** End Patch";
        let moved =
            "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-1\n+2\n*** End Patch";
        let deleted = "*** Begin Patch\n*** Delete File: a\n*** End Patch";
        let unchanged = "*** Begin Patch\n*** Update File: a\n@@\n same\n*** End Patch";
        for patch in [
            two,
            moved,
            deleted,
            unchanged,
            "not a patch",
            "*** Begin Patch\n*** Add File: a\nno plus\n",
        ] {
            assert_eq!(
                file_op(&call("apply_patch", Value::String(patch.into()))),
                None,
                "{patch}"
            );
        }
    }
}
