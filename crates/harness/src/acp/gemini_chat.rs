//! Gemini CLI's own chat files, and a fork written as one. Gemini CLI (0.61.0) offers
//! `session/load` but no `session/fork`, so a fork at a message is a new chat file in its own
//! format, cut there, which Gemini CLI then loads as any session of its own (docs/
//! harness-behaviour.md, "Gemini CLI").
//!
//! **The format.** One file per session, JSON lines under `~/.gemini/tmp/<project>/chats/`: a
//! header (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `kind`), then records that
//! are either a message (`id`, `timestamp`, `type`: `user` | `gemini` | …, `content`) or a
//! `{"$set": {…}}` that replaces header fields, or the whole message list (`messages`). The
//! session's state is those records folded in order.
//!
//! **The file's name.** Gemini CLI names a chat `session-<start minute>-<first 8 of its id>`,
//! and its `session/load` starts a new recording under that pattern for the current minute
//! *before* reading the session — a session made in the same minute is overwritten by an
//! empty one (seen on 0.61.0). A fork's file is named `session-forkhost-<id>.jsonl`, which
//! Gemini CLI lists (it reads every `session-*.jsonl`) and never names itself.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::contract::{now_ms, timestamp};
use crate::error::{HarnessError, HarnessResult};

/// The opening of every user message Gemini CLI adds itself before the first prompt.
const CONTEXT_OPENING: &str = "<session_context>";

/// A chat file's state: its header fields and its messages, records folded in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Chat {
    pub header: Map<String, Value>,
    pub messages: Vec<Value>,
}

impl Chat {
    /// The session's id (`sessionId`).
    pub fn session_id(&self) -> Option<&str> {
        self.header.get("sessionId").and_then(Value::as_str)
    }

    /// How many prompts the user gave: user messages, Gemini CLI's own context aside.
    pub fn prompts(&self) -> usize {
        self.messages.iter().filter(|m| is_prompt(m)).count()
    }
}

/// Whether `message` is a prompt of the user's (not Gemini CLI's own session context).
fn is_prompt(message: &Value) -> bool {
    message.get("type").and_then(Value::as_str) == Some("user")
        && !text_of(message).trim_start().starts_with(CONTEXT_OPENING)
}

fn text_of(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn malformed(path: &Path, why: impl std::fmt::Display) -> HarnessError {
    HarnessError::InvalidInput(format!(
        "{} is not a Gemini CLI chat file: {why}",
        path.display()
    ))
}

/// Reads the chat file at `path`.
pub fn read_chat(path: &Path) -> HarnessResult<Chat> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => HarnessError::SessionNotFound(path.display().to_string()),
        _ => malformed(path, e),
    })?;
    let mut chat = Chat {
        header: Map::new(),
        messages: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else {
            // A last line cut short by a crash mid-write is not the session's.
            if n + 1 == text.lines().count() {
                break;
            }
            return Err(malformed(
                path,
                format!("line {} is not a JSON object", n + 1),
            ));
        };
        if let Some(Value::Object(set)) = record.get("$set") {
            for (key, value) in set {
                match (key.as_str(), value) {
                    ("messages", Value::Array(messages)) => chat.messages = messages.clone(),
                    _ => {
                        chat.header.insert(key.clone(), value.clone());
                    }
                }
            }
        } else if record.contains_key("sessionId") && !record.contains_key("type") {
            chat.header.extend(record);
        } else if record.contains_key("type") {
            // A message written again (a tool call's result, say) replaces its first copy.
            let id = record.get("id").cloned();
            let message = Value::Object(record);
            match chat
                .messages
                .iter_mut()
                .find(|m| id.is_some() && m.get("id") == id.as_ref())
            {
                Some(old) => *old = message,
                None => chat.messages.push(message),
            }
        }
    }
    if chat.session_id().is_none() {
        return Err(malformed(path, "no sessionId"));
    }
    Ok(chat)
}

/// Writes a new session `new_id` beside the chat at `source`: its messages up to the start of
/// prompt `before_prompt + 1` (so `before_prompt` whole turns), then nothing else. The source is
/// only read. Written to a temporary name and renamed, so Gemini CLI never sees half a file.
pub fn write_cut(source: &Path, before_prompt: usize, new_id: &str) -> HarnessResult<PathBuf> {
    if new_id.is_empty()
        || !new_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(HarnessError::InvalidInput(format!(
            "{new_id:?} is not a session id"
        )));
    }
    let chat = read_chat(source)?;
    let prompts = chat.prompts();
    if before_prompt > prompts {
        return Err(HarnessError::TurnNotFound(format!(
            "turn {before_prompt} of a Gemini CLI session with {prompts}"
        )));
    }
    let mut seen = 0;
    let kept: Vec<&Value> = chat
        .messages
        .iter()
        .take_while(|m| {
            if is_prompt(m) {
                seen += 1;
            }
            seen <= before_prompt
        })
        .collect();
    let now = timestamp(now_ms());
    let mut header = chat.header.clone();
    header.insert("sessionId".into(), json!(new_id));
    header.insert("startTime".into(), json!(now));
    header.insert("lastUpdated".into(), json!(now));
    header.insert("kind".into(), json!("main"));
    // What Gemini CLI derived from the whole source (its summary, counts) is not the cut's.
    header.retain(|k, _| {
        matches!(
            k.as_str(),
            "sessionId" | "projectHash" | "startTime" | "lastUpdated" | "kind"
        )
    });
    let mut text = serde_json::to_string(&header).map_err(|e| malformed(source, e))?;
    text.push('\n');
    for message in kept {
        text.push_str(&serde_json::to_string(message).map_err(|e| malformed(source, e))?);
        text.push('\n');
    }
    let dir = source
        .parent()
        .ok_or_else(|| malformed(source, "no folder"))?;
    let path = dir.join(format!("session-forkhost-{new_id}.jsonl"));
    if path.exists() {
        return Err(HarnessError::InvalidInput(format!(
            "a Gemini CLI session {new_id} exists already"
        )));
    }
    let partial = dir.join(format!(".session-forkhost-{new_id}.partial"));
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            HarnessError::InvalidInput(format!("cannot write {}: {e}", path.display()))
        })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: Value) -> String {
        format!("{v}\n")
    }

    fn sample(dir: &Path) -> PathBuf {
        let path = dir.join("session-2026-12-07T19-13-12021cdf.jsonl");
        let header = json!({"sessionId": "12021cdf-1", "projectHash": "p", "startTime": "t0",
                            "lastUpdated": "t0", "kind": "main"});
        let context = json!({"id": "c", "type": "user",
                             "content": [{"text": "<session_context>\nfolder\n</session_context>"}]});
        let mut text = line(header.clone());
        text += &line(json!({"$set": {"messages": [context.clone()]}}));
        text += &line(header);
        text += &line(json!({"id": "u1", "type": "user", "content": [{"text": "alpha"}]}));
        text += &line(json!({"$set": {"lastUpdated": "t1"}}));
        text += &line(json!({"id": "g1", "type": "gemini", "content": "reply one"}));
        text += &line(json!({"id": "u2", "type": "user", "content": [{"text": "bravo"}]}));
        text += &line(json!({"id": "g2", "type": "gemini", "content": "draft"}));
        // Written again, complete.
        text += &line(json!({"id": "g2", "type": "gemini", "content": "reply two"}));
        text += &line(json!({"$set": {"summary": "about alpha and bravo"}}));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_chat_is_its_records_folded_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let chat = read_chat(&sample(dir.path())).unwrap();
        assert_eq!(chat.session_id(), Some("12021cdf-1"));
        assert_eq!(chat.prompts(), 2);
        let texts: Vec<String> = chat.messages.iter().map(text_of).collect();
        assert_eq!(texts[1..], ["alpha", "reply one", "bravo", "reply two"]);
        assert_eq!(chat.header["lastUpdated"], "t1");
    }

    #[test]
    fn a_cut_keeps_whole_turns_and_leaves_the_source_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let source = sample(dir.path());
        let before = std::fs::read(&source).unwrap();
        let path = write_cut(&source, 1, "aaaa-bbbb").unwrap();
        assert_eq!(
            path.file_name().unwrap(),
            "session-forkhost-aaaa-bbbb.jsonl"
        );
        assert_eq!(std::fs::read(&source).unwrap(), before);
        let cut = read_chat(&path).unwrap();
        assert_eq!(cut.session_id(), Some("aaaa-bbbb"));
        let texts: Vec<String> = cut.messages.iter().map(text_of).collect();
        assert_eq!(texts[1..], ["alpha", "reply one"]);
        assert!(!cut.header.contains_key("summary"), "{:?}", cut.header);
        assert_eq!(cut.header["projectHash"], "p");

        // Before the first prompt: Gemini CLI's context only. Every turn: the whole session.
        let none = read_chat(&write_cut(&source, 0, "c0").unwrap()).unwrap();
        assert_eq!(none.prompts(), 0);
        assert_eq!(none.messages.len(), 1);
        let all = read_chat(&write_cut(&source, 2, "c2").unwrap()).unwrap();
        assert_eq!(all.messages, read_chat(&source).unwrap().messages);
    }

    #[test]
    fn bad_input_is_refused_in_words_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let source = sample(dir.path());
        assert!(matches!(
            write_cut(&source, 3, "x1"),
            Err(HarnessError::TurnNotFound(_))
        ));
        assert!(matches!(
            write_cut(&source, 1, "../escape"),
            Err(HarnessError::InvalidInput(_))
        ));
        write_cut(&source, 1, "same").unwrap();
        assert!(matches!(
            write_cut(&source, 1, "same"),
            Err(HarnessError::InvalidInput(_))
        ));
        assert!(matches!(
            read_chat(&dir.path().join("missing.jsonl")),
            Err(HarnessError::SessionNotFound(_))
        ));
        let garbage = dir.path().join("session-x.jsonl");
        std::fs::write(&garbage, "not json\n{}\n").unwrap();
        assert!(matches!(
            read_chat(&garbage),
            Err(HarnessError::InvalidInput(_))
        ));
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".partial")), "{names:?}");
        assert_eq!(names.len(), 3, "{names:?}");
    }
}
