//! Files written by the real CLIs (Claude Code 2.1.197, Codex 0.171.0, Pi 1.6.0) against the
//! project's fake model server, copied verbatim into `tests/fixtures/real/`.

mod common;

use std::path::PathBuf;

use common::refs as anchors;
use forkhost_harness::codex::CodexReader;
use forkhost_harness::{read_history, HarnessKind, History, Role, SessionReader};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real")
        .join(path)
}

fn read(kind: HarnessKind, path: &str) -> History {
    read_history(kind, fixture(path)).unwrap()
}

fn texts(h: &History, turn: usize) -> Vec<(Role, &str)> {
    h.turns[turn]
        .messages
        .iter()
        .map(|m| (m.role, m.text.as_str()))
        .collect()
}

#[test]
fn claude_two_turns_and_a_fork_at_turn_one() {
    let src = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000001.jsonl",
    );
    assert_eq!(
        anchors(&src),
        [
            (
                "3664fe19-8fff-4d1c-a266-f9b4a584371c",
                Some("14e019e6-6fec-4a30-9945-2d569d86bd67"),
                true
            ),
            (
                "2a0c6d4f-99df-401f-8399-f2742fd09dd0",
                Some("f22b8226-5b27-4e55-941d-9ba9dc39495a"),
                true
            )
        ]
    );
    assert_eq!(
        texts(&src, 1),
        [
            (Role::User, "hello two"),
            (Role::Assistant, "reply (turn 2) to: hello two")
        ]
    );
    // `--fork-session --resume-session-at <turn 1 checkpoint>`: the fork shares turn 1's uuids.
    let fork = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000005.jsonl",
    );
    assert_eq!(
        fork.session_id.as_deref(),
        Some("aaaaaaaa-bbbb-4ccc-8ddd-000000000005")
    );
    assert_eq!(fork.turns[0], src.turns[0]);
    assert_eq!(texts(&fork, 1)[0], (Role::User, "fork prompt"));
}

#[test]
fn claude_tool_interrupt_and_api_error() {
    let tool = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000004.jsonl",
    );
    let call = tool.turns[0].messages[1].tool.as_ref().unwrap();
    assert_eq!(call.name, "Bash");
    assert!(
        call.output.as_deref().unwrap().contains("tool-ok"),
        "{call:?}"
    );
    assert!(tool.turns[0].complete);

    let interrupted = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000006.jsonl",
    );
    assert_eq!(
        anchors(&interrupted),
        [("11111111-2222-4333-8444-000000000006", None, true)]
    );
    assert_eq!(
        texts(&interrupted, 0)[1],
        (Role::Other, "[Request interrupted by user]")
    );

    let resumed = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000002.jsonl",
    );
    assert_eq!(resumed.turns.len(), 2);
    assert_eq!(texts(&resumed, 1)[0], (Role::User, "hello two"));

    let error = read(
        HarnessKind::Claude,
        "claude/aaaaaaaa-bbbb-4ccc-8ddd-000000000007.jsonl",
    );
    let m = &error.turns[0].messages[1];
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(
        m.error.as_deref(),
        Some("API Error: Unable to connect to API (ConnectionRefused)")
    );
}

const CODEX: &str = "codex/sessions/2026/11/29/rollout-2026-11-29T19-57-";
const T1: &str = "01a228e2-976b-7993-b1c0-3cb32ddc52ef";
const T2: &str = "01a228e2-980d-7752-a08b-a4da965fd4c6";
const T3: &str = "01a228e2-98d5-7c50-922c-8d35530d9d61";

#[test]
fn codex_thread_and_its_paginated_forks() {
    let src = read(
        HarnessKind::Codex,
        &format!("{CODEX}48-01a228e2-9726-77a2-a049-51ad6612eb0a.jsonl"),
    );
    assert_eq!(
        anchors(&src),
        [
            (T1, Some(T1), true),
            (T2, Some(T2), true),
            (T3, Some(T3), true)
        ]
    );
    assert_eq!(
        texts(&src, 0),
        [
            (Role::User, "one"),
            (Role::Assistant, "reply (turn 1) to: one")
        ]
    );
    let call = src.turns[1].messages[1].tool.as_ref().unwrap();
    assert_eq!(call.name, "exec_command");
    assert!(call.output.as_deref().unwrap().contains("tool-ok"));

    // Forks copy no lines: their history comes through `history_base`.
    let whole = CodexReader::open(fixture(&format!(
        "{CODEX}56-01a228e2-b6e2-7793-bb54-8c0cf4775520.jsonl"
    )))
    .unwrap();
    assert_eq!(whole.missing_base(), None);
    assert_eq!(
        whole.forked_from(),
        Some("01a228e2-9726-77a2-a049-51ad6612eb0a")
    );
    assert_eq!(whole.history().unwrap().turns, src.turns);
    let at_t1 = read(
        HarnessKind::Codex,
        &format!("{CODEX}56-01a228e2-b6b2-7242-9c83-f1ef56188255.jsonl"),
    );
    assert_eq!(at_t1.turns, src.turns[..1]);
    let before_t1 = read(
        HarnessKind::Codex,
        &format!("{CODEX}56-01a228e2-b621-7770-8419-648d3a2b289b.jsonl"),
    );
    assert!(before_t1.turns.is_empty());
    assert_eq!(
        before_t1.forked_from.as_deref(),
        Some("01a228e2-9726-77a2-a049-51ad6612eb0a")
    );
}

#[test]
fn pi_sessions() {
    let two = read(
        HarnessKind::Pi,
        "pi/2026-11-29T19-56-40-297Z_01a228e1-8de8-754e-8479-6840ac890b84.jsonl",
    );
    assert_eq!(
        anchors(&two),
        [
            ("179143af", Some("cb67546c"), true),
            ("b32e91de", Some("97da9104"), true)
        ]
    );
    // The persisted system prompt is not a message.
    assert_eq!(
        texts(&two, 0),
        [
            (Role::User, "alpha first"),
            (Role::Assistant, "reply (turn 1) to: alpha first")
        ]
    );

    let tool = read(
        HarnessKind::Pi,
        "pi/2026-11-29T19-59-23-200Z_01a228e4-0a40-73e3-80cc-f7a09201decf.jsonl",
    );
    let call = tool.turns[0].messages[1].tool.as_ref().unwrap();
    assert_eq!(call.name, "bash");
    assert!(call.output.is_some());

    let aborted = read(
        HarnessKind::Pi,
        "pi/2026-11-29T19-59-29-008Z_01a228e4-20f0-756b-8b3b-ee47ed853bee.jsonl",
    );
    let last = aborted.turns[1].messages.last().unwrap();
    assert_eq!(last.error.as_deref(), Some("Request was aborted"));
    assert!(aborted.turns[1].complete);
}
