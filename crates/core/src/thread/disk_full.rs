//! A turn that failed because the disk is full. The harness had begun to append the turn to
//! its session and the write stopped part-way: the file now ends in half a line. Left there,
//! the harness "repairs" it on its next open in its own way (Pi 1.6.0 lost the session's first
//! turn doing so, seen in `tests/tests/cli/remote_disk.rs`), and every fork waits on it as on
//! a writer still writing. So the half line is taken off — only the bytes after the last whole
//! line, which no reader takes as a record — the runtime that believes it wrote them is
//! retired, and the words say what happened and what to do.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Whether a harness's failure says its disk is full (Node's `ENOSPC`, the OS's words).
pub(crate) fn says_disk_full(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("enospc") || lower.contains("no space left on device")
}

/// The failure in the user's words, keeping the harness's own.
pub(crate) fn disk_full_words(message: &str) -> String {
    format!(
        "the disk this thread's session is kept on is full: free some space there, then send \
         again (nothing of this turn was kept). The harness said: {message}"
    )
}

/// A fork's harness failing on a full disk, in the user's words (nothing of the fork was
/// made: its undo removed what the harness had begun); any other error as it was.
pub(crate) fn fork_failure(err: crate::base::error::HostError) -> crate::base::error::HostError {
    use crate::base::error::HostError;
    match err {
        HostError::HarnessFailed(message) if says_disk_full(&message) => {
            HostError::HarnessFailed(format!(
                "the disk the sessions are kept on is full: free some space there, then fork \
                 again (nothing of the fork was made). The harness said: {message}"
            ))
        }
        other => other,
    }
}

/// Takes a half-written last line off the session file at `path`: the bytes after its last
/// newline. A file that ends in a whole line is left as it is. How many bytes went.
pub(crate) fn drop_torn_tail(path: &Path) -> std::io::Result<u64> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let len = file.metadata()?.len();
    // Read back from the end in blocks until a newline (or the start) is found.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block[..n])?;
        if let Some(at) = block[..n].iter().rposition(|b| *b == b'\n') {
            let keep = start + at as u64 + 1;
            file.set_len(keep)?;
            return Ok(len - keep);
        }
        end = start;
    }
    // No whole line at all: the file held only the torn write.
    file.set_len(0)?;
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_goes_and_whole_lines_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n{\"c\":").unwrap();
        assert_eq!(drop_torn_tail(&path).unwrap(), 5);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"b\":2}\n"
        );
        assert_eq!(drop_torn_tail(&path).unwrap(), 0, "whole: left as it is");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"b\":2}\n"
        );
        // A torn line longer than a block.
        let long = format!("{{\"a\":1}}\n{}", "x".repeat(200_000));
        std::fs::write(&path, &long).unwrap();
        assert_eq!(drop_torn_tail(&path).unwrap(), 200_000);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
        std::fs::write(&path, "torn").unwrap();
        assert_eq!(drop_torn_tail(&path).unwrap(), 4);
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    #[test]
    fn a_full_disk_is_named_in_either_words() {
        assert!(says_disk_full("ENOSPC: no space left on device, write"));
        assert!(says_disk_full(
            "write failed: No space left on device (os error 28)"
        ));
        assert!(!says_disk_full("harness failed: not logged in"));
        assert!(disk_full_words("ENOSPC").contains("free some space"));
        let err = crate::base::error::HostError::HarnessFailed("pi clone failed: ENOSPC".into());
        assert!(fork_failure(err).to_string().contains("then fork again"));
        let other = crate::base::error::HostError::HarnessFailed("not logged in".into());
        assert_eq!(
            fork_failure(other).to_string(),
            "harness failed: not logged in"
        );
    }
}
