//! The diff an approval card shows for Claude's `Write`, `Edit` and `MultiEdit` calls. A
//! `Write` is diffed against the file it replaces, read only when it is a regular file and at
//! most [`MAX_DIFFED_FILE`] bytes (review L3: a FIFO, a device or a procfs file reports a length
//! of 0 and would block or never end); the driver calls this off its reader, in time.

use std::path::Path;

use serde_json::Value;

/// The largest existing file a `Write` request is diffed against.
pub(crate) const MAX_DIFFED_FILE: u64 = 256 * 1024;

fn text_of<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// A unified-style diff of what the call would write: `Write` against the file as it is now
/// (new lines only for a new file), `Edit`/`MultiEdit` from their old and new strings.
pub(crate) fn diff(tool: &str, path: &str, input: &Value, read_files: bool) -> Option<String> {
    let mut out = format!("--- {path}\n+++ {path}\n");
    let mut hunk = |old: &str, new: &str| {
        out.push_str("@@\n");
        for line in old.lines() {
            out.push_str(&format!("-{line}\n"));
        }
        for line in new.lines() {
            out.push_str(&format!("+{line}\n"));
        }
    };
    match tool {
        "Write" => {
            let new = text_of(input, "content")?;
            if !read_files {
                return None;
            }
            let old = match current_text(Path::new(path)) {
                Current::Text(old) => old,
                Current::Missing => String::new(),
                Current::Unshown => return None,
            };
            hunk(&old, new);
        }
        "Edit" => hunk(text_of(input, "old_string")?, text_of(input, "new_string")?),
        "MultiEdit" => {
            for edit in input.get("edits")?.as_array()? {
                hunk(text_of(edit, "old_string")?, text_of(edit, "new_string")?);
            }
        }
        _ => return None,
    }
    Some(out)
}

/// What a `Write` would replace.
enum Current {
    Text(String),
    /// No file there: the write creates it.
    Missing,
    /// Not a regular file, too large, or not text: no diff is shown rather than a wrong one.
    Unshown,
}

/// The file at `path` as text, read only when it is a regular file (a FIFO, a device or a
/// procfs file reports a length of 0 and would block or never end) and at most
/// [`MAX_DIFFED_FILE`] bytes, whatever its size says.
fn current_text(path: &Path) -> Current {
    use std::io::Read;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Current::Missing,
        Err(_) => return Current::Unshown,
    };
    if !meta.is_file() || meta.len() > MAX_DIFFED_FILE {
        return Current::Unshown;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return Current::Unshown;
    };
    let mut bytes = Vec::new();
    if file
        .take(MAX_DIFFED_FILE + 1)
        .read_to_end(&mut bytes)
        .is_err()
        || bytes.len() as u64 > MAX_DIFFED_FILE
    {
        return Current::Unshown;
    }
    String::from_utf8(bytes).map_or(Current::Unshown, Current::Text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path_of(input: &Value) -> String {
        text_of(input, "file_path").unwrap().to_owned()
    }

    #[cfg(unix)]
    #[test]
    fn a_write_over_a_fifo_is_not_read() {
        // L3: a FIFO has a length of 0; reading it would block until a writer comes.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let input = json!({"file_path": fifo.display().to_string(), "content": "x\n"});
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(diff("Write", &path_of(&input), &input, true));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("describing a write over a FIFO must not block");
        assert_eq!(got, None, "a FIFO is never read for a diff");
    }

    #[test]
    fn a_write_over_a_large_or_binary_file_is_not_diffed() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; MAX_DIFFED_FILE as usize + 1]).unwrap();
        let binary = dir.path().join("bin");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        let small = dir.path().join("small");
        std::fs::write(&small, "old\n").unwrap();
        let diff_of = |p: &Path| {
            let input = json!({"file_path": p.display().to_string(), "content": "new\n"});
            diff("Write", &path_of(&input), &input, true)
        };
        assert_eq!(diff_of(&big), None);
        assert_eq!(diff_of(&binary), None);
        assert!(diff_of(&small).unwrap().ends_with("@@\n-old\n+new\n"));
    }
}
