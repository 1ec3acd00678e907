mod common;

use common::*;
use forkhost_harness::codex::CodexReader;
use forkhost_harness::{read_history, HarnessKind, HistoryError, Role, SessionReader};
use serde_json::json;

fn rollout_name(id: &str) -> String {
    format!("sessions/2026/11/29/rollout-2026-11-29T18-00-00-{id}.jsonl")
}

#[test]
fn current_format_gives_turn_ids_and_states() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &rollout_name(THREAD), jsonl(&cx_current()));
    let h = read_history(HarnessKind::Codex, &path).unwrap();
    assert_eq!(h.session_id.as_deref(), Some(THREAD));
    assert_eq!(h.forked_from, None);
    assert_eq!(
        refs(&h),
        [
            ("t1", Some("t1"), true),
            ("t2", Some("t2"), true),
            ("t3", Some("t3"), true),
            ("t4", Some("t4"), false)
        ]
    );
    assert_eq!(h.leaf.as_deref(), Some("t4"));
    let t1 = &h.turns[0].messages;
    assert_eq!(t1.len(), 2, "{t1:?}");
    assert_eq!((t1[0].role, t1[0].text.as_str()), (Role::User, "one"));
    assert_eq!(t1[0].native_ref.as_deref(), Some("t1-u"));
    assert_eq!(
        (t1[1].role, t1[1].text.as_str()),
        (Role::Assistant, "reply #1")
    );
    let t2 = &h.turns[1].messages;
    let roles: Vec<Role> = t2.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Tool, Role::Assistant]);
    let tool = t2[1].tool.as_ref().unwrap();
    assert_eq!(tool.name, "shell");
    assert_eq!(tool.input, json!({"command":["echo","hi"]}));
    assert_eq!(tool.output.as_deref(), Some("hi\n"));
    assert_eq!(h.turns[3].messages.len(), 1);
}

#[test]
fn legacy_format_and_a_legacy_fork() {
    let dir = tempfile::tempdir().unwrap();
    let parent = cx_legacy(THREAD, &[("t1", "one"), ("t2", "two")]);
    let src = write(dir.path(), &rollout_name(THREAD), jsonl(&parent));
    let h = read_history(HarnessKind::Codex, &src).unwrap();
    assert_eq!(
        refs(&h),
        [("t1", Some("t1"), true), ("t2", Some("t2"), true)]
    );
    let texts: Vec<&str> = h.turns[1]
        .messages
        .iter()
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(texts, ["two", "reply to two"]);

    // A legacy fork copies the parent's lines, its session_meta as line 2 ("Forks and
    // reverts: inherited prefixes" in docs/harness-behaviour.md).
    let fork_id = "019a0000-0000-7000-8000-00000000000f";
    let mut lines = vec![cx_meta(
        fork_id,
        json!({"history_mode":"legacy","forked_from_id":THREAD}),
    )];
    lines.extend(parent.iter().cloned());
    lines.extend(cx_legacy(fork_id, &[("t3", "three")]).into_iter().skip(1));
    let fork = write(dir.path(), &rollout_name(fork_id), jsonl(&lines));
    let f = read_history(HarnessKind::Codex, &fork).unwrap();
    assert_eq!(f.session_id.as_deref(), Some(fork_id));
    assert_eq!(f.forked_from.as_deref(), Some(THREAD));
    assert_eq!(f.turns[..2], h.turns[..]);
    assert_eq!(f.turns[2].native_turn_ref, "t3");
}

#[test]
fn older_files_without_turn_ids() {
    let dir = tempfile::tempdir().unwrap();
    // Envelopes but no task_started (about 0.4x): a user message opens a turn.
    let lines = vec![
        cx(
            "session_meta",
            json!({"id":THREAD,"timestamp":"…","cwd":"/p","originator":"codex_exec","cli_version":"0.46.0","instructions":null,"source":"exec"}),
        ),
        cx_response_message("user", "<environment_context>…</environment_context>"),
        cx_response_message("user", "what is 2+2?"),
        cx_event(json!({"type":"user_message","message":"what is 2+2?","kind":"plain"})),
        cx_turn_context(),
        cx_event(json!({"type":"agent_reasoning","text":"**Providing simple answer**"})),
        cx_response_message("assistant", "4"),
        cx_event(json!({"type":"agent_message","message":"4"})),
        cx_event(json!({"type":"token_count","info":null})),
        cx_event(json!({"type":"user_message","message":"and 3+3?","kind":"plain"})),
        cx_event(json!({"type":"agent_message","message":"6"})),
    ];
    let path = write(dir.path(), &rollout_name(THREAD), jsonl(&lines));
    let h = read_history(HarnessKind::Codex, &path).unwrap();
    assert_eq!(h.turns.len(), 2);
    assert!(h
        .turns
        .iter()
        .all(|t| t.complete && t.native_checkpoint_ref.is_none()));
    assert!(h.turns[0].native_turn_ref.starts_with('@'));
    let texts: Vec<&str> = h.turns[1]
        .messages
        .iter()
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(texts, ["and 3+3?", "6"]);

    // The oldest files: no envelope at all.
    let bare = vec![
        json!({"id":THREAD,"timestamp":"2025-05-01T10:00:00Z","instructions":null}),
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>be brief</user_instructions>"}]}),
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}),
        json!({"type":"local_shell_call","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls"]}}),
        json!({"type":"function_call_output","call_id":"c1","output":{"content":"a\nb","success":true}}),
        json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":"a and b"}]}),
        json!({"record_type":"state"}),
    ];
    let path = write(dir.path(), &rollout_name("old"), jsonl(&bare));
    let h = read_history(HarnessKind::Codex, &path).unwrap();
    assert_eq!(h.session_id.as_deref(), Some(THREAD));
    assert_eq!(h.turns.len(), 1);
    let m = &h.turns[0].messages;
    assert_eq!(
        m.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Tool, Role::Assistant]
    );
    assert_eq!(m[1].tool.as_ref().unwrap().output.as_deref(), Some("a\nb"));
}

#[test]
fn a_paginated_fork_reads_its_inherited_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let parent = cx_current();
    let text = jsonl(&parent);
    // The fork after t1 inherits the parent's bytes up to t1's task_complete.
    let t1_end = text.find("\"task_complete\"").unwrap();
    let t1_end = text[t1_end..].find('\n').unwrap() + t1_end + 1;
    write(dir.path(), &rollout_name(THREAD), &text);
    let fork_id = "019a0000-0000-7000-8000-0000000000f1";
    let fork_lines = vec![
        cx_meta(
            fork_id,
            json!({"forked_from_id":THREAD,"forked_from_ordinal_exclusive":9,
                   "history_base":{"thread_id":THREAD,"end_ordinal_exclusive":9,"end_byte_offset":t1_end}}),
        ),
        cx_event(json!({"type":"thread_settings_applied"})),
        cx_started("t5"),
        cx_user_item("t5", "t5-u", "branch from one"),
        cx_agent_item("t5", "t5-a", "reply #5"),
        cx_complete("t5", "reply #5"),
    ];
    let fork = write(
        dir.path(),
        "sessions/2026/11/30/rollout-2026-11-30T09-00-00-019a0000-0000-7000-8000-0000000000f1.jsonl",
        jsonl(&fork_lines),
    );
    let reader = CodexReader::open(&fork).unwrap();
    assert_eq!(reader.missing_base(), None);
    let h = reader.history().unwrap();
    assert_eq!(h.forked_from.as_deref(), Some(THREAD));
    assert_eq!(
        refs(&h),
        [("t1", Some("t1"), true), ("t5", Some("t5"), true)]
    );
    assert_eq!(h.turns[0].messages[0].text, "one");
    assert_eq!(h.turns[1].messages[0].text, "branch from one");
    // Only the fork's own file is followed and counted.
    assert_eq!(h.read_to, jsonl(&fork_lines).len() as u64);

    // Without its base, the fork still reads, and says what is missing.
    let reader = CodexReader::open_with(&fork, |_| None).unwrap();
    assert_eq!(reader.missing_base(), Some(THREAD));
    assert_eq!(reader.anchors().len(), 1);
}

#[test]
fn rollback_drops_turns_and_errors_are_messages() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = cx_legacy(THREAD, &[("t1", "one"), ("t2", "two"), ("t3", "three")]);
    lines.push(cx_event(json!({"type":"thread_rolled_back","num_turns":2})));
    lines.push(cx_started("t4"));
    lines.push(cx_event(json!({"type":"user_message","message":"four"})));
    lines.push(cx_event(
        json!({"type":"error","message":"stream disconnected before completion"}),
    ));
    lines.push(cx_complete("t4", ""));
    let path = write(dir.path(), &rollout_name(THREAD), jsonl(&lines));
    let h = read_history(HarnessKind::Codex, &path).unwrap();
    assert_eq!(
        refs(&h),
        [("t1", Some("t1"), true), ("t4", Some("t4"), true)]
    );
    let err = &h.turns[1].messages[1];
    assert_eq!(err.role, Role::Other);
    assert_eq!(
        err.error.as_deref(),
        Some("stream disconnected before completion")
    );
}

#[test]
fn incremental_reads_follow_a_running_turn() {
    let dir = tempfile::tempdir().unwrap();
    let lines = cx_current();
    let path = write(dir.path(), &rollout_name(THREAD), jsonl(&lines[..5]));
    let mut reader = CodexReader::open(&path).unwrap();
    assert_eq!(reader.anchors().len(), 1);
    assert!(!reader.anchors()[0].complete);
    for (i, line) in lines[5..].iter().enumerate() {
        append(&path, jsonl(std::slice::from_ref(line)));
        let a = reader.read_appended().unwrap();
        assert!(!a.reset);
        assert!(a.first_changed_turn <= reader.anchors().len(), "line {i}");
    }
    assert_eq!(
        reader.history().unwrap(),
        read_history(HarnessKind::Codex, &path).unwrap()
    );
}

#[test]
fn missing_rollout_is_session_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = CodexReader::open(dir.path().join("rollout-x.jsonl")).unwrap_err();
    assert!(matches!(err, HistoryError::SessionNotFound { .. }), "{err}");
}
