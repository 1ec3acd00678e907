//! The transcript reader's usage, on records in the shape Claude Code 2.1.197 writes (fields
//! the reader does not look at left out): one record per content block of an API message, each
//! repeating the message's `usage`, the last one with the final output count.

use std::io::Write;

use super::ClaudeReader;
use crate::contract::TurnUsage;
use crate::history::SessionReader;

const SID: &str = "aaaaaaaa-bbbb-4ccc-8ddd-0000000000aa";

fn prompt(uuid: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","message":{{"role":"user","content":"{text}"}},"uuid":"{uuid}","timestamp":"2026-12-06T10:00:00.000Z","sessionId":"{SID}"}}"#
    )
}

/// An assistant record of API message `id`: `block` is its one content block.
fn assistant(uuid: &str, parent: &str, id: &str, block: &str, stop: &str, usage: &str) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","isSidechain":false,"message":{{"id":"{id}","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{block}],"stop_reason":{stop},"stop_sequence":null,"usage":{usage}}},"requestId":"req_{id}","type":"assistant","uuid":"{uuid}","timestamp":"2026-12-06T10:00:01.000Z","sessionId":"{SID}"}}"#
    )
}

fn usage(input: u64, cache_read: u64, cache_write: u64, output: u64) -> String {
    format!(
        r#"{{"input_tokens":{input},"cache_creation_input_tokens":{cache_write},"cache_read_input_tokens":{cache_read},"output_tokens":{output},"service_tier":"standard"}}"#
    )
}

const TEXT: &str = r#"{"type":"text","text":"Let me run it."}"#;
const TOOL_USE: &str =
    r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo tool-ok"}}"#;

fn tool_result(uuid: &str, parent: &str) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","isSidechain":false,"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_1","type":"tool_result","content":"tool-ok","is_error":false}}]}},"uuid":"{uuid}","timestamp":"2026-12-06T10:00:02.000Z","sessionId":"{SID}"}}"#
    )
}

/// Turn 1: a message of two blocks (text, then tool_use) written as two records, the first
/// with the stream's start figure (1 output token), then the reply after the tool. Turn 2:
/// a synthetic API error, which is no model call.
fn tool_turn_then_an_error() -> Vec<String> {
    let synthetic = r#"{"parentUuid":"u2","isSidechain":false,"message":{"id":"0b6e0c1d-syn","type":"message","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}],"stop_reason":"stop_sequence","usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}},"type":"assistant","uuid":"e2","isApiErrorMessage":true,"timestamp":"2026-12-06T10:00:05.000Z"}"#;
    vec![
        prompt("u1", None, "please CALL_TOOL now"),
        assistant(
            "a1",
            "u1",
            "msg_1",
            TEXT,
            "\"tool_use\"",
            &usage(100, 50, 10, 1),
        ),
        assistant(
            "a2",
            "a1",
            "msg_1",
            TOOL_USE,
            "\"tool_use\"",
            &usage(100, 50, 10, 20),
        ),
        tool_result("t1", "a2"),
        assistant(
            "a3",
            "t1",
            "msg_2",
            r#"{"type":"text","text":"Done: tool-ok"}"#,
            "\"end_turn\"",
            &usage(120, 160, 0, 5),
        ),
        prompt("u2", Some("a3"), "and again"),
        synthetic.to_owned(),
    ]
}

fn write(dir: &std::path::Path, lines: &[String], torn: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{SID}.jsonl"));
    let mut f = std::fs::File::create(&path).unwrap();
    for line in lines {
        writeln!(f, "{line}").unwrap();
    }
    f.write_all(torn.as_bytes()).unwrap();
    path
}

fn tokens(input: u64, output: u64, cached: u64, written: u64) -> TurnUsage {
    TurnUsage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: Some(cached),
        cache_write_tokens: Some(written),
        reasoning_tokens: None,
        cost_usd: None,
    }
}

#[test]
fn a_message_of_several_records_is_one_call_at_its_last_figure() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &tool_turn_then_an_error(), "");
    let h = ClaudeReader::open(&path).unwrap().history().unwrap();
    assert_eq!(h.turns.len(), 2);
    // msg_1 once, at its last record's 20 output tokens (not 1 + 20), and msg_2: every input
    // token counted, the cache's included.
    let t1 = &h.turns[0];
    assert_eq!(t1.usage, Some(tokens(160 + 280, 25, 50 + 160, 10)));
    assert_eq!(t1.model.as_deref(), Some("claude-opus-4-8"));
    // The synthetic error record called no model.
    assert_eq!(
        (h.turns[1].usage, h.turns[1].model.as_deref()),
        (None, None)
    );
}

#[test]
fn a_torn_last_record_counts_once_it_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = tool_turn_then_an_error();
    lines.pop();
    let last = assistant(
        "a4",
        "u2",
        "msg_3",
        r#"{"type":"text","text":"again"}"#,
        "\"end_turn\"",
        &usage(300, 0, 0, 7),
    );
    let (head, tail) = last.split_at(last.len() / 2);
    let path = write(dir.path(), &lines, head);
    let mut reader = ClaudeReader::open(&path).unwrap();
    let h = reader.history().unwrap();
    assert_eq!(h.turns[0].usage, Some(tokens(440, 25, 210, 10)));
    assert_eq!(h.turns[1].usage, None, "half a record is not read");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(f, "{tail}").unwrap();
    reader.read_appended().unwrap();
    let t2 = reader.turn(1).unwrap();
    assert_eq!(t2.usage, Some(tokens(300, 7, 0, 0)));
    assert_eq!(t2.model.as_deref(), Some("claude-opus-4-8"));
    // Read whole, the file says the same as followed.
    let whole = ClaudeReader::open(&path).unwrap().history().unwrap();
    assert_eq!(whole.turns, reader.history().unwrap().turns);
}
