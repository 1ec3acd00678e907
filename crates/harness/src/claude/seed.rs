//! A conversation from another harness, written as a Claude Code transcript (see "Continue in another
//! agent: what each target needs" in docs/harness-behaviour.md).
//!
//! The file goes where the CLI keeps the folder's sessions, `<config dir>/projects/<encoded
//! cwd>/<new id>.jsonl`, and is resumed like any session (`--resume <id>`), so it is an
//! ordinary session of the CLI: its own `--resume` picker lists it. Records chain by
//! `uuid`/`parentUuid`; a user record opens each turn; the reply is assistant records, one per
//! content block, the blocks of one message sharing its `message.id`, a shell call being a
//! `Bash` `tool_use` block answered by a user record holding its `tool_result`. 2.1.197 hangs
//! on resume unless every assistant record carries `message.id`, `type`, `model`,
//! `stop_reason` and `usage`, so each one does. The file is written whole to a temporary name
//! and renamed, so no half-written session is ever seen.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::paths;
use super::version::require_fork_support;
use crate::contract::{
    now_ms, timestamp, write_turns, FileCall, FileOp, Forked, NativeSession, PendingFork,
    SeedRequest, ShellCall, Transcript,
};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// The model an assistant record names: the records were not written by a Claude model, and
/// the next turn runs on whichever model the CLI is set to.
const MODEL: &str = "forkhost-continued";

/// Writes `request.seed` as a new Claude Code session in `request.cwd`.
pub async fn seed(request: SeedRequest<'_>) -> HarnessResult<Forked> {
    request.check_binary(HarnessKind::Claude, "a Claude Code session")?;
    require_fork_support(request.binary)?;
    let real_cwd = paths::real_cwd(request.cwd)?;
    let id = uuid::Uuid::new_v4().to_string();
    let path = paths::session_path(&paths::config_dir(request.env)?, &real_cwd, &id);
    let session = NativeSession {
        kind: HarnessKind::Claude,
        session_id: id.clone(),
        path: Some(path.clone()),
        cwd: request.cwd.to_owned(),
    };
    if request.seed.is_empty() {
        // Nothing to carry: a fresh session, written by the CLI with its first prompt (as a
        // fork before the first turn is).
        return Ok(Forked {
            session: session.clone(),
            pending: Some(PendingFork {
                source: None,
                session,
                resume_at: None,
            }),
        });
    }
    let text = transcript(request, &id, &real_cwd.display().to_string());
    let written = path.clone();
    tokio::task::spawn_blocking(move || write_new(&written, &text))
        .await
        .map_err(|err| HarnessError::failed(HarnessKind::Claude, err.to_string(), ""))??;
    tracing::info!(session = %id, turns = request.seed.len(), "claude session seeded");
    Ok(Forked {
        session,
        pending: None,
    })
}

/// Writes `text` to a new file `path` (its folder made if missing) through a temporary name.
pub(crate) fn write_new(path: &Path, text: &str) -> HarnessResult<()> {
    let failed = |what: String| HarnessError::failed(HarnessKind::Claude, what, "");
    let dir = path
        .parent()
        .ok_or_else(|| failed(format!("{} has no folder", path.display())))?;
    std::fs::create_dir_all(dir)
        .map_err(|err| failed(format!("cannot create {}: {err}", dir.display())))?;
    let temp: PathBuf = path.with_extension("jsonl.forkhost-tmp");
    let result = crate::private_files::write_private(&temp, text.as_bytes()).and_then(|()| {
        if path.exists() {
            return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
        }
        std::fs::rename(&temp, path)
    });
    result.map_err(|err| {
        let _ = std::fs::remove_file(&temp);
        failed(format!("cannot write {}: {err}", path.display()))
    })
}

/// The transcript's lines.
fn transcript(request: SeedRequest<'_>, session_id: &str, cwd: &str) -> String {
    let mut writer = Writer {
        session_id,
        cwd,
        version: &request.binary.version,
        from: &request.seed.from,
        parent: None,
        at_ms: now_ms() - request.seed.len() as i128,
        messages: 0,
        lines: String::new(),
    };
    write_turns(&mut writer, request.seed);
    writer.lines
}

struct Writer<'a> {
    session_id: &'a str,
    cwd: &'a str,
    version: &'a str,
    from: &'a str,
    parent: Option<String>,
    /// Each record a millisecond after the last, so the order reads right anywhere.
    at_ms: i128,
    messages: u32,
    lines: String,
}

impl Transcript for Writer<'_> {
    const CALL_ID_PREFIX: &'static str = "toolu_";
    const TOOL_USE: &'static str = "tool_use";
    const END_TURN: &'static str = "end_turn";

    fn user(&mut self, prompt: &str) {
        self.record("user", json!({ "role": "user", "content": prompt }), None);
    }

    /// One message: a record per block, the last one carrying the stop reason.
    fn assistant(&mut self, blocks: Vec<Value>, stop_reason: &str) {
        self.messages += 1;
        let id = format!(
            "msg_forkhost{:04}{}",
            self.messages,
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        );
        let last = blocks.len().saturating_sub(1);
        for (i, block) in blocks.into_iter().enumerate() {
            let message = json!({
                "id": id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [block],
                "stop_reason": if i == last { Value::from(stop_reason) } else { Value::Null },
                "stop_sequence": null,
                "usage": {
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            });
            self.record("assistant", message, None);
        }
    }

    fn shell_call(&self, id: &str, call: &ShellCall) -> Value {
        json!({
            "type": "tool_use",
            "id": id,
            "name": "Bash",
            "input": {
                "command": call.command,
                "description": format!("Run in {} before the conversation continued here", self.from),
            },
        })
    }

    /// A shell call's result, with the `toolUseResult` the CLI's display reads for `Bash`.
    fn shell_result(&mut self, tool_use_id: &str, call: &ShellCall) {
        let shown = json!({
            "stdout": call.output,
            "stderr": "",
            "interrupted": false,
            "isImage": false,
        });
        self.result(tool_use_id, &call.output, call.is_error, Some(shown));
    }

    fn file_call(&self, id: &str, call: &FileCall) -> Option<Value> {
        let (name, input) = file_tool(call)?;
        Some(json!({
            "type": "tool_use",
            "id": id,
            "name": name,
            "input": input,
        }))
    }

    /// A file tool's result: the text it returned. No `toolUseResult`: its shape is the
    /// tool's own and only the CLI's display reads it; the model reads the content.
    fn file_result(&mut self, tool_use_id: &str, call: &FileCall) {
        self.result(tool_use_id, &call.output, call.is_error, None);
    }
}

impl Writer<'_> {
    fn result(&mut self, tool_use_id: &str, output: &str, is_error: bool, shown: Option<Value>) {
        let message = json!({
            "role": "user",
            "content": [{
                "tool_use_id": tool_use_id,
                "type": "tool_result",
                "content": output,
                "is_error": is_error,
            }],
        });
        let mut extra = json!({ "sourceToolAssistantUUID": self.parent });
        if let Some(shown) = shown {
            extra["toolUseResult"] = shown;
        }
        self.record("user", message, Some(extra));
    }

    fn record(&mut self, kind: &str, message: Value, extra: Option<Value>) {
        let uuid = uuid::Uuid::new_v4().to_string();
        self.at_ms += 1;
        let mut record = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": timestamp(self.at_ms),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
        });
        if let (Some(fields), Some(Value::Object(more))) = (record.as_object_mut(), extra) {
            fields.extend(more);
        }
        self.lines.push_str(&record.to_string());
        self.lines.push('\n');
        self.parent = Some(uuid);
    }
}

/// Claude Code's own tool for a file call, with its input: `Read`, `Write`, or `Edit` for a
/// single replacement; `None` for several replacements (its `Edit` takes one; they come as
/// text).
fn file_tool(call: &FileCall) -> Option<(&'static str, Value)> {
    let path = &call.path;
    match &call.op {
        FileOp::Read { offset, limit } => {
            let mut input = json!({ "file_path": path });
            if let Some(offset) = offset {
                input["offset"] = json!(offset);
            }
            if let Some(limit) = limit {
                input["limit"] = json!(limit);
            }
            Some(("Read", input))
        }
        FileOp::Write { content } => {
            Some(("Write", json!({ "file_path": path, "content": content })))
        }
        FileOp::Edit { edits } => match edits.as_slice() {
            [one] => Some((
                "Edit",
                json!({ "file_path": path, "old_string": one.old, "new_string": one.new }),
            )),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::ClaudeReader;
    use crate::contract::test_kit::tool_calls;
    use crate::contract::{HarnessBinary, Seed, SeedStep, SeedTurn, NO_REPLY_TEXT};
    use crate::{Role, SessionReader};

    fn binary() -> HarnessBinary {
        HarnessBinary {
            kind: HarnessKind::Claude,
            path: "claude".into(),
            version: "2.1.197".into(),
        }
    }

    fn seed() -> Seed {
        Seed {
            from: "Codex".into(),
            turns: vec![
                SeedTurn {
                    prompt: "first".into(),
                    reply: vec![
                        SeedStep::Text("looking".into()),
                        SeedStep::Shell(ShellCall {
                            command: "ls".into(),
                            output: "a\nb\n".into(),
                            is_error: false,
                        }),
                        SeedStep::Text("two files".into()),
                    ],
                },
                SeedTurn {
                    prompt: "second".into(),
                    reply: vec![SeedStep::Shell(ShellCall {
                        command: "false".into(),
                        output: "".into(),
                        is_error: true,
                    })],
                },
            ],
        }
    }

    /// A Claude config folder (as `CLAUDE_CONFIG_DIR` in the returned environment) and a
    /// folder to seed a session in.
    fn config_dir_and_folder() -> (tempfile::TempDir, tempfile::TempDir, Vec<(String, String)>) {
        let home = tempfile::tempdir().unwrap();
        let env = vec![(
            "CLAUDE_CONFIG_DIR".to_owned(),
            home.path().display().to_string(),
        )];
        (home, tempfile::tempdir().unwrap(), env)
    }

    fn file_seed(from: &str) -> Seed {
        use crate::contract::TextEdit;
        let file = |op: FileOp, output: &str| {
            SeedStep::File(FileCall {
                path: "/w/a.txt".into(),
                op,
                output: output.into(),
                is_error: false,
            })
        };
        let edit = |old: &str, new: &str| TextEdit {
            old: old.into(),
            new: new.into(),
        };
        Seed {
            from: from.into(),
            turns: vec![SeedTurn {
                prompt: "fix a.txt".into(),
                reply: vec![
                    file(
                        FileOp::Read {
                            offset: Some(2),
                            limit: None,
                        },
                        "one\ntwo\n",
                    ),
                    file(
                        FileOp::Write {
                            content: "new\n".into(),
                        },
                        "written",
                    ),
                    file(
                        FileOp::Edit {
                            edits: vec![edit("one", "1")],
                        },
                        "edited once",
                    ),
                    file(
                        FileOp::Edit {
                            edits: vec![edit("one", "1"), edit("two", "2")],
                        },
                        "edited twice",
                    ),
                    SeedStep::Text("done".into()),
                ],
            }],
        }
    }

    #[tokio::test]
    async fn file_calls_are_written_as_its_own_read_write_and_edit() {
        let (_home, cwd, env) = config_dir_and_folder();
        let (binary, seed) = (binary(), file_seed("Pi"));
        let request = SeedRequest {
            binary: &binary,
            seed: &seed,
            cwd: cwd.path(),
            env: &env,
        };
        let forked = super::seed(request).await.unwrap();
        let path = forked.session.path.clone().unwrap();
        let history = ClaudeReader::open(&path).unwrap().history().unwrap();
        let tools = tool_calls(&history, 0);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["Read", "Write", "Edit"]);
        assert_eq!(
            tools[0].input,
            json!({"file_path": "/w/a.txt", "offset": 2})
        );
        assert_eq!(tools[0].output.as_deref(), Some("one\ntwo\n"));
        assert_eq!(
            tools[1].input,
            json!({"file_path": "/w/a.txt", "content": "new\n"})
        );
        assert_eq!(
            tools[2].input,
            json!({"file_path": "/w/a.txt", "old_string": "one", "new_string": "1"})
        );
        assert_eq!(tools[2].output.as_deref(), Some("edited once"));
        // Two replacements in one call are more than its Edit takes: faithful text.
        let texts: Vec<&str> = history.turns[0]
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| m.text.as_str())
            .collect();
        assert_eq!(
            texts.last().copied(),
            Some(
                "[tool call in Pi: edit] {\"edits\":[{\"new\":\"1\",\"old\":\"one\"},{\"new\":\"2\",\"old\":\"two\"}],\"path\":\"/w/a.txt\"}\n[tool result] returned:\nedited twice\n\ndone"
            ),
            "{texts:?}"
        );
    }

    #[tokio::test]
    async fn a_seeded_transcript_reads_back_as_the_turns_it_was_given() {
        let (home, cwd, env) = config_dir_and_folder();
        let (binary, seed) = (binary(), seed());
        let request = SeedRequest {
            binary: &binary,
            seed: &seed,
            cwd: cwd.path(),
            env: &env,
        };
        let forked = super::seed(request).await.unwrap();
        assert!(forked.pending.is_none());
        let path = forked.session.path.clone().unwrap();
        let real = paths::real_cwd(cwd.path()).unwrap();
        assert_eq!(
            path,
            paths::session_path(home.path(), &real, &forked.session.session_id)
        );
        let reader = ClaudeReader::open(&path).unwrap();
        let history = reader.history().unwrap();
        assert_eq!(history.turns.len(), 2);
        assert!(history
            .turns
            .iter()
            .all(|t| t.complete && t.native_checkpoint_ref.is_some()));
        let texts = |i: usize, role: Role| -> Vec<String> {
            history.turns[i]
                .messages
                .iter()
                .filter(|m| m.role == role)
                .map(|m| m.text.clone())
                .collect()
        };
        assert_eq!(texts(0, Role::User), ["first"]);
        assert_eq!(texts(0, Role::Assistant).join("|"), "looking|two files");
        let tool = history.turns[0]
            .messages
            .iter()
            .find_map(|m| m.tool.clone())
            .unwrap();
        assert_eq!(tool.name, "Bash");
        assert_eq!(tool.input["command"], "ls");
        assert_eq!(tool.output.as_deref(), Some("a\nb\n"));
        // A reply of only a tool call still ends its turn.
        assert_eq!(texts(1, Role::Assistant), [NO_REPLY_TEXT]);
        let failed = history.turns[1]
            .messages
            .iter()
            .find_map(|m| m.tool.clone());
        assert!(failed.unwrap().is_error);
        // Every assistant record carries what 2.1.197 needs to resume it.
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["sessionId"], forked.session.session_id.as_str());
            if v["type"] == "assistant" {
                for key in ["id", "type", "model", "stop_reason", "usage"] {
                    assert!(v["message"].get(key).is_some(), "{key} in {line}");
                }
            }
        }
        // Nothing is left beside it.
        let files: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(files.len(), 1);
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p").join("s.jsonl");
        write_new(&path, "one\n").unwrap();
        assert!(write_new(&path, "two\n").is_err());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "a seeded transcript is the user's alone (L-8)");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n");
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }

    #[tokio::test]
    async fn another_harnesss_binary_is_refused() {
        let binary = HarnessBinary {
            kind: HarnessKind::Pi,
            ..binary()
        };
        let (seed, cwd) = (seed(), tempfile::tempdir().unwrap());
        let request = SeedRequest {
            binary: &binary,
            seed: &seed,
            cwd: cwd.path(),
            env: &[],
        };
        assert!(matches!(
            super::seed(request).await,
            Err(HarnessError::InvalidInput(_))
        ));
    }
}
