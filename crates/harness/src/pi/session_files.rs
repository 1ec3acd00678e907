//! Pi session files as the runtime and the fork need them: finding one, reading its leaf
//! without indexing it, and checking that opening it in a Pi process will not write to it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::contract::{env_value, NativeSession};
use crate::{HarnessError, HarnessResult};

/// How much of a file's head [`check_opens_read_only`] reads: the header and the setup entries.
const HEAD_BYTES: u64 = 64 * 1024;
/// Chunk size when reading a file backwards for its last entry.
const TAIL_CHUNK: u64 = 64 * 1024;

/// The session's file as an absolute path that exists; `SessionNotFound` otherwise. Without a
/// path, the file is looked up by session id in the sessions folder `env` points at.
pub(super) fn existing_file(
    session: &NativeSession,
    env: &[(String, String)],
) -> HarnessResult<PathBuf> {
    let path = match &session.path {
        Some(path) if path.is_absolute() => path.clone(),
        Some(path) => session.cwd.join(path),
        None => find_by_id(&session.session_id, env).ok_or_else(|| {
            HarnessError::SessionNotFound(format!(
                "no pi session file for id {}",
                session.session_id
            ))
        })?,
    };
    if path.is_file() {
        Ok(path)
    } else {
        // Pi would silently start a new session at a missing path (`--session`,
        // `switch_session`): refuse instead.
        Err(HarnessError::SessionNotFound(format!(
            "pi session file {} does not exist",
            path.display()
        )))
    }
}

/// `<ts>_<id>.jsonl` under the sessions folder (one level of per-cwd folders, or flat).
pub(super) fn find_by_id(id: &str, env: &[(String, String)]) -> Option<PathBuf> {
    if id.is_empty() || id.contains(['/', '\\']) {
        return None;
    }
    let suffix = format!("_{id}.jsonl");
    let matches = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(&suffix))
    };
    let root = sessions_root(env)?;
    for entry in std::fs::read_dir(&root).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            let found = std::fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .find(|p| matches(p));
            if found.is_some() {
                return found;
            }
        } else if matches(&path) {
            return Some(path);
        }
    }
    None
}

/// `PI_CODING_AGENT_SESSION_DIR`, else `$PI_CODING_AGENT_DIR/sessions`, else
/// `<home>/.pi/agent/sessions` (a `HOME` override, else the user's home: `USERPROFILE` on
/// Windows); `env` (the process's extra variables) wins over our own.
pub(super) fn sessions_root(env: &[(String, String)]) -> Option<PathBuf> {
    let var = |name: &str| env_value(env, name);
    if let Some(dir) = var("PI_CODING_AGENT_SESSION_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("PI_CODING_AGENT_DIR") {
        return Some(PathBuf::from(dir).join("sessions"));
    }
    crate::home::home_for(env).map(|home| home.join(".pi").join("agent").join("sessions"))
}

/// The id of the file's last entry: where Pi resumes (its leaf is the last line it parses).
/// Reads backwards from the end, so the cost does not grow with the file.
pub(super) fn last_entry_id(path: &Path) -> Option<String> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut end = len;
    let mut tail: Vec<u8> = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(TAIL_CHUNK);
        let mut chunk = vec![0; (end - start) as usize];
        file.seek(SeekFrom::Start(start)).ok()?;
        file.read_exact(&mut chunk).ok()?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        end = start;
        // Every line but the first in `tail` is whole (unless we reached the file's start).
        let whole_from = if end == 0 {
            0
        } else {
            match memchr::memchr(b'\n', &tail) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let found = tail[whole_from..]
            .split(|&b| b == b'\n')
            .rev()
            .find_map(entry_id);
        if found.is_some() {
            return found;
        }
        tail.truncate(whole_from);
    }
    None
}

/// The `id` of an entry line (not the header); `None` for blank or malformed lines.
fn entry_id(line: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(line).ok()?;
    if value.get("type")?.as_str()? == "session" {
        return None;
    }
    value.get("id")?.as_str().map(str::to_owned)
}

/// Refuses a fork source that a Pi process would write to when it merely opens it (1.6.0,
/// `dist/core/session-manager.js` and `sdk.js`):
/// - a last line without its LF: Pi "repairs" the torn tail by appending `\n`;
/// - a header older than format version 3: Pi migrates and rewrites the whole file;
/// - no `thinking_level_change` among the setup entries: Pi appends one on open.
pub(super) fn check_opens_read_only(path: &Path) -> HarnessResult<()> {
    let mut file = File::open(path).map_err(|e| not_found_or_failed(path, e))?;
    let len = file
        .metadata()
        .map_err(|e| not_found_or_failed(path, e))?
        .len();
    if len == 0 {
        return Err(HarnessError::SessionNotFound(format!(
            "pi session file {} is empty",
            path.display()
        )));
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))
        .and_then(|_| file.read_exact(&mut last))
        .map_err(|e| not_found_or_failed(path, e))?;
    if last[0] != b'\n' {
        return Err(HarnessError::Busy(format!(
            "the last line of {} is incomplete (a writer may still be writing it); pi would \
             repair it in place, so the fork waits until it is whole",
            path.display()
        )));
    }
    let mut head = Vec::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| (&mut file).take(HEAD_BYTES).read_to_end(&mut head))
        .map_err(|e| not_found_or_failed(path, e))?;
    check_head(&head)
}

fn check_head(head: &[u8]) -> HarnessResult<()> {
    let mut lines = head
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok());
    let version = lines
        .next()
        .filter(|h| h.get("type").and_then(Value::as_str) == Some("session"))
        .and_then(|h| h.get("version").and_then(Value::as_u64));
    match version {
        Some(v) if v >= 3 => {}
        _ => {
            return Err(HarnessError::Unsupported(
                "the source is not a pi session of format version 3; pi would migrate \
                 (rewrite) it on open"
                    .into(),
            ))
        }
    }
    // Pi writes the setup entries (model, thinking level, system prompt) before the first
    // prompt, so the thinking level sits among the first few lines.
    let has_thinking = lines
        .take(8)
        .any(|e| e.get("type").and_then(Value::as_str) == Some("thinking_level_change"));
    if has_thinking {
        Ok(())
    } else {
        Err(HarnessError::Unsupported(
            "the source has no thinking-level entry; pi would append one to it on open".into(),
        ))
    }
}

fn not_found_or_failed(path: &Path, err: std::io::Error) -> HarnessError {
    if err.kind() == std::io::ErrorKind::NotFound {
        HarnessError::SessionNotFound(format!("pi session file {} does not exist", path.display()))
    } else {
        HarnessError::failed(
            crate::HarnessKind::Pi,
            format!("cannot read {}: {err}", path.display()),
            "",
        )
    }
}

/// Whether two paths name the same file.
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (a.canonicalize(), b.canonicalize()),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#;
    const MODEL: &str = r#"{"type":"model_change","id":"m1","parentId":null}"#;
    const THINKING: &str = r#"{"type":"thinking_level_change","id":"t1","parentId":"m1"}"#;

    fn file_with(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn last_entry_id_skips_torn_and_blank_lines() {
        let text = format!("{HEADER}\n{MODEL}\n{THINKING}\n\n{{\"type\":\"mess");
        let f = file_with(&text);
        assert_eq!(last_entry_id(f.path()).as_deref(), Some("t1"));
        let f = file_with(&format!("{HEADER}\n"));
        assert_eq!(last_entry_id(f.path()), None);
    }

    #[test]
    fn last_entry_id_reads_lines_longer_than_a_chunk() {
        let big = "x".repeat(3 * TAIL_CHUNK as usize);
        let text = format!(
            "{HEADER}\n{MODEL}\n{{\"type\":\"message\",\"id\":\"big1\",\"parentId\":\"m1\",\"pad\":\"{big}\"}}\n"
        );
        let f = file_with(&text);
        assert_eq!(last_entry_id(f.path()).as_deref(), Some("big1"));
    }

    #[test]
    fn sources_pi_would_write_to_are_refused() {
        let ok = file_with(&format!("{HEADER}\n{MODEL}\n{THINKING}\n"));
        assert!(check_opens_read_only(ok.path()).is_ok());
        let torn = file_with(&format!("{HEADER}\n{MODEL}\n{THINKING}"));
        assert!(matches!(
            check_opens_read_only(torn.path()),
            Err(HarnessError::Busy(_))
        ));
        let old = file_with(&format!(
            "{}\n{MODEL}\n{THINKING}\n",
            HEADER.replace("\"version\":3", "\"version\":2")
        ));
        assert!(matches!(
            check_opens_read_only(old.path()),
            Err(HarnessError::Unsupported(_))
        ));
        let no_thinking = file_with(&format!("{HEADER}\n{MODEL}\n"));
        assert!(matches!(
            check_opens_read_only(no_thinking.path()),
            Err(HarnessError::Unsupported(_))
        ));
        assert!(matches!(
            check_opens_read_only(Path::new("/nonexistent/forkhost/s.jsonl")),
            Err(HarnessError::SessionNotFound(_))
        ));
    }

    #[test]
    fn finds_a_session_file_by_id_under_the_agent_dir() {
        let home = tempfile::tempdir().unwrap();
        let agent = home.path().join("agent");
        let dir = agent.join("sessions/--w--");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-01-01T00-00-00-000Z_abc-123.jsonl");
        std::fs::write(&file, HEADER).unwrap();
        let env = vec![(
            "PI_CODING_AGENT_DIR".to_string(),
            agent.display().to_string(),
        )];
        assert_eq!(find_by_id("abc-123", &env), Some(file));
        assert_eq!(find_by_id("abc", &env), None);
        assert_eq!(find_by_id("../x", &env), None);
        // The same folder found through a HOME override.
        let env = vec![("HOME".to_string(), home.path().display().to_string())];
        let dir = home.path().join(".pi/agent/sessions/--w--");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-01-01T00-00-00-000Z_def-456.jsonl");
        std::fs::write(&file, HEADER).unwrap();
        if std::env::var_os("PI_CODING_AGENT_DIR").is_none()
            && std::env::var_os("PI_CODING_AGENT_SESSION_DIR").is_none()
        {
            assert_eq!(find_by_id("def-456", &env), Some(file));
        }
    }
}
