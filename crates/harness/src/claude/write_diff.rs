//! The diff an approval card shows for Claude's `Write`, `Edit` and `MultiEdit` calls: a real
//! unified diff (`similar`), so a one-line change to a long file is a one-line hunk with three
//! lines of context, not the whole file removed and added again. `Write` is diffed against the
//! file it replaces; `Edit`/`MultiEdit` apply their strings to the file as it is now and diff
//! before against after (only the strings, when the file cannot be read or no longer holds
//! them). A file is read only when it is a regular file and at most [`MAX_DIFFED_FILE`] bytes
//! (review L3: a FIFO, a device or a procfs file reports a length of 0 and would block or never
//! end); the driver calls this off its reader, in time.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use similar::TextDiff;

/// The largest existing file a request is diffed against.
pub(crate) const MAX_DIFFED_FILE: u64 = 256 * 1024;

/// Lines of context around each change, as `git diff` shows them.
const CONTEXT: usize = 3;

/// How long the diff itself may search for the smallest edit: two unrelated 256 KiB files
/// would otherwise cost seconds; past it `similar` settles for a coarser (still correct) diff.
const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

fn text_of<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// A unified diff of what the call would write, headed by `path`; `None` when there is nothing
/// to show (the call changes nothing, or its file is not one we read). `read_files` false
/// (the read did not finish in time) diffs `Edit`'s strings alone and shows no `Write`.
pub(crate) fn diff(tool: &str, path: &str, input: &Value, read_files: bool) -> Option<String> {
    let current = || match read_files {
        true => current_text(Path::new(path)),
        false => Current::Unshown,
    };
    let edits: Vec<Edit> = match tool {
        "Write" => {
            let new = text_of(input, "content")?;
            let old = match current() {
                Current::Text(old) => old,
                Current::Missing => String::new(),
                Current::Unshown => return None,
            };
            return unified(path, &old, new, true);
        }
        "Edit" => vec![Edit::of(input)?],
        "MultiEdit" => input
            .get("edits")?
            .as_array()?
            .iter()
            .map(Edit::of)
            .collect::<Option<_>>()?,
        _ => return None,
    };
    let before = match current() {
        Current::Text(text) => Some(text),
        // Claude creates a missing file from an edit whose old string is empty.
        Current::Missing => Some(String::new()),
        Current::Unshown => None,
    };
    if let Some(before) = before {
        if let Some(after) = apply(&before, &edits) {
            return unified(path, &before, &after, true);
        }
    }
    // The file's text is unknown or no longer holds the strings: show each edit's strings, as
    // Claude will look for them.
    let parts: String = edits
        .iter()
        .filter_map(|e| unified(path, e.old, e.new, false))
        .collect();
    (!parts.is_empty()).then_some(parts)
}

/// One replacement of an `Edit` (or of a `MultiEdit`'s list).
struct Edit<'a> {
    old: &'a str,
    new: &'a str,
    all: bool,
}

impl<'a> Edit<'a> {
    fn of(input: &'a Value) -> Option<Self> {
        Some(Edit {
            old: text_of(input, "old_string")?,
            new: text_of(input, "new_string")?,
            all: input.get("replace_all").and_then(Value::as_bool) == Some(true),
        })
    }
}

/// The text after the edits, in order, as Claude applies them; `None` when one finds nothing to
/// replace (the diff would show a change that will not happen).
fn apply(text: &str, edits: &[Edit]) -> Option<String> {
    let mut text = text.to_owned();
    for edit in edits {
        if edit.old.is_empty() {
            // Only a new (empty) file is written from an empty old string.
            if !text.is_empty() {
                return None;
            }
            text = edit.new.to_owned();
        } else if !text.contains(edit.old) {
            return None;
        } else if edit.all {
            text = text.replace(edit.old, edit.new);
        } else {
            text = text.replacen(edit.old, edit.new, 1);
        }
    }
    Some(text)
}

/// `old` → `new` as a unified diff under `--- path` / `+++ path`; `None` when they are equal.
/// `whole` texts mark a missing last newline, as git does; an edit's strings are parts of a
/// line, so there it would be noise.
fn unified(path: &str, old: &str, new: &str, whole: bool) -> Option<String> {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let text = diff
        .unified_diff()
        .context_radius(CONTEXT)
        .header(path, path)
        .missing_newline_hint(whole)
        .to_string();
    (!text.is_empty()).then_some(text)
}

/// What the request's file holds now.
enum Current {
    Text(String),
    /// No file there: the call creates it.
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
        assert!(diff_of(&small)
            .unwrap()
            .ends_with("@@ -1 +1 @@\n-old\n+new\n"));
    }

    /// A file of `n` numbered lines.
    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    /// The diff's body lines by their first character, headers left out.
    fn counts(diff: &str) -> (usize, usize, usize, usize) {
        let body = || {
            diff.lines()
                .filter(|l| !l.starts_with("---") && !l.starts_with("+++"))
        };
        let starting = |c: char| body().filter(|l| l.starts_with(c)).count();
        (starting('@'), starting('-'), starting('+'), starting(' '))
    }

    #[test]
    fn a_one_line_edit_to_a_long_file_is_a_one_line_hunk() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("long.txt");
        std::fs::write(&file, numbered(2000)).unwrap();
        let path = file.display().to_string();
        let edit = json!({"file_path": path, "old_string": "line 1000\n", "new_string": "line one thousand\n"});
        let shown = diff("Edit", &path, &edit, true).unwrap();
        assert_eq!(counts(&shown), (1, 1, 1, 6), "{shown}");
        assert!(shown.starts_with(&format!("--- {path}\n+++ {path}\n@@ -997,7 +997,7 @@\n")));
        assert!(
            shown.contains("\n-line 1000\n+line one thousand\n line 1001\n"),
            "{shown}"
        );

        // The same change as a `Write` of the whole file.
        let content = numbered(2000).replace("line 1000\n", "line one thousand\n");
        let write = json!({"file_path": path, "content": content});
        assert_eq!(diff("Write", &path, &write, true), Some(shown));
    }

    #[test]
    fn edits_apply_to_the_file_in_order_or_show_their_strings() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "a\nx\nb\nx\n").unwrap();
        let path = file.display().to_string();
        let all =
            json!({"file_path": path, "old_string": "x", "new_string": "y", "replace_all": true});
        assert_eq!(
            counts(&diff("Edit", &path, &all, true).unwrap()),
            (1, 2, 2, 2)
        );
        let multi = json!({"file_path": path, "edits": [
            {"old_string": "a\n", "new_string": "A\n"},
            {"old_string": "A\nx", "new_string": "A\nz"},
        ]});
        let both = diff("MultiEdit", &path, &multi, true).unwrap();
        assert!(both.contains("-a\n-x\n+A\n+z\n"), "{both}");

        // Strings the file does not hold, a file not read in time, and a missing file.
        let stale = json!({"file_path": path, "old_string": "gone", "new_string": "new"});
        let strings = format!("--- {path}\n+++ {path}\n@@ -1 +1 @@\n-gone\n+new\n");
        assert_eq!(
            diff("Edit", &path, &stale, true).as_deref(),
            Some(&strings[..])
        );
        assert_eq!(
            diff("Edit", &path, &stale, false).as_deref(),
            Some(&strings[..])
        );
        let missing = dir.path().join("new.txt").display().to_string();
        let create = json!({"file_path": missing, "old_string": "", "new_string": "hi\n"});
        assert!(diff("Edit", &missing, &create, true)
            .unwrap()
            .ends_with("@@ -0,0 +1 @@\n+hi\n"));
        let same = json!({"file_path": path, "content": "a\nx\nb\nx\n"});
        assert_eq!(diff("Write", &path, &same, true), None, "nothing changes");
    }
}
