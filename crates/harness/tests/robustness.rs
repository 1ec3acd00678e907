//! Any bytes, any cut, any way of appending: readers never panic, a file cut short reads as a
//! prefix of the whole, and reading as the file grows equals reading it at once.

mod common;

use common::*;
use forkhost_harness::{open_reader, HarnessKind, History, Message, Turn};
use proptest::prelude::*;

fn fixture(kind: HarnessKind) -> Vec<u8> {
    match kind {
        HarnessKind::Claude => jsonl(&cc_three_turns()),
        HarnessKind::Codex => jsonl(&cx_current()),
        HarnessKind::Pi => jsonl(&pi_three_turns()),
        // Database rows, not a file (its reader has unit tests of its own).
        HarnessKind::Opencode => String::new(),
    }
    .into_bytes()
}

fn read(kind: HarnessKind, bytes: &[u8]) -> History {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "rollout-x.jsonl", bytes);
    open_reader(kind, &path).unwrap().history().unwrap()
}

/// Bytes that look like transcripts often enough to reach deep into the parsers: pieces of a
/// real fixture, cut anywhere, mixed with noise.
fn mangled(kind: HarnessKind) -> impl Strategy<Value = Vec<u8>> {
    let src = fixture(kind);
    let len = src.len();
    let piece = prop_oneof![
        (0..len, 0..len).prop_map(move |(a, b)| src[a.min(b)..a.max(b)].to_vec()),
        prop::collection::vec(any::<u8>(), 0..40),
        Just(b"\n".to_vec()),
        Just(b"{\"type\":\"".to_vec()),
        Just(b"\\\"".to_vec()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

fn message_prefix(cut: &Message, full: &Message) -> bool {
    cut.role == full.role
        && full.text.starts_with(&cut.text)
        && match (&cut.tool, &full.tool) {
            (None, None) => true,
            (Some(c), Some(f)) => {
                c.id == f.id
                    && c.name == f.name
                    && c.input == f.input
                    && (c.output.is_none() || c.output == f.output)
            }
            _ => false,
        }
}

fn turn_prefix(cut: &Turn, full: &Turn) -> bool {
    cut.native_turn_ref == full.native_turn_ref
        && (!cut.complete || full.complete)
        && cut.messages.len() <= full.messages.len()
        && cut
            .messages
            .iter()
            .zip(&full.messages)
            .all(|(c, f)| message_prefix(c, f))
}

fn assert_prefix(cut: &History, full: &History) -> Result<(), TestCaseError> {
    prop_assert!(cut.turns.len() <= full.turns.len());
    if let Some((last, done)) = cut.turns.split_last() {
        prop_assert_eq!(done, &full.turns[..done.len()]);
        prop_assert!(
            turn_prefix(last, &full.turns[done.len()]),
            "{last:#?}\nvs\n{:#?}",
            full.turns[done.len()]
        );
    }
    Ok(())
}

fn check_cut(kind: HarnessKind, cut: usize) -> Result<(), TestCaseError> {
    let bytes = fixture(kind);
    let full = read(kind, &bytes);
    let cut = read(kind, &bytes[..cut.min(bytes.len())]);
    assert_prefix(&cut, &full)
}

/// Write the file in pieces, following it with `read_appended`, and compare with one read.
fn check_growth(
    kind: HarnessKind,
    bytes: &[u8],
    mut cuts: Vec<usize>,
) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    cuts.iter_mut().for_each(|c| *c %= bytes.len() + 1);
    cuts.sort_unstable();
    let path = write(dir.path(), "rollout-x.jsonl", &bytes[..cuts[0]]);
    let mut reader = open_reader(kind, &path).unwrap();
    for w in cuts.windows(2) {
        append(&path, &bytes[w[0]..w[1]]);
        let a = reader.read_appended().unwrap();
        prop_assert!(!a.reset);
        prop_assert!(a.first_changed_turn <= reader.anchors().len());
    }
    append(&path, &bytes[*cuts.last().unwrap()..]);
    reader.read_appended().unwrap();
    let once = open_reader(kind, &path).unwrap();
    prop_assert_eq!(reader.anchors(), once.anchors());
    prop_assert_eq!(reader.history().unwrap(), once.history().unwrap());
    Ok(())
}

/// The harnesses that keep a session file.
const KINDS: [HarnessKind; 3] = [HarnessKind::Claude, HarnessKind::Codex, HarnessKind::Pi];

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(kind in 0..3usize, bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let h = read(KINDS[kind], &bytes);
        prop_assert!(h.read_to <= bytes.len() as u64);
    }

    #[test]
    fn claude_mangled_never_panics(bytes in mangled(HarnessKind::Claude)) {
        read(HarnessKind::Claude, &bytes);
    }

    #[test]
    fn codex_mangled_never_panics(bytes in mangled(HarnessKind::Codex)) {
        read(HarnessKind::Codex, &bytes);
    }

    #[test]
    fn pi_mangled_never_panics(bytes in mangled(HarnessKind::Pi)) {
        read(HarnessKind::Pi, &bytes);
    }

    #[test]
    fn claude_cut_reads_a_prefix(cut in 0..20_000usize) {
        check_cut(HarnessKind::Claude, cut)?;
    }

    #[test]
    fn codex_cut_reads_a_prefix(cut in 0..30_000usize) {
        check_cut(HarnessKind::Codex, cut)?;
    }

    #[test]
    fn pi_cut_reads_a_prefix(cut in 0..10_000usize) {
        check_cut(HarnessKind::Pi, cut)?;
    }

    #[test]
    fn growing_equals_reading_at_once(kind in 0..3usize, cuts in prop::collection::vec(any::<usize>(), 1..12)) {
        let kind = KINDS[kind];
        check_growth(kind, &fixture(kind), cuts)?;
    }

    #[test]
    fn growing_mangled_equals_reading_at_once(
        kind in 0..3usize,
        seed in prop::collection::vec(any::<usize>(), 1..8),
        bytes in mangled(HarnessKind::Claude),
    ) {
        // Garbage in a growing file is skipped the same way as in a whole one. (Claude noise
        // for all three: what matters is that it is not their format.)
        let mut all = fixture(KINDS[kind]);
        all.extend_from_slice(&bytes);
        all.push(b'\n');
        all.extend_from_slice(&fixture(KINDS[kind]));
        check_growth(KINDS[kind], &all, seed)?;
    }
}

#[test]
fn fixtures_are_long_enough_for_the_cuts() {
    assert!(fixture(HarnessKind::Claude).len() < 20_000);
    assert!(fixture(HarnessKind::Codex).len() < 30_000);
    assert!(fixture(HarnessKind::Pi).len() < 10_000);
}
