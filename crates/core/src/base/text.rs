//! Message text, read from native files on demand and kept per file so that showing a thread
//! again costs what was appended since, not the whole file: turns whose anchors are unchanged
//! keep their text; the rest (and a turn still being written) are read again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use forkhost_harness::{open_reader, HarnessKind, HistoryError, SessionReader, Turn};

/// Files whose text is kept; the least recently used beyond this are dropped.
const KEPT_FILES: usize = 32;

#[derive(Default)]
pub(crate) struct TextCache {
    files: Mutex<HashMap<PathBuf, Entry>>,
    clock: Mutex<u64>,
}

struct Entry {
    reader: Box<dyn SessionReader>,
    turns: Arc<Vec<Turn>>,
    used: u64,
}

impl TextCache {
    /// Every turn of a native file, with text. Blocking: call from a blocking task.
    pub fn turns(&self, kind: HarnessKind, path: &Path) -> Result<Arc<Vec<Turn>>, HistoryError> {
        let tick = {
            let mut clock = self.clock.lock().unwrap_or_else(|e| e.into_inner());
            *clock += 1;
            *clock
        };
        let cached = self
            .files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(path)
            .filter(|e| e.reader.kind() == kind);
        let (mut reader, old, opened) = match cached {
            Some(entry) => (entry.reader, entry.turns, false),
            None => (open_reader(kind, path)?, Arc::new(Vec::new()), true),
        };
        // A kept reader catches up, even one that held no turn yet: a session whose agent
        // makes it before its first turn (OpenCode's `session/new`) is read empty once, and
        // must not stay empty.
        if !opened {
            reader.read_appended()?;
        }
        let anchors = reader.anchors();
        // Turns before the first changed anchor keep their text; a turn still being written
        // is always read again.
        let keep = old
            .iter()
            .zip(anchors)
            .take_while(|(turn, anchor)| turn.complete && turn.anchor() == **anchor)
            .count();
        let turns = if keep == old.len() && keep == anchors.len() {
            old
        } else if keep == 0 {
            Arc::new(reader.history()?.turns)
        } else {
            let mut turns: Vec<Turn> = old[..keep].to_vec();
            for i in keep..anchors.len() {
                turns.push(reader.turn(i)?);
            }
            Arc::new(turns)
        };
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.insert(
            path.to_owned(),
            Entry {
                reader,
                turns: turns.clone(),
                used: tick,
            },
        );
        if files.len() > KEPT_FILES {
            if let Some(oldest) = files
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(p, _)| p.clone())
            {
                files.remove(&oldest);
            }
        }
        Ok(turns)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn line(kind: &str, uuid: &str, parent: Option<&str>, text: &str) -> String {
        let parent = parent.map(|p| format!("\"{p}\"")).unwrap_or("null".into());
        match kind {
            "user" => format!(
                r#"{{"type":"user","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","message":{{"role":"user","content":"{text}"}}}}"#
            ),
            _ => format!(
                r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s","message":{{"id":"m-{uuid}","role":"assistant","content":[{{"type":"text","text":"{text}"}}],"stop_reason":"end_turn"}}}}"#
            ),
        }
    }

    #[test]
    fn a_second_read_keeps_unchanged_turns_and_reads_what_was_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        writeln!(file, "{}", line("user", "u1", None, "one")).unwrap();
        writeln!(file, "{}", line("assistant", "a1", Some("u1"), "reply one")).unwrap();
        let cache = TextCache::default();
        let first = cache.turns(HarnessKind::Claude, &path).unwrap();
        assert_eq!(first.len(), 1);
        let again = cache.turns(HarnessKind::Claude, &path).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "nothing changed: the same text is reused"
        );

        writeln!(file, "{}", line("user", "u2", Some("a1"), "two")).unwrap();
        writeln!(file, "{}", line("assistant", "a2", Some("u2"), "reply two")).unwrap();
        drop(file);
        let grown = cache.turns(HarnessKind::Claude, &path).unwrap();
        let fresh = forkhost_harness::read_history(HarnessKind::Claude, &path)
            .unwrap()
            .turns;
        assert_eq!(*grown, fresh, "incremental text equals a full read");
        assert_eq!(grown.len(), 2);
        assert_eq!(grown[1].messages.last().unwrap().text, "reply two");
    }

    #[test]
    fn a_session_read_before_its_first_turn_shows_the_turn_once_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        let cache = TextCache::default();
        assert!(cache.turns(HarnessKind::Claude, &path).unwrap().is_empty());
        writeln!(file, "{}", line("user", "u1", None, "one")).unwrap();
        writeln!(file, "{}", line("assistant", "a1", Some("u1"), "reply one")).unwrap();
        drop(file);
        let grown = cache.turns(HarnessKind::Claude, &path).unwrap();
        assert_eq!(grown.len(), 1, "the first turn, read after an empty read");
        assert_eq!(grown[0].messages.last().unwrap().text, "reply one");
    }
}
