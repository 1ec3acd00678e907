//! A conversation from another harness, written as a Pi session (see "Continue in another
//! agent: what each target needs" in docs/harness-behaviour.md).
//!
//! The session is written in Pi's documented format (v3: a header, then `message` entries
//! chained by `id`/`parentId`: `user`, `assistant` with `text` and `toolCall` blocks, and
//! `toolResult`) into a private staging folder, then copied into the folder it runs in by Pi's
//! own `pi --mode rpc --fork <staged>` started there, as a fork into another folder is: Pi names
//! and places the file, records the folder as its cwd, and by opening it proves it reads it;
//! `get_entries` then confirms it ends at the last entry written. The header names no
//! `parentSession` (the conversation has no Pi parent; the Host keeps the lineage), and the
//! staging folder is removed. Nothing is sent to a model.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::fork::into_folder::{copy_into, Copy, Staging};
use super::version::require_supported;
use crate::contract::{
    now_ms, timestamp, write_turns, FileCall, FileOp, Forked, SeedRequest, ShellCall, Transcript,
};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// Writes `request.seed` as a new Pi session in `request.cwd`.
pub async fn seed(request: SeedRequest<'_>) -> HarnessResult<Forked> {
    request.check_binary(HarnessKind::Pi, "a Pi session")?;
    require_supported(request.binary)?;
    request.check_cwd()?;
    if request.seed.is_empty() {
        return Ok(super::fork::fresh(request.cwd));
    }
    let started = std::time::Instant::now();
    let staging = Staging::create()?;
    let id = uuid::Uuid::now_v7().to_string();
    let staged = staging.path().join(format!("{id}.jsonl"));
    let (text, last) = session(request, &id);
    crate::private_files::write_private(&staged, text.as_bytes()).map_err(|err| {
        HarnessError::failed(
            HarnessKind::Pi,
            format!("cannot write {}: {err}", staged.display()),
            "",
        )
    })?;
    let copy = Copy {
        binary: request.binary,
        env: request.env,
        staged: &staged,
        keep_to: &last,
        parent: None,
    };
    let copied = copy_into(&copy, request.cwd).await;
    drop(staging);
    let (file, session_id) = copied?;
    tracing::info!(
        %session_id,
        turns = request.seed.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "pi session seeded"
    );
    Ok(request.written(HarnessKind::Pi, session_id, file))
}

/// The session's lines and the id of its last entry.
fn session(request: SeedRequest<'_>, id: &str) -> (String, String) {
    let mut writer = Writer {
        at_ms: now_ms() - request.seed.len() as i128 * 4,
        parent: None,
        ids: HashSet::new(),
        lines: String::new(),
    };
    let header = json!({
        "type": "session",
        "version": 3,
        "id": id,
        "timestamp": timestamp(writer.at_ms),
        "cwd": request.cwd.display().to_string(),
    });
    writer.line(header);
    writer.entry("thinking_level_change", |e| {
        e.insert("thinkingLevel".into(), "off".into());
    });
    write_turns(&mut writer, request.seed);
    let last = writer.parent.clone().unwrap_or_default();
    (writer.lines, last)
}

struct Writer {
    at_ms: i128,
    parent: Option<String>,
    ids: HashSet<String>,
    lines: String,
}

impl Transcript for Writer {
    const CALL_ID_PREFIX: &'static str = "call_";
    const TOOL_USE: &'static str = "toolUse";
    const END_TURN: &'static str = "stop";

    fn user(&mut self, prompt: &str) {
        let at = self.tick();
        self.message(json!({
            "role": "user",
            "content": [{ "type": "text", "text": prompt }],
            "timestamp": at,
        }));
    }

    fn assistant(&mut self, content: Vec<Value>, stop_reason: &str) {
        let at = self.tick();
        self.message(json!({
            "role": "assistant",
            "content": content,
            // Pi carries messages across providers; these name no real one.
            "api": "openai-completions",
            "provider": "forkhost",
            "model": "forkhost-continued",
            "usage": {
                "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0 },
            },
            "stopReason": stop_reason,
            "timestamp": at,
        }));
    }

    fn shell_call(&self, id: &str, call: &ShellCall) -> Value {
        json!({
            "type": "toolCall",
            "id": id,
            "name": "bash",
            "arguments": { "command": call.command },
        })
    }

    fn shell_result(&mut self, id: &str, call: &ShellCall) {
        self.result(id, "bash", &call.output, call.is_error);
    }

    /// Pi has its own `read`, `write` and `edit` for every file call.
    fn file_call(&self, id: &str, call: &FileCall) -> Option<Value> {
        Some(json!({
            "type": "toolCall",
            "id": id,
            "name": call.verb(),
            "arguments": file_arguments(call),
        }))
    }

    fn file_result(&mut self, id: &str, call: &FileCall) {
        self.result(id, call.verb(), &call.output, call.is_error);
    }
}

impl Writer {
    fn result(&mut self, call_id: &str, tool: &str, output: &str, is_error: bool) {
        let at = self.tick();
        self.message(json!({
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool,
            "content": [{ "type": "text", "text": output }],
            "isError": is_error,
            "timestamp": at,
        }));
    }

    fn message(&mut self, message: Value) {
        self.entry("message", |e| {
            e.insert("message".into(), message);
        });
    }

    /// An entry chained to the last one, with an id of 8 hex characters unique in the file.
    fn entry(&mut self, kind: &str, fill: impl FnOnce(&mut serde_json::Map<String, Value>)) {
        let id = loop {
            let candidate = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
            if self.ids.insert(candidate.clone()) {
                break candidate;
            }
        };
        let at = self.tick();
        let mut entry = serde_json::Map::new();
        entry.insert("type".into(), kind.into());
        entry.insert("id".into(), id.clone().into());
        entry.insert("parentId".into(), self.parent.clone().into());
        entry.insert("timestamp".into(), timestamp(at).into());
        fill(&mut entry);
        self.line(Value::Object(entry));
        self.parent = Some(id);
    }

    fn line(&mut self, value: Value) {
        self.lines.push_str(&value.to_string());
        self.lines.push('\n');
    }

    fn tick(&mut self) -> i128 {
        self.at_ms += 1;
        self.at_ms
    }
}

/// Pi's arguments for its own `read`, `write` or `edit` tool.
fn file_arguments(call: &FileCall) -> Value {
    match &call.op {
        FileOp::Read { offset, limit } => {
            let mut args = json!({ "path": call.path });
            if let Some(offset) = offset {
                args["offset"] = json!(offset);
            }
            if let Some(limit) = limit {
                args["limit"] = json!(limit);
            }
            args
        }
        FileOp::Write { content } => json!({ "path": call.path, "content": content }),
        FileOp::Edit { edits } => json!({
            "path": call.path,
            "edits": edits
                .iter()
                .map(|e| json!({ "oldText": e.old, "newText": e.new }))
                .collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::test_kit::tool_calls;
    use crate::contract::{HarnessBinary, Seed, SeedStep, SeedTurn, NO_REPLY_TEXT};
    use crate::pi::history::PiReader;
    use crate::{Role, SessionReader};

    /// `seed` written as a Pi session file in a folder of its own: (folder, file, text, last
    /// entry id).
    fn written(seed: &Seed, id: &str) -> (tempfile::TempDir, std::path::PathBuf, String, String) {
        let binary = HarnessBinary {
            kind: HarnessKind::Pi,
            path: "pi".into(),
            version: "1.6.0".into(),
        };
        let cwd = tempfile::tempdir().unwrap();
        let request = SeedRequest {
            binary: &binary,
            seed,
            cwd: cwd.path(),
            env: &[],
        };
        let (text, last) = session(request, id);
        let file = cwd.path().join("s.jsonl");
        std::fs::write(&file, &text).unwrap();
        (cwd, file, text, last)
    }

    #[test]
    fn file_calls_are_written_as_its_own_read_write_and_edit() {
        use crate::contract::TextEdit;
        let file = |op: FileOp, output: &str| {
            SeedStep::File(FileCall {
                path: "src/a.txt".into(),
                op,
                output: output.into(),
                is_error: false,
            })
        };
        let edits = vec![
            TextEdit {
                old: "one".into(),
                new: "1".into(),
            },
            TextEdit {
                old: "two".into(),
                new: "2".into(),
            },
        ];
        let seed = Seed {
            from: "Claude Code".into(),
            turns: vec![SeedTurn {
                prompt: "fix it".into(),
                reply: vec![
                    file(
                        FileOp::Read {
                            offset: None,
                            limit: Some(5),
                        },
                        "one\ntwo\n",
                    ),
                    file(
                        FileOp::Write {
                            content: "x\n".into(),
                        },
                        "wrote",
                    ),
                    file(FileOp::Edit { edits }, "edited"),
                ],
            }],
        };
        let (_dir, path, text, _) = written(&seed, "01a228e1-8de8-754e-8479-6840ac890b85");
        let history = PiReader::open(&path).unwrap().history().unwrap();
        let tools = tool_calls(&history, 0);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["read", "write", "edit"]);
        assert_eq!(tools[0].input, json!({"path": "src/a.txt", "limit": 5}));
        assert_eq!(tools[0].output.as_deref(), Some("one\ntwo\n"));
        assert_eq!(
            tools[1].input,
            json!({"path": "src/a.txt", "content": "x\n"})
        );
        assert_eq!(
            tools[2].input,
            json!({"path": "src/a.txt", "edits": [
                {"oldText": "one", "newText": "1"},
                {"oldText": "two", "newText": "2"}
            ]})
        );
        assert_eq!(tools[2].output.as_deref(), Some("edited"));
        // Each result names its own tool, as Pi's do.
        let results: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["message"]["role"] == "toolResult")
            .map(|l| l["message"]["toolName"].clone())
            .collect();
        assert_eq!(results, [json!("read"), json!("write"), json!("edit")]);
    }

    #[test]
    fn a_seeded_session_reads_back_as_the_turns_it_was_given() {
        let seed = Seed {
            from: "Claude Code".into(),
            turns: vec![
                SeedTurn {
                    prompt: "first".into(),
                    reply: vec![
                        SeedStep::Shell(ShellCall {
                            command: "ls".into(),
                            output: "a\n".into(),
                            is_error: false,
                        }),
                        SeedStep::Text("one file".into()),
                    ],
                },
                SeedTurn {
                    prompt: "second".into(),
                    reply: vec![],
                },
            ],
        };
        let (_dir, file, text, last) = written(&seed, "01a228e1-8de8-754e-8479-6840ac890b84");
        let reader = PiReader::open(&file).unwrap();
        let history = reader.history().unwrap();
        assert_eq!(history.turns.len(), 2);
        assert!(history.turns.iter().all(|t| t.complete));
        assert_eq!(history.leaf.as_deref(), Some(last.as_str()));
        let user: Vec<_> = history
            .turns
            .iter()
            .flat_map(|t| t.messages.iter().filter(|m| m.role == Role::User))
            .map(|m| m.text.clone())
            .collect();
        assert_eq!(user, ["first", "second"]);
        let tool = history.turns[0]
            .messages
            .iter()
            .find_map(|m| m.tool.clone())
            .unwrap();
        assert_eq!(
            (tool.name.as_str(), tool.output.as_deref()),
            ("bash", Some("a\n"))
        );
        assert_eq!(tool.input["command"], "ls");
        let replies: Vec<_> = history.turns[1]
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| m.text.clone())
            .collect();
        assert_eq!(replies, [NO_REPLY_TEXT]);
        // Ids are unique and every entry's parent is the entry before it.
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines[0].get("parentSession").is_none());
        for pair in lines[1..].windows(2) {
            assert_eq!(pair[1]["parentId"], pair[0]["id"]);
        }
        let ids: HashSet<_> = lines[1..].iter().map(|l| l["id"].to_string()).collect();
        assert_eq!(ids.len(), lines.len() - 1);
    }
}
