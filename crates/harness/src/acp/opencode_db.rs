//! OpenCode's own store, read directly: a session's turns from `opencode.db`, the one SQLite
//! database OpenCode keeps every session in (`$XDG_DATA_HOME/opencode/`; docs/harness-behaviour.md
//! "OpenCode 1.18.33 over ACP"). Its `session/load` replay comes from the same rows, and this
//! reader cuts them into turns exactly as [`super::updates::Replay`] cuts the replay (proven
//! equal by `tests/tests/harness/acp_opencode.rs`), without starting OpenCode (~2–4 s) — and
//! with what the replay leaves out: each model call's tokens, cost and model.
//!
//! Rows: `message` (`id`, `session_id`, `time_created`, `data`: role, model, tokens, cost,
//! `time.completed`) and `part` (`id`, `message_id`, `data`: `text`, `tool` with its `state`,
//! `step-start`/`step-finish`, `reasoning`). Ids sort in the order they were made. The file is
//! opened read-only; OpenCode may be writing it (WAL), and a reader never blocks it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

use crate::contract::TurnUsage;
use crate::history::{HistoryError, Message, Role, ToolCall, Turn};

/// Where OpenCode keeps its database for a process with the extra variables `env`: under
/// `XDG_DATA_HOME` (as `env` sets it, else this process's), else `~/.local/share` — on every
/// OS, as OpenCode resolves it.
pub fn database(env: &[(String, String)]) -> Option<PathBuf> {
    let var = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
    };
    let data = match var("XDG_DATA_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(
            var("HOME").or_else(|| dirs::home_dir().map(|h| h.to_string_lossy().into_owned()))?,
        )
        .join(".local/share"),
    };
    Some(data.join("opencode").join("opencode.db"))
}

/// Session `id` of the database at `db`, turn by turn: a user message opens a turn, and the
/// assistant messages after it (each model call) belong to it.
pub fn read_session(db: &Path, id: &str) -> Result<Vec<Turn>, HistoryError> {
    let failed = |e: rusqlite::Error| HistoryError::Io {
        path: db.to_owned(),
        source: std::io::Error::other(e.to_string()),
    };
    if !db.is_file() {
        return Err(HistoryError::SessionNotFound {
            path: db.to_owned(),
        });
    }
    let conn = open(db).map_err(failed)?;
    if directory_in(&conn, id).map_err(failed)?.is_none() {
        return Err(HistoryError::SessionNotFound { path: db.join(id) });
    }
    let mut messages = conn
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")
        .map_err(failed)?;
    let rows: Vec<(String, String)> = messages
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(failed)?
        .collect::<Result<_, _>>()
        .map_err(failed)?;
    let mut parts = conn
        .prepare("SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY id")
        .map_err(failed)?;
    let mut parts_of: std::collections::HashMap<String, Vec<Value>> = Default::default();
    for part in parts
        .query_map([id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .map_err(failed)?
    {
        let (message, data) = part.map_err(failed)?;
        if let Ok(data) = serde_json::from_str(&data) {
            parts_of.entry(message).or_default().push(data);
        }
    }
    let mut cut = Cut::default();
    for (message, data) in rows {
        let Ok(data) = serde_json::from_str::<Value>(&data) else {
            continue;
        };
        let parts = parts_of.remove(&message).unwrap_or_default();
        match data.get("role").and_then(Value::as_str) {
            Some("user") => cut.prompt(&message, &parts),
            Some("assistant") => cut.reply(&message, &data, &parts),
            _ => {}
        }
    }
    Ok(cut.turns)
}

/// Whether session `id` is in the database at `db` (a database that cannot be read has none).
pub fn has_session(db: &Path, id: &str) -> bool {
    directory(db, id).is_some()
}

/// The folder session `id` of the database at `db` was made in.
pub fn directory(db: &Path, id: &str) -> Option<String> {
    if !db.is_file() {
        return None;
    }
    open(db)
        .ok()
        .and_then(|conn| directory_in(&conn, id).ok().flatten())
}

/// The database, read-only: OpenCode may be writing it (WAL), and a reader never blocks it.
fn open(db: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    Ok(conn)
}

fn directory_in(conn: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT directory FROM session WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .optional()
}

/// The turns cut so far, oldest first; a reply (and its usage) goes to the last one.
#[derive(Default)]
struct Cut {
    turns: Vec<Turn>,
}

impl Cut {
    /// A user message: a new turn, its text the message's own text parts (not the ones
    /// OpenCode adds to a prompt itself, `synthetic`).
    fn prompt(&mut self, id: &str, parts: &[Value]) {
        let text: String = parts
            .iter()
            .filter(|p| kind(p) == "text" && !flag(p, "synthetic"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect();
        self.turns.push(Turn {
            native_turn_ref: id.to_owned(),
            native_checkpoint_ref: None,
            messages: vec![Message::new(Role::User, text).with_ref(Some(id.to_owned()))],
            // Open until a model call of it completes.
            complete: false,
            usage: None,
            model: None,
        });
    }

    /// An assistant message (one model call): its text and tool calls in order, its tokens.
    fn reply(&mut self, id: &str, data: &Value, parts: &[Value]) {
        let Some(turn) = self.turns.last_mut() else {
            return;
        };
        for part in parts {
            match kind(part) {
                "text" if !flag(part, "synthetic") => {
                    let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
                    match turn.messages.last_mut() {
                        Some(last)
                            if last.role == Role::Assistant
                                && last.tool.is_none()
                                && last.native_ref.as_deref() == Some(id) =>
                        {
                            last.text.push_str(text)
                        }
                        _ => turn.messages.push(
                            Message::new(Role::Assistant, text).with_ref(Some(id.to_owned())),
                        ),
                    }
                }
                "tool" => turn.messages.push(Message::for_tool(tool_call(part))),
                _ => {}
            }
        }
        let completed = data
            .pointer("/time/completed")
            .is_some_and(|v| !v.is_null());
        turn.complete = completed && !has_open_tool(turn);
        if let Some(model) = data.get("modelID").and_then(Value::as_str) {
            turn.model = Some(model.to_owned());
        }
        if let Some(call) = call_usage(data) {
            TurnUsage::add_to(&mut turn.usage, call);
        }
    }
}

fn kind(part: &Value) -> &str {
    part.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn flag(part: &Value, name: &str) -> bool {
    part.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// A tool part as a call: its id, the title OpenCode shows (the replay's `title`: its state's
/// title once it ran; for a call that never ran, the command it was given), else the tool's
/// name; its output once its state is final.
fn tool_call(part: &Value) -> ToolCall {
    let state = part.get("state").cloned().unwrap_or(Value::Null);
    let status = state
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let text = |key: &str| state.get(key).and_then(Value::as_str).map(str::to_owned);
    let (output, is_error) = match status {
        "completed" => (Some(text("output").unwrap_or_default()), false),
        "error" => (Some(text("error").unwrap_or_default()), true),
        _ => (None, false),
    };
    ToolCall {
        id: part
            .get("callID")
            .and_then(Value::as_str)
            .map(str::to_owned),
        name: text("title")
            .filter(|t| !t.is_empty())
            .or_else(|| {
                let command = state.pointer("/input/command").and_then(Value::as_str);
                command.filter(|c| !c.is_empty()).map(str::to_owned)
            })
            .or_else(|| part.get("tool").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| "tool".to_owned()),
        input: state.get("input").cloned().unwrap_or(Value::Null),
        output,
        is_error,
    }
}

fn has_open_tool(turn: &Turn) -> bool {
    turn.messages
        .iter()
        .filter_map(|m| m.tool.as_ref())
        .any(|t| t.output.is_none())
}

/// One model call's tokens as OpenCode records them: `input` leaves the cache out, `output`
/// leaves reasoning out; its `cost` where OpenCode priced the model (`0` for a model it has no
/// price for, which Forkhost's own table then prices).
fn call_usage(data: &Value) -> Option<TurnUsage> {
    let tokens = data.get("tokens")?;
    let n = |path: &str| tokens.pointer(path).and_then(Value::as_u64).unwrap_or(0);
    let (read, write, reasoning) = (n("/cache/read"), n("/cache/write"), n("/reasoning"));
    let cost = data
        .get("cost")
        .and_then(Value::as_f64)
        .filter(|c| *c > 0.0);
    Some(TurnUsage {
        input_tokens: n("/input") + read + write,
        output_tokens: n("/output") + reasoning,
        cached_input_tokens: Some(read),
        cache_write_tokens: Some(write),
        reasoning_tokens: Some(reasoning),
        cost_usd: cost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with OpenCode 1.18.33's three tables and the rows of a two-turn session
    /// whose second turn ran a command (as the pinned OpenCode wrote them).
    fn fixture(dir: &Path) -> PathBuf {
        let db = dir.join("opencode.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE session (id text PRIMARY KEY, directory text NOT NULL);
             CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
               time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
             CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL,
               session_id text NOT NULL, time_created integer NOT NULL,
               time_updated integer NOT NULL, data text NOT NULL);
             INSERT INTO session VALUES ('ses_a', '/w'), ('ses_other', '/w');",
        )
        .unwrap();
        let message = |id: &str, at: i64, data: &str| {
            conn.execute(
                "INSERT INTO message VALUES (?1, 'ses_a', ?2, ?2, ?3)",
                rusqlite::params![id, at, data],
            )
            .unwrap();
        };
        let part = |id: &str, message: &str, data: &str| {
            conn.execute(
                "INSERT INTO part VALUES (?1, ?2, 'ses_a', 0, 0, ?3)",
                rusqlite::params![id, message, data],
            )
            .unwrap();
        };
        let done = r#""time":{"created":1,"completed":2},"modelID":"m1","cost":0,"tokens":{"input":10,"output":5,"reasoning":1,"cache":{"read":3,"write":0}}"#;
        message("msg_1", 1, r#"{"role":"user"}"#);
        part("prt_1", "msg_1", r#"{"type":"text","text":"alpha"}"#);
        message("msg_2", 2, &format!(r#"{{"role":"assistant",{done}}}"#));
        part("prt_2", "msg_2", r#"{"type":"step-start"}"#);
        part("prt_3", "msg_2", r#"{"type":"text","text":"reply "}"#);
        part("prt_4", "msg_2", r#"{"type":"text","text":"one"}"#);
        message("msg_3", 3, r#"{"role":"user"}"#);
        part("prt_5", "msg_3", r#"{"type":"text","text":"run it"}"#);
        part(
            "prt_6",
            "msg_3",
            r#"{"type":"text","text":"<file>","synthetic":true}"#,
        );
        message("msg_4", 4, &format!(r#"{{"role":"assistant",{done}}}"#));
        part(
            "prt_7",
            "msg_4",
            r#"{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"touch a"},"output":"(no output)","title":"touch a"}}"#,
        );
        message("msg_5", 5, &format!(r#"{{"role":"assistant",{done}}}"#));
        part("prt_8", "msg_5", r#"{"type":"reasoning","text":"hm"}"#);
        part("prt_9", "msg_5", r#"{"type":"text","text":"done"}"#);
        part(
            "prt_x",
            "msg_5",
            r#"{"type":"tool","tool":"bash","callID":"c3","state":{"status":"error","input":{"command":"rm a"},"error":"rejected"}}"#,
        );
        db
    }

    #[test]
    fn a_session_is_cut_into_turns_as_its_replay_is() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let turns = read_session(&db, "ses_a").unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].native_turn_ref, "msg_1");
        let said: Vec<_> = turns[0]
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str(), m.native_ref.as_deref()))
            .collect();
        assert_eq!(
            said,
            [
                (Role::User, "alpha", Some("msg_1")),
                (Role::Assistant, "reply one", Some("msg_2"))
            ]
        );
        assert_eq!(
            turns[1].messages[0].text, "run it",
            "synthetic text left out"
        );
        let tool = turns[1].messages[1].tool.as_ref().unwrap();
        assert_eq!(
            (
                tool.id.as_deref(),
                tool.name.as_str(),
                tool.output.as_deref()
            ),
            (Some("c1"), "touch a", Some("(no output)"))
        );
        assert_eq!(turns[1].messages[2].text, "done");
        let declined = turns[1].messages[3].tool.as_ref().unwrap();
        assert_eq!(
            (
                declined.name.as_str(),
                declined.output.as_deref(),
                declined.is_error
            ),
            ("rm a", Some("rejected"), true),
            "a call that never ran is named by its command"
        );
        assert!(turns.iter().all(|t| t.complete));
        // Two model calls in turn 2, each counted once; cache and reasoning folded in.
        let usage = turns[1].usage.as_ref().unwrap();
        assert_eq!(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_input_tokens
            ),
            (26, 12, Some(6))
        );
        assert_eq!(
            usage.cost_usd, None,
            "an unpriced model is Forkhost's to price"
        );
        assert_eq!(turns[1].model.as_deref(), Some("m1"));
    }

    #[test]
    fn an_open_turn_an_unknown_session_and_a_missing_file_say_so() {
        let dir = tempfile::tempdir().unwrap();
        let db = fixture(dir.path());
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            r#"INSERT INTO message VALUES ('msg_6', 'ses_a', 6, 6, '{"role":"user"}');
               INSERT INTO part VALUES ('prt_a', 'msg_6', 'ses_a', 0, 0, '{"type":"text","text":"more"}');
               INSERT INTO message VALUES ('msg_7', 'ses_a', 7, 7, '{"role":"assistant","time":{"created":7}}');
               INSERT INTO part VALUES ('prt_b', 'msg_7', 'ses_a', 0, 0, '{"type":"tool","tool":"bash","callID":"c2","state":{"status":"running","input":{}}}');"#,
        )
        .unwrap();
        let turns = read_session(&db, "ses_a").unwrap();
        assert_eq!(turns.len(), 3);
        assert!(!turns[2].complete, "a model call still running");
        assert!(read_session(&db, "ses_other").unwrap().is_empty());
        assert!(matches!(
            read_session(&db, "ses_none"),
            Err(HistoryError::SessionNotFound { .. })
        ));
        assert!(matches!(
            read_session(&dir.path().join("none.db"), "ses_a"),
            Err(HistoryError::SessionNotFound { .. })
        ));
    }

    #[test]
    fn the_database_is_under_xdg_data_home_else_the_home_folders_share() {
        let vars = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            database(&vars(&[("XDG_DATA_HOME", "/d"), ("HOME", "/h")])).unwrap(),
            Path::new("/d/opencode/opencode.db")
        );
        assert_eq!(
            database(&vars(&[("XDG_DATA_HOME", ""), ("HOME", "/h")])).unwrap(),
            Path::new("/h/.local/share/opencode/opencode.db")
        );
    }
}
