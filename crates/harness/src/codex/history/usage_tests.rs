//! The rollout reader's usage, on a rollout Codex 0.171.0 wrote against the fake model
//! (three turns, the second with a tool call: two responses), with the repeats Codex writes
//! on its own added: a `token_count` again with its running total unmoved, and one with
//! `info: null` (a rate-limit refresh).

use std::io::Write;

use super::CodexReader;
use crate::contract::TurnUsage;
use crate::history::SessionReader;

const ROLLOUT: &str = include_str!(
    "../../../tests/fixtures/real/codex/sessions/2026/11/29/rollout-2026-11-29T19-57-48-01a228e2-9726-77a2-a049-51ad6612eb0a.jsonl"
);
const NAME: &str = "rollout-2026-11-29T19-57-48-01a228e2-9726-77a2-a049-51ad6612eb0a.jsonl";

/// The second turn's last `token_count` (line 27 of the rollout).
const TURN_2_LAST_COUNT: usize = 26;
/// The third turn's `task_started`.
const TURN_3_START: usize = 28;

const RATE_LIMITS_ONLY: &str = r#"{"timestamp":"2026-11-29T19:57:48.640Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":null,"secondary":null}}}"#;

/// The rollout's lines with the repeats put where they hurt most: in the next turn.
fn lines() -> Vec<String> {
    let recorded: Vec<&str> = ROLLOUT.lines().collect();
    let mut out: Vec<String> = Vec::new();
    for (i, line) in recorded.iter().enumerate() {
        out.push((*line).to_owned());
        if i == TURN_3_START {
            out.push(recorded[TURN_2_LAST_COUNT].replace("19:57:48.613Z", "19:57:48.635Z"));
            out.push(RATE_LIMITS_ONLY.to_owned());
        }
    }
    out
}

fn open(lines: &[String], torn: &str) -> (tempfile::TempDir, CodexReader) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(NAME);
    let mut f = std::fs::File::create(&path).unwrap();
    for line in lines {
        writeln!(f, "{line}").unwrap();
    }
    f.write_all(torn.as_bytes()).unwrap();
    let reader = CodexReader::open(&path).unwrap();
    (dir, reader)
}

fn tokens(input: u64, output: u64) -> Option<TurnUsage> {
    Some(TurnUsage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: Some(0),
        cache_write_tokens: Some(0),
        reasoning_tokens: Some(0),
        cost_usd: None,
    })
}

#[test]
fn each_response_counts_once_and_a_repeat_of_the_total_not_at_all() {
    let (_dir, reader) = open(&lines(), "");
    let h = reader.history().unwrap();
    let usage: Vec<_> = h.turns.iter().map(|t| t.usage).collect();
    assert_eq!(
        usage,
        [
            tokens(10082, 6),
            // The tool turn's two responses.
            tokens(10160 + 10266, 20 + 40),
            // Not 10266 more: that was the repeat.
            tokens(10376, 7),
        ]
    );
    for t in &h.turns {
        assert_eq!(t.model.as_deref(), Some("fake-model"));
    }
}

#[test]
fn a_torn_last_count_counts_once_it_is_whole() {
    let mut lines = lines();
    let complete = lines.pop().unwrap();
    let count = lines.pop().unwrap();
    let (head, tail) = count.split_at(count.len() / 2);
    let (_dir, mut reader) = open(&lines, head);
    assert_eq!(reader.turn(2).unwrap().usage, None);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(reader.path())
        .unwrap();
    writeln!(f, "{tail}\n{complete}").unwrap();
    reader.read_appended().unwrap();
    assert_eq!(reader.turn(2).unwrap().usage, tokens(10376, 7));
    // Followed or read whole, the same figures.
    let (_dir2, whole) = open(&self::lines(), "");
    assert_eq!(
        whole.history().unwrap().turns,
        reader.history().unwrap().turns
    );
}
