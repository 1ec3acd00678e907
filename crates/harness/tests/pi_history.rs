mod common;

use common::*;
use forkhost_harness::pi::PiReader;
use forkhost_harness::{read_history, HarnessKind, HistoryError, Role, SessionReader};
use serde_json::json;

#[test]
fn three_turns_with_a_tool_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", jsonl(&pi_three_turns()));
    let h = read_history(HarnessKind::Pi, &path).unwrap();
    assert_eq!(
        h.session_id.as_deref(),
        Some("01a22894-51af-747e-bf5e-977bc30c7298")
    );
    assert_eq!(h.forked_from, None);
    assert_eq!(h.leaf.as_deref(), Some("c1000002"));
    assert_eq!(
        refs(&h),
        [
            ("e95cd435", Some("25e70a35"), true),
            ("2dc3d14c", Some("b1000003"), true),
            ("c1000001", Some("c1000002"), true)
        ]
    );
    // The settings entries before the first prompt show nothing.
    assert_eq!(h.turns[0].messages.len(), 2);
    let beta = &h.turns[1].messages;
    let roles: Vec<Role> = beta.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(beta[0].text, "beta second question");
    assert_eq!(beta[0].native_ref.as_deref(), Some("2dc3d14c"));
    assert_eq!(beta[1].text, "Reading it.");
    let tool = beta[2].tool.as_ref().unwrap();
    assert_eq!(
        (tool.name.as_str(), tool.id.as_deref()),
        ("read", Some("call_9"))
    );
    assert_eq!(tool.input, json!({"path":"README.md"}));
    assert_eq!(tool.output.as_deref(), Some("# Readme"));
    assert_eq!(beta[3].text, "reply #2 to: beta second question");
}

#[test]
fn the_tree_follows_the_last_entry() {
    // An in-place branch ("Leaf, turns and branches" in docs/harness-behaviour.md): navigate
    // back to alpha's reply, then prompt again; a label is a node too.
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "s.jsonl", jsonl(&pi_three_turns()));
    let mut reader = PiReader::open(&path).unwrap();
    append(
        &path,
        jsonl(&[
            pi_user("d1000001", "25e70a35", "delta on a branch"),
            pi_reply("d1000002", "d1000001", "reply #4"),
            pi_entry(
                "label",
                "d1000003",
                Some("d1000002"),
                json!({"targetId":"e95cd435","label":"checkpoint-1"}),
            ),
        ]),
    );
    let a = reader.read_appended().unwrap();
    assert_eq!(a.first_changed_turn, 0);
    let h = reader.history().unwrap();
    assert_eq!(
        refs(&h),
        [
            ("e95cd435", Some("25e70a35"), true),
            ("d1000001", Some("d1000003"), true)
        ]
    );
    assert_eq!(h, read_history(HarnessKind::Pi, &path).unwrap());

    // Back on the old branch: a sibling of gamma.
    append(&path, jsonl(&[pi_user("e1000001", "b1000003", "epsilon")]));
    reader.read_appended().unwrap();
    let h = reader.history().unwrap();
    assert_eq!(
        refs(&h),
        [
            ("e95cd435", Some("25e70a35"), true),
            ("2dc3d14c", Some("b1000003"), true),
            ("e1000001", Some("e1000001"), false)
        ]
    );
}

#[test]
fn a_fork_names_its_parent_session() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.jsonl");
    let mut lines = vec![pi_header(
        "01b00000-0000-7000-8000-000000000001",
        Some(src.to_str().unwrap()),
    )];
    lines.extend(pi_three_turns()[1..5].iter().cloned());
    lines.push(pi_user("f1000001", "25e70a35", "delta on the fork"));
    lines.push(pi_reply("f1000002", "f1000001", "reply #4"));
    let path = write(dir.path(), "fork.jsonl", jsonl(&lines));
    let h = read_history(HarnessKind::Pi, &path).unwrap();
    assert_eq!(h.forked_from.as_deref(), src.to_str());
    assert_eq!(
        h.session_id.as_deref(),
        Some("01b00000-0000-7000-8000-000000000001")
    );
    assert_eq!(refs(&h)[1], ("f1000001", Some("f1000002"), true));
}

#[test]
fn tool_use_pending_errors_and_other_entries() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = pi_three_turns();
    lines.push(pi_user("g1", "c1000002", "fail please"));
    let mut err = pi_reply("g2", "g1", "partial");
    err["message"]["stopReason"] = json!("error");
    err["message"]["errorMessage"] = json!("429 Too Many Requests");
    lines.push(err);
    lines.push(pi_entry(
        "branch_summary",
        "g3",
        Some("g2"),
        json!({"fromId":"g2","summary":"tried X"}),
    ));
    lines.push(pi_entry(
        "message",
        "g4",
        Some("g3"),
        json!({"message":{"role":"bashExecution","command":"ls","output":"a\n","exitCode":1}}),
    ));
    lines.push(pi_user("h1", "g4", "use a tool"));
    lines.push(pi_assistant(
        "h2",
        "h1",
        json!([{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"sleep 9"}}]),
        "toolUse",
    ));
    let path = write(dir.path(), "s.jsonl", jsonl(&lines));
    let h = read_history(HarnessKind::Pi, &path).unwrap();
    let g = &h.turns[3];
    assert!(g.complete);
    assert_eq!(g.native_checkpoint_ref.as_deref(), Some("g4"));
    assert_eq!(g.messages[1].text, "partial");
    assert_eq!(
        g.messages[1].error.as_deref(),
        Some("429 Too Many Requests")
    );
    assert_eq!(
        (g.messages[2].role, g.messages[2].text.as_str()),
        (Role::Other, "tried X")
    );
    let bash = g.messages[3].tool.as_ref().unwrap();
    assert!(bash.is_error);
    assert_eq!(bash.output.as_deref(), Some("a\n"));
    let last = &h.turns[4];
    assert!(!last.complete);
    assert_eq!(last.messages[1].tool.as_ref().unwrap().output, None);
}

#[test]
fn partial_lines_garbage_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let full = jsonl(&pi_three_turns());
    let mut bytes = full
        .replace('\n', "\n\n{\"type\":\"message\",\"id\":\n")
        .into_bytes();
    bytes.extend_from_slice(b"\xff\xfe garbage\n");
    let clean_len = bytes.len() as u64;
    bytes.extend_from_slice(br#"{"type":"message","id":"z1","parentId":"c1000002","mess"#);
    let path = write(dir.path(), "s.jsonl", &bytes);
    let reader = PiReader::open(&path).unwrap();
    assert_eq!(reader.read_to(), clean_len);
    let clean = write(dir.path(), "clean.jsonl", &full);
    assert_eq!(
        reader.history().unwrap().turns,
        read_history(HarnessKind::Pi, &clean).unwrap().turns
    );
    let err = PiReader::open(dir.path().join("missing.jsonl")).unwrap_err();
    assert!(matches!(err, HistoryError::SessionNotFound { .. }));
}
