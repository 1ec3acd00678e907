//! Following a native session file as the harness appends to it: the checks and answers every
//! reader (Claude, Codex, Pi) gives the same way.

use std::fs::File;
use std::ops::Range;
use std::path::Path;

use super::continues;
use crate::history::{Appended, HistoryError, Turn};

/// What became of a file since it was read up to some offset.
pub(crate) enum Growth {
    /// It shrank, or no longer continues what was read (a harness rewrote it: Pi migrating a
    /// session, a user editing the file): the reader starts over.
    Rewritten,
    /// It holds what was read, and maybe more: index `file` up to `len`.
    Kept { file: File, len: u64 },
}

/// Open `path` and tell whether it still continues what was read up to `read_to`.
pub(crate) fn check(path: &Path, read_to: u64) -> Result<Growth, HistoryError> {
    let io = |e| HistoryError::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len < read_to || !continues(&file, read_to).map_err(io)? {
        return Ok(Growth::Rewritten);
    }
    Ok(Growth::Kept { file, len })
}

/// The answer of a read that started over and consumed `read_to` bytes.
pub(crate) fn restarted(read_to: u64) -> Appended {
    Appended {
        bytes: read_to,
        first_changed_turn: 0,
        reset: true,
    }
}

/// The answer of a read that consumed `bytes` and changed turns from `first_changed_turn` on.
pub(crate) fn appended(bytes: Range<u64>, first_changed_turn: usize) -> Appended {
    Appended {
        bytes: bytes.end - bytes.start,
        first_changed_turn,
        reset: false,
    }
}

/// Turn `index` of `len`, materialized by `materialize(index..index + 1)`.
pub(crate) fn one_turn(
    index: usize,
    len: usize,
    materialize: impl FnOnce(Range<usize>) -> Result<Vec<Turn>, HistoryError>,
) -> Result<Turn, HistoryError> {
    if index >= len {
        return Err(HistoryError::TurnNotFound { index, len });
    }
    Ok(materialize(index..index + 1)?.remove(0))
}
