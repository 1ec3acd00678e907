mod common;

use common::*;
use forkhost_harness::claude::ClaudeReader;
use forkhost_harness::{read_history, HarnessKind, HistoryError, Role, SessionReader};
use serde_json::json;

#[test]
fn three_turns_with_a_tool_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        &format!("{SID}.jsonl"),
        jsonl(&cc_three_turns()),
    );
    let h = read_history(HarnessKind::Claude, &path).unwrap();
    assert_eq!(h.session_id.as_deref(), Some(SID));
    assert_eq!(h.leaf.as_deref(), Some("r3"));
    assert_eq!(
        refs(&h),
        [
            ("u1", Some("r1"), true),
            ("u2", Some("r2c"), true),
            ("u3", Some("r3"), true)
        ]
    );
    let t1 = &h.turns[0].messages;
    assert_eq!(t1.len(), 2);
    assert_eq!(
        (t1[0].role, t1[0].text.as_str()),
        (Role::User, "first message")
    );
    assert_eq!(t1[0].native_ref.as_deref(), Some("u1"));
    assert_eq!(t1[1].role, Role::Assistant);
    assert!(t1[1].text.starts_with("reply #5"));

    let t2 = &h.turns[1].messages;
    let roles: Vec<Role> = t2.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(t2[1].text, "Let me run it.");
    assert_eq!(t2[1].native_ref.as_deref(), Some("r2a"));
    let tool = t2[2].tool.as_ref().unwrap();
    assert_eq!(tool.name, "Bash");
    assert_eq!(tool.id.as_deref(), Some("toolu_1"));
    assert_eq!(tool.input, json!({"command":"echo tool-ok"}));
    assert_eq!(tool.output.as_deref(), Some("tool-ok"));
    assert!(!tool.is_error);
    assert_eq!(t2[2].native_ref.as_deref(), Some("r2b"));
    assert_eq!(t2[3].text, "Done: tool-ok");
}

#[test]
fn records_of_one_api_message_merge() {
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![
        cc_prompt("u1", None, "think, then answer"),
        cc_assistant(
            "r1",
            "u1",
            "msg_1",
            json!({"type":"thinking","thinking":"…","signature":"x"}),
            Some("end_turn"),
        ),
        cc_assistant(
            "r2",
            "r1",
            "msg_1",
            json!({"type":"text","text":"part one"}),
            Some("end_turn"),
        ),
        cc_assistant(
            "r3",
            "r2",
            "msg_1",
            json!({"type":"text","text":"part two"}),
            Some("end_turn"),
        ),
    ];
    let path = write(dir.path(), "s.jsonl", jsonl(&lines));
    let h = read_history(HarnessKind::Claude, &path).unwrap();
    let m = &h.turns[0].messages;
    assert_eq!(m.len(), 2);
    assert_eq!(m[1].text, "part one\n\npart two");
    assert_eq!(m[1].native_ref.as_deref(), Some("r3"));
    assert_eq!(h.turns[0].native_checkpoint_ref.as_deref(), Some("r3"));
}

#[test]
fn a_fork_shares_uuids_with_its_source() {
    // "Forks and in-place branches" (docs/harness-behaviour.md): mode + queue-operations, every
    // chain record copied verbatim (sessionId rewritten), then the new turn, then last-prompt
    // naming the *first* prompt.
    let dir = tempfile::tempdir().unwrap();
    let fork_sid = "38da0000-0000-4000-8000-000000000002";
    let mut lines = vec![json!({"type":"mode","mode":"normal","sessionId":fork_sid})];
    lines.extend(cc_queue("forked message"));
    for mut l in cc_three_turns() {
        if l.get("uuid").is_some() {
            l["sessionId"] = json!(fork_sid);
            lines.push(l);
        }
    }
    lines.push(cc_prompt("u4", Some("r3"), "forked message"));
    lines.push(cc_text("r4", "u4", "msg_5", "reply #8 (turn 4, 8 msgs)"));
    lines.push(cc_last_prompt("first message", "r4"));
    let src = write(
        dir.path(),
        &format!("{SID}.jsonl"),
        jsonl(&cc_three_turns()),
    );
    let fork = write(dir.path(), &format!("{fork_sid}.jsonl"), jsonl(&lines));
    let src = read_history(HarnessKind::Claude, &src).unwrap();
    let fork = read_history(HarnessKind::Claude, &fork).unwrap();
    assert_eq!(fork.session_id.as_deref(), Some(fork_sid));
    assert_eq!(fork.turns.len(), 4);
    assert_eq!(fork.turns[..3], src.turns[..]);
    assert_eq!(fork.turns[3].native_turn_ref, "u4");

    // Fork at an earlier message (same section): the chain up to r1, then the new turn.
    let mut at = vec![json!({"type":"mode","mode":"normal","sessionId":fork_sid})];
    at.extend(cc_three_turns().into_iter().filter(|l| {
        ["u1", "a1", "a2", "r1"].contains(&l.get("uuid").and_then(|u| u.as_str()).unwrap_or(""))
    }));
    at.push(cc_prompt("u9", Some("r1"), "fork at turn1"));
    at.push(cc_text("r9", "u9", "msg_9", "reply #9 (turn 2, 4 msgs)"));
    at.push(cc_last_prompt("first message", "r9"));
    let at = write(dir.path(), "at.jsonl", jsonl(&at));
    let at = read_history(HarnessKind::Claude, &at).unwrap();
    assert_eq!(
        refs(&at),
        [("u1", Some("r1"), true), ("u9", Some("r9"), true)]
    );
    assert_eq!(at.turns[0], src.turns[0]);
}

#[test]
fn an_in_place_branch_follows_the_newest_records() {
    // Same section: `--resume-session-at` without fork appends a sibling branch.
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", jsonl(&cc_three_turns()));
    let mut reader = ClaudeReader::open(&path).unwrap();
    assert_eq!(reader.anchors().len(), 3);

    append(
        &path,
        jsonl(&[
            cc_prompt("u5", Some("r2c"), "rewind in place"),
            cc_text("r5", "u5", "msg_6", "reply #13"),
            cc_last_prompt("rewind in place", "r5"),
        ]),
    );
    let appended = reader.read_appended().unwrap();
    assert_eq!(appended.first_changed_turn, 1);
    let h = reader.history().unwrap();
    assert_eq!(
        refs(&h),
        [
            ("u1", Some("r1"), true),
            ("u2", Some("r2c"), true),
            ("u5", Some("r5"), true)
        ]
    );
    assert_eq!(h.turns[2].messages[0].text, "rewind in place");

    append(
        &path,
        jsonl(&[
            cc_prompt("u6", Some("r5"), "after rewind"),
            cc_text("r6", "u6", "msg_7", "ok"),
        ]),
    );
    reader.read_appended().unwrap();
    let texts: Vec<String> = reader
        .history()
        .unwrap()
        .turns
        .iter()
        .map(|t| t.messages[0].text.clone())
        .collect();
    assert_eq!(
        texts,
        [
            "first message",
            "second message",
            "rewind in place",
            "after rewind"
        ]
    );
    assert_eq!(
        reader.history().unwrap(),
        read_history(HarnessKind::Claude, &path).unwrap()
    );
}

#[test]
fn last_prompt_can_move_the_leaf_back() {
    // A rewind that appends no record: the last `last-prompt` names an earlier leaf.
    let dir = tempfile::tempdir().unwrap();
    let mut lines = cc_three_turns();
    lines.push(cc_last_prompt("first message", "r1"));
    let path = write(dir.path(), "s.jsonl", jsonl(&lines));
    let h = read_history(HarnessKind::Claude, &path).unwrap();
    assert_eq!(refs(&h), [("u1", Some("r1"), true)]);
    // An unknown leafUuid is ignored.
    lines.push(cc_last_prompt("x", "not-in-this-file"));
    let path = write(dir.path(), "s2.jsonl", jsonl(&lines));
    assert_eq!(
        read_history(HarnessKind::Claude, &path)
            .unwrap()
            .turns
            .len(),
        3
    );
}

#[test]
fn turn_states_errors_and_interruptions() {
    let dir = tempfile::tempdir().unwrap();
    let mut api_error = cc_assistant(
        "e1",
        "u1",
        "msg_e",
        json!({"type":"text","text":"API Error: Unable to connect to API (ConnectionRefused)"}),
        Some("stop_sequence"),
    );
    api_error["message"]["model"] = json!("<synthetic>");
    api_error["isApiErrorMessage"] = json!(true);
    api_error["error"] = json!("server_error");
    let mut sidechain = cc_text("s1", "x9", "msg_s", "subagent chatter");
    sidechain["isSidechain"] = json!(true);
    let lines = vec![
        cc_prompt("u1", None, "hello"),
        api_error,
        cc_prompt("u2", Some("e1"), "run something"),
        cc_assistant(
            "r2",
            "u2",
            "msg_2",
            json!({"type":"tool_use","id":"toolu_2","name":"Bash","input":{}}),
            Some("tool_use"),
        ),
        cc_tool_result("t2", "r2", "toolu_2", "partial"),
        cc_user(
            "i2",
            Some("t2"),
            json!([{"type":"text","text":"[Request interrupted by user]"}]),
        ),
        cc_prompt("u3", Some("i2"), "now this"),
        cc_assistant(
            "r3",
            "u3",
            "msg_3",
            json!({"type":"tool_use","id":"toolu_3","name":"Read","input":{"file_path":"/x"}}),
            Some("tool_use"),
        ),
        sidechain,
    ];
    let path = write(dir.path(), "s.jsonl", jsonl(&lines));
    let h = read_history(HarnessKind::Claude, &path).unwrap();
    assert_eq!(
        refs(&h),
        [
            ("u1", Some("e1"), true),
            ("u2", Some("r2"), true),
            ("u3", Some("r3"), false)
        ]
    );
    let e = &h.turns[0].messages[1];
    assert_eq!(e.role, Role::Assistant);
    assert_eq!(
        e.error.as_deref(),
        Some("API Error: Unable to connect to API (ConnectionRefused)")
    );
    let t2 = &h.turns[1].messages;
    assert_eq!(t2.last().unwrap().role, Role::Other);
    assert_eq!(
        t2[1].tool.as_ref().unwrap().output.as_deref(),
        Some("partial")
    );
    // The pending call has no output yet.
    assert_eq!(h.turns[2].messages[1].tool.as_ref().unwrap().output, None);
}

#[test]
fn the_tui_turn_duration_record_ends_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let mut end = cc_attachment("d1", "r1", "x");
    end["type"] = json!("system");
    end["subtype"] = json!("turn_duration");
    end["durationMs"] = json!(1200);
    // A reply without stop_reason (older CLIs) that ends in a tool call is not complete...
    let lines = vec![
        cc_prompt("u1", None, "hi"),
        cc_assistant(
            "r1",
            "u1",
            "m1",
            json!({"type":"tool_use","id":"t","name":"Bash","input":{}}),
            None,
        ),
    ];
    let path = write(dir.path(), "s.jsonl", jsonl(&lines));
    assert!(!read_history(HarnessKind::Claude, &path).unwrap().turns[0].complete);
    // ...until the TUI writes its end-of-turn record.
    append(&path, jsonl(&[end]));
    assert!(read_history(HarnessKind::Claude, &path).unwrap().turns[0].complete);
}

#[test]
fn missing_file_is_session_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = ClaudeReader::open(dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(err, HistoryError::SessionNotFound { .. }), "{err}");
}

#[test]
fn partial_last_line_garbage_and_blank_lines() {
    let dir = tempfile::tempdir().unwrap();
    let full = jsonl(&cc_three_turns());
    let mut content = String::new();
    for (i, line) in full.lines().enumerate() {
        content.push_str(line);
        content.push('\n');
        match i % 4 {
            0 => content.push('\n'),
            1 => content.push_str("{not json at all\n"),
            2 => content.push_str("[1,2,3]\n   \n"),
            _ => content.push_str(
                "{\"type\":\"user\",\"uuid\":\"broken\",\"message\":{\"content\":\"x\"\n",
            ),
        }
    }
    let clean_len = content.len() as u64;
    let mut bytes = content.into_bytes();
    // A line the harness is still writing.
    bytes.extend_from_slice(
        br#"{"parentUuid":"r3","type":"user","message":{"role":"user","content":"half"#,
    );
    let path = write(dir.path(), "s.jsonl", &bytes);
    let mut reader = ClaudeReader::open(&path).unwrap();
    assert_eq!(reader.read_to(), clean_len);
    let clean = write(dir.path(), "clean.jsonl", &full);
    let mut h = reader.history().unwrap();
    let mut expected = read_history(HarnessKind::Claude, &clean).unwrap();
    h.read_to = 0;
    expected.read_to = 0;
    assert_eq!(h.turns, expected.turns);

    // The harness finishes the line: it is read then, not before.
    append(
        &path,
        "\",\"x\":1},\"uuid\":\"u4\",\"isSidechain\":false}\n",
    );
    let a = reader.read_appended().unwrap();
    assert!(!a.reset);
    assert_eq!(reader.anchors().len(), 4);
    assert_eq!(reader.turn(3).unwrap().messages[0].text, "half");
}

#[test]
fn a_rewritten_file_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", jsonl(&cc_three_turns()));
    let mut reader = ClaudeReader::open(&path).unwrap();
    let one = jsonl(&cc_three_turns()[..7]);
    std::fs::write(&path, &one).unwrap();
    let a = reader.read_appended().unwrap();
    assert!(a.reset);
    assert_eq!(reader.anchors().len(), 1);
    assert_eq!(reader.read_to(), one.len() as u64);
}

#[test]
fn invalid_utf8_and_very_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(9 << 20);
    let mut bytes = jsonl(&[
        cc_prompt("u1", None, "hello"),
        cc_text("r1", "u1", "m1", &big),
    ])
    .into_bytes();
    let mut bad =
        serde_json::to_vec(&cc_prompt("u2", Some("r1"), "caf\u{e9} PLACEHOLDER")).unwrap();
    let at = bad.windows(11).position(|w| w == b"PLACEHOLDER").unwrap();
    bad.splice(at..at + 11, [0xff, 0xfe, b'!']);
    bytes.extend_from_slice(&bad);
    bytes.push(b'\n');
    let path = write(dir.path(), "s.jsonl", &bytes);
    let h = read_history(HarnessKind::Claude, &path).unwrap();
    assert_eq!(h.turns.len(), 2);
    assert_eq!(h.turns[0].messages[1].text.len(), big.len());
    assert_eq!(h.turns[1].messages[0].text, "café \u{fffd}\u{fffd}!");
}
