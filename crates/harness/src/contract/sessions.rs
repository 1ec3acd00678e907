//! Where a harness keeps its sessions on disk, in terms every harness shares: a root folder,
//! files a fixed number of folders below it, and an id in each file's name.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The shape of a harness's session folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLayout {
    /// How many levels below the root the session files sit (1 = directly in it).
    pub depth: usize,
    /// The start every session file's name has (`rollout-` for Codex), if any.
    pub file_prefix: Option<&'static str>,
}

impl SessionLayout {
    /// The `.jsonl` session files under `root`.
    pub fn files_under(&self, root: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        collect(root, self.depth, &mut out);
        out.retain(|p| {
            self.file_prefix.is_none_or(|prefix| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
        });
        out
    }
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if depth > 1 && path.is_dir() {
            collect(&path, depth - 1, out);
        } else if depth == 1 && path.extension().is_some_and(|e| e == "jsonl") && path.is_file() {
            out.push(path);
        }
    }
}

/// The first string `pick` finds in a session file's first lines (its header and first
/// records): what the session recorded when it began. Lines that are not JSON are skipped.
pub fn first_recorded(path: &Path, pick: impl Fn(&Value) -> Option<&Value>) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    for line in BufReader::new(file).lines().take(64) {
        let Ok(line) = line else { break };
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(found) = pick(&value).and_then(Value::as_str) {
            return Some(found.to_owned());
        }
    }
    None
}

/// A variable as the harness will see it: the last of its extra variables wins, else the
/// host's environment; empty counts as unset.
pub fn env_value(env: &[(String, String)], key: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var(key).ok())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_files_at_the_layout_depth_only() {
        let root = tempfile::tempdir().unwrap();
        let deep = root.path().join("2026/11/29");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("rollout-a.jsonl"), "").unwrap();
        std::fs::write(deep.join("other.jsonl"), "").unwrap();
        std::fs::write(root.path().join("2026/top.jsonl"), "").unwrap();
        let codex = SessionLayout {
            depth: 4,
            file_prefix: Some("rollout-"),
        };
        assert_eq!(
            codex.files_under(root.path()),
            vec![deep.join("rollout-a.jsonl")]
        );
        let two = SessionLayout {
            depth: 2,
            file_prefix: None,
        };
        assert_eq!(
            two.files_under(root.path()),
            vec![root.path().join("2026/top.jsonl")]
        );
    }

    #[test]
    fn reads_what_the_first_lines_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        let lines = [
            "not json",
            r#"{"type":"summary"}"#,
            r#"{"type":"session_meta","payload":{"cwd":"/inner"}}"#,
            r#"{"cwd":"/top","timestamp":"2026-12-01T10:00:00Z"}"#,
        ];
        std::fs::write(&file, lines.join("\n")).unwrap();
        let top = first_recorded(&file, |v| v.get("cwd"));
        assert_eq!(top.as_deref(), Some("/top"));
        let payload = first_recorded(&file, |v| v.get("payload")?.get("cwd"));
        assert_eq!(payload.as_deref(), Some("/inner"));
        assert_eq!(first_recorded(&file, |v| v.get("nothing")), None);
        assert_eq!(
            first_recorded(&dir.path().join("gone"), |v| v.get("cwd")),
            None
        );
    }
}
