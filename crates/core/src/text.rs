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
        let (mut reader, old) = match cached {
            Some(entry) => (entry.reader, entry.turns),
            None => (open_reader(kind, path)?, Arc::new(Vec::new())),
        };
        if !old.is_empty() {
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
