//! What changed between two commits: per-file statuses and line counts, and the unified text.

use std::path::Path;

use crate::error::Result;
use crate::oid::Oid;
use crate::repo::Repo;
use crate::snapshot::DEFAULT_SIZE_LIMIT;

/// What happened to one file, in the words the Host's views carry (`added`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Modified => "modified",
            FileStatus::Deleted => "deleted",
            FileStatus::Renamed => "renamed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The path after the change (the old path for a deletion).
    pub path: String,
    /// The path before a rename.
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub added_lines: usize,
    pub removed_lines: usize,
    pub binary: bool,
}

/// Options every diff here shares: renames found, no user diff drivers or text conversions
/// (those run programs and change what "a line" is).
const DIFF_OPTS: &[&str] = &[
    "-r",
    "-z",
    "--find-renames",
    "--no-ext-diff",
    "--no-textconv",
];

impl Repo {
    /// The files that differ between two commits (or trees).
    pub fn diff(&self, from: &Oid, to: &Oid) -> Result<Vec<FileDiff>> {
        let statuses = self
            .git
            .call(&self.root)
            .arg("diff-tree")
            .args(DIFF_OPTS)
            .args(["--name-status", from.as_str(), to.as_str()])
            .run()?;
        let mut files = parse_name_status(&statuses);
        let counts = self
            .git
            .call(&self.root)
            .arg("diff-tree")
            .args(DIFF_OPTS)
            .args(["--numstat", from.as_str(), to.as_str()])
            .run()?;
        for (path, added, removed) in parse_numstat(&counts) {
            if let Some(f) = files.iter_mut().find(|f| f.path == path) {
                match (added, removed) {
                    (Some(a), Some(r)) => {
                        f.added_lines = a;
                        f.removed_lines = r;
                    }
                    _ => f.binary = true,
                }
            }
        }
        Ok(files)
    }

    /// The unified diff between two commits, for one path or all of them. Binary files show as
    /// "Binary files differ".
    pub fn unified_diff(&self, from: &Oid, to: &Oid, path: Option<&str>) -> Result<String> {
        let mut call = self
            .git
            .call(&self.root)
            .env("GIT_LITERAL_PATHSPECS", "1")
            .args([
                "diff-tree",
                "-r",
                "-p",
                "--find-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                from.as_str(),
                to.as_str(),
            ]);
        if let Some(p) = path {
            call = call.args(["--", p]);
        }
        Ok(String::from_utf8_lossy(&call.run()?).into_owned())
    }

    /// The changes from a checkpoint to the current files of `folder` (this checkout or another
    /// worktree of the repository). The files are read through a temporary index; nothing is
    /// committed and no ref is written (the tree's new blobs stay loose until git's gc).
    pub fn diff_worktree_since(&self, folder: &Path, from: &Oid) -> Result<Vec<FileDiff>> {
        let from = self.commit(from)?;
        let checkout = self.sibling(folder)?;
        let now = checkout.snapshot(DEFAULT_SIZE_LIMIT, Some(folder))?;
        checkout.diff(&from, &now.tree)
    }
}

fn parse_name_status(bytes: &[u8]) -> Vec<FileDiff> {
    let mut fields = bytes
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let mut out = Vec::new();
    while let Some(code) = fields.next() {
        let Some(kind) = code.chars().next() else {
            continue;
        };
        let file = |path: String, old_path: Option<String>, status| FileDiff {
            path,
            old_path,
            status,
            added_lines: 0,
            removed_lines: 0,
            binary: false,
        };
        match kind {
            'R' | 'C' => {
                let (Some(old), Some(new)) = (fields.next(), fields.next()) else {
                    break;
                };
                let status = if kind == 'R' {
                    FileStatus::Renamed
                } else {
                    FileStatus::Added
                };
                out.push(file(new, Some(old), status));
            }
            _ => {
                let Some(path) = fields.next() else { break };
                let status = match kind {
                    'A' => FileStatus::Added,
                    'D' => FileStatus::Deleted,
                    _ => FileStatus::Modified,
                };
                out.push(file(path, None, status));
            }
        }
    }
    out
}

/// `(path, added, removed)`; counts are `None` for binary files. With `-z`, a rename is
/// `added\tremoved\t\0old\0new\0`.
fn parse_numstat(bytes: &[u8]) -> Vec<(String, Option<usize>, Option<usize>)> {
    let mut fields = bytes
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let mut out = Vec::new();
    while let Some(head) = fields.next() {
        let mut parts = head.splitn(3, '\t');
        let (Some(a), Some(r), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let path = if path.is_empty() {
            let _old = fields.next();
            match fields.next() {
                Some(new) => new,
                None => break,
            }
        } else {
            path.to_owned()
        };
        out.push((path, a.parse().ok(), r.parse().ok()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_reads_renames_and_binaries() {
        let raw = b"1\t2\ta b.txt\0-\t-\tbin\x00\x33\t0\t\0old\0new\0";
        let parsed = parse_numstat(raw);
        assert_eq!(
            parsed,
            vec![
                ("a b.txt".into(), Some(1), Some(2)),
                ("bin".into(), None, None),
                ("new".into(), Some(3), Some(0)),
            ]
        );
    }

    #[test]
    fn name_status_reads_renames() {
        let raw = b"M\0a\0R087\0old\0new\0D\0gone\0A\0fresh\0";
        let parsed = parse_name_status(raw);
        let short: Vec<_> = parsed
            .iter()
            .map(|f| (f.path.as_str(), f.old_path.as_deref(), f.status))
            .collect();
        assert_eq!(
            short,
            vec![
                ("a", None, FileStatus::Modified),
                ("new", Some("old"), FileStatus::Renamed),
                ("gone", None, FileStatus::Deleted),
                ("fresh", None, FileStatus::Added),
            ]
        );
    }
}
