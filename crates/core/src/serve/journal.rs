//! The daemon's journal: every Host event numbered in the order it happened, the newest
//! [`KEPT`] kept, so that a client that lost its connection gets exactly what it missed
//! (`Subscribe { since }`), and live entries handed to every subscriber as they come.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::broadcast;

use super::wire::{Entry, Item};

/// How many entries are kept for replay: a long reply streams a few thousand deltas; a
/// client gone for longer than this many events re-reads the thread instead (`gap`).
pub const KEPT: usize = 100_000;

pub struct Journal {
    kept: Mutex<Kept>,
    live: broadcast::Sender<Entry>,
}

struct Kept {
    entries: VecDeque<Entry>,
    next_seq: u64,
}

/// What a subscriber gets first: the entries it missed, whether some were dropped before it,
/// and the live feed that continues after them without a gap or a repeat.
pub struct Replay {
    pub entries: Vec<Entry>,
    pub gap: bool,
    pub live: broadcast::Receiver<Entry>,
}

impl Journal {
    pub fn new() -> Journal {
        Journal {
            kept: Mutex::new(Kept {
                entries: VecDeque::new(),
                next_seq: 1,
            }),
            live: broadcast::channel(4096).0,
        }
    }

    /// Numbers `item`, keeps it and hands it to the live subscribers.
    pub fn push(&self, item: Item) -> u64 {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let entry = Entry {
            seq: kept.next_seq,
            item,
        };
        kept.next_seq += 1;
        if kept.entries.len() == KEPT {
            kept.entries.pop_front();
        }
        kept.entries.push_back(entry.clone());
        // Sent under the lock, so a subscriber's replay and its live feed meet exactly.
        let _ = self.live.send(entry);
        kept.next_seq - 1
    }

    /// The newest entry's number (0: none yet).
    pub fn last_seq(&self) -> u64 {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).next_seq - 1
    }

    /// The entries of `thread` (all threads' when `None`) after `since`; with `since: None`,
    /// from the start of that thread's latest turn the journal holds (or all it holds).
    pub fn replay(&self, thread: Option<&str>, since: Option<u64>) -> Replay {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let live = self.live.subscribe();
        let of_thread = |e: &&Entry| thread.is_none_or(|t| e.item.thread_id() == t);
        let first_kept = kept.entries.front().map_or(kept.next_seq, |e| e.seq);
        let since = since.unwrap_or_else(|| {
            kept.entries
                .iter()
                .rev()
                .filter(of_thread)
                .find(|e| e.item.starts_turn())
                .map_or(0, |e| e.seq - 1)
        });
        let entries: Vec<Entry> = kept
            .entries
            .iter()
            .filter(|e| e.seq > since)
            .filter(of_thread)
            .cloned()
            .collect();
        Replay {
            entries,
            gap: since + 1 < first_kept,
            live,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::events::HostEvent;

    fn delta(thread: &str, text: &str) -> Item {
        Item::Event {
            event: HostEvent::TextDelta {
                thread_id: thread.into(),
                text: text.into(),
            },
        }
    }

    fn started(thread: &str) -> Item {
        Item::Event {
            event: HostEvent::TurnStarted {
                thread_id: thread.into(),
            },
        }
    }

    fn seqs(entries: &[Entry]) -> Vec<u64> {
        entries.iter().map(|e| e.seq).collect()
    }

    #[test]
    fn a_client_gets_what_it_missed_then_the_live_entries_without_a_gap_or_a_repeat() {
        let journal = Journal::new();
        journal.push(started("a")); // 1
        journal.push(delta("a", "x")); // 2
        journal.push(delta("b", "y")); // 3
        journal.push(delta("a", "z")); // 4
        let mut replay = journal.replay(Some("a"), Some(2));
        assert_eq!(seqs(&replay.entries), [4]);
        assert!(!replay.gap);
        journal.push(delta("a", "w")); // 5
        assert_eq!(replay.live.try_recv().unwrap().seq, 5);

        // Without a number: from the start of the thread's latest turn.
        journal.push(started("a")); // 6
        journal.push(delta("a", "v")); // 7
        assert_eq!(seqs(&journal.replay(Some("a"), None).entries), [6, 7]);
        assert_eq!(seqs(&journal.replay(Some("b"), None).entries), [3]);
        assert_eq!(journal.replay(None, Some(5)).entries.len(), 2);
        assert_eq!(journal.last_seq(), 7);
    }

    #[test]
    fn a_client_gone_longer_than_the_journal_keeps_is_told_of_the_gap() {
        let journal = Journal::new();
        for i in 0..KEPT + 3 {
            journal.push(delta("a", &i.to_string()));
        }
        let replay = journal.replay(Some("a"), Some(1));
        assert!(replay.gap);
        assert_eq!(replay.entries.len(), KEPT);
        assert!(!journal.replay(Some("a"), Some(3)).gap);
    }
}
