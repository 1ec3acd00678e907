//! What changed between two commits: per-file statuses and line counts, and the unified text.

use std::collections::HashMap;
use std::path::Path;

use crate::error::Result;
use crate::oid::Oid;
use crate::repo::Repo;
use crate::snapshot::DEFAULT_SIZE_LIMIT;

/// What happened to one file, in the words the Host's views carry (`added`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// One file's change with its own unified diff (from its `diff --git` line; "Binary files
/// differ" for a binary file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub file: FileDiff,
    pub text: String,
}

/// Options every diff here shares: renames found, no user diff drivers or text conversions
/// (those run programs and change what "a line" is).
const DIFF_OPTS: &[&str] = &[
    "-r",
    "-z",
    "--find-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
];

impl Repo {
    /// The files that differ between two commits (or trees).
    pub fn diff(&self, from: &Oid, to: &Oid) -> Result<Vec<FileDiff>> {
        let out = self.diff_tree(from, to, false)?;
        Ok(parse_diff_tree(&out)
            .0
            .into_iter()
            .map(|l| l.file)
            .collect())
    }

    /// The files that differ between two commits, each with its unified diff: one git call,
    /// so the list and the texts always describe the same change.
    pub fn diff_with_patches(&self, from: &Oid, to: &Oid) -> Result<Vec<FilePatch>> {
        let out = self.diff_tree(from, to, true)?;
        let (files, patch) = parse_diff_tree(&out);
        Ok(with_patches(files, &patch))
    }

    /// `git diff-tree` with the raw list (statuses, old and new paths) and line counts, and
    /// with `patch` the unified diff after them.
    fn diff_tree(&self, from: &Oid, to: &Oid, patch: bool) -> Result<Vec<u8>> {
        let mut call = self
            .git
            .call(&self.root)
            .arg("diff-tree")
            .args(DIFF_OPTS)
            .args(["--raw", "--numstat"]);
        if patch {
            call = call.arg("-p");
        }
        call.args([from.as_str(), to.as_str()]).run()
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

/// One file of the raw list, and how many `diff --git` parts its patch has: two for a file
/// that became a symlink (or back), which git patches as a deletion and a creation.
pub(crate) struct Listed {
    pub(crate) file: FileDiff,
    parts: usize,
}

/// `diff-tree -z --raw --numstat [-p]`'s output: the raw entries (`:modes oids STATUS\0path\0`,
/// two paths for a rename or copy), then the counts (`added\tremoved\tpath\0`, or
/// `added\tremoved\t\0old\0new\0`; `-` for a binary file), then, with `-p`, an empty field and
/// the patch text. The files in git's order, their counts joined by path, and the patch.
pub(crate) fn parse_diff_tree(bytes: &[u8]) -> (Vec<Listed>, String) {
    let mut files = Vec::new();
    let mut counts: HashMap<String, (Option<usize>, Option<usize>)> = HashMap::new();
    let mut rest = bytes;
    let mut field = || -> Option<String> {
        let end = rest.iter().position(|b| *b == 0)?;
        let text = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 1..];
        Some(text)
    };
    while let Some(head) = field() {
        if head.is_empty() {
            break;
        }
        if let Some(raw) = head.strip_prefix(':') {
            let code = raw.rsplit(' ').next().unwrap_or_default();
            let file = |path, old_path, status| FileDiff {
                path,
                old_path,
                status,
                added_lines: 0,
                removed_lines: 0,
                binary: false,
            };
            let entry = match code.chars().next() {
                Some(kind @ ('R' | 'C')) => {
                    let (Some(old), Some(new)) = (field(), field()) else {
                        break;
                    };
                    let status = match kind {
                        'R' => FileStatus::Renamed,
                        _ => FileStatus::Added,
                    };
                    file(new, Some(old), status)
                }
                kind => {
                    let Some(path) = field() else { break };
                    let status = match kind {
                        Some('A') => FileStatus::Added,
                        Some('D') => FileStatus::Deleted,
                        _ => FileStatus::Modified,
                    };
                    file(path, None, status)
                }
            };
            let parts = if code.starts_with('T') { 2 } else { 1 };
            files.push(Listed { file: entry, parts });
            continue;
        }
        let mut parts = head.splitn(3, '\t');
        let (Some(a), Some(r), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let path = match path.is_empty() {
            true => match (field(), field()) {
                (Some(_old), Some(new)) => new,
                _ => break,
            },
            false => path.to_owned(),
        };
        counts.insert(path, (a.parse().ok(), r.parse().ok()));
    }
    let patch = String::from_utf8_lossy(rest).into_owned();
    for listed in &mut files {
        let f = &mut listed.file;
        match counts.get(&f.path) {
            Some((Some(a), Some(r))) => (f.added_lines, f.removed_lines) = (*a, *r),
            Some(_) => f.binary = true,
            None => {}
        }
    }
    (files, patch)
}

/// Cuts the patch at its `diff --git` lines (inside a hunk every line starts with ` `, `+`,
/// `-` or `\\`, so such a line is always a file's header) and gives each file its parts, in
/// the order git listed both.
fn with_patches(files: Vec<Listed>, patch: &str) -> Vec<FilePatch> {
    let mut starts: Vec<usize> = patch
        .match_indices("diff --git ")
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || patch.as_bytes()[i - 1] == b'\n')
        .collect();
    starts.push(patch.len());
    let mut next = 0;
    files
        .into_iter()
        .map(|Listed { file, parts }| {
            let from = starts[next.min(starts.len() - 1)];
            next += parts;
            let to = starts[next.min(starts.len() - 1)];
            FilePatch {
                file,
                text: patch[from..to].to_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_with_fewer_file_headers_than_listed_gives_the_rest_empty_texts_and_never_panics() {
        let listed = |path: &str, parts| Listed {
            file: FileDiff {
                path: path.into(),
                old_path: None,
                status: FileStatus::Modified,
                added_lines: 0,
                removed_lines: 0,
                binary: false,
            },
            parts,
        };
        let patch = "diff --git a/a b/a\n+x\n";
        // `a` claims two parts (a type change is two), but the patch holds only one.
        let patches = with_patches(vec![listed("a", 2), listed("b", 1)], patch);
        let texts: Vec<_> = patches.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, [patch, ""]);
    }

    #[test]
    fn a_files_status_reads_as_the_word_the_cli_prints_and_the_views_carry() {
        use FileStatus::*;
        assert_eq!(
            [Added, Modified, Deleted, Renamed].map(FileStatus::as_str),
            ["added", "modified", "deleted", "renamed"]
        );
    }

    #[test]
    fn one_diff_tree_call_gives_statuses_counts_and_each_files_patch() {
        let raw = concat!(
            ":100644 100644 a1 b1 M\0a b.txt\0",
            ":000000 100644 00 c1 A\0bin\0",
            ":100644 100644 d1 e1 R087\0old\0new\0",
            ":100644 120000 f1 g1 T\0link\0",
            "1\t2\ta b.txt\0-\t-\tbin\0",
            "3\t0\t\0old\0new\0",
            "1\t1\tlink\0",
            "\0",
            "diff --git a/a b.txt b/a b.txt\n@@ -1 +1 @@\n-x\n+diff --git y\n",
            "diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n",
            "diff --git a/old b/new\nrename from old\n",
            "diff --git a/link b/link\ndeleted file mode 100644\n",
            "diff --git a/link b/link\nnew file mode 120000\n",
        );
        let (files, patch) = parse_diff_tree(raw.as_bytes());
        let patches = with_patches(files, &patch);
        let short: Vec<_> = patches
            .iter()
            .map(|p| {
                let f = &p.file;
                let counts = (f.added_lines, f.removed_lines, f.binary);
                (f.path.as_str(), f.old_path.as_deref(), f.status, counts)
            })
            .collect();
        assert_eq!(
            short,
            vec![
                ("a b.txt", None, FileStatus::Modified, (1, 2, false)),
                ("bin", None, FileStatus::Added, (0, 0, true)),
                ("new", Some("old"), FileStatus::Renamed, (3, 0, false)),
                ("link", None, FileStatus::Modified, (1, 1, false)),
            ]
        );
        let texts: Vec<&str> = patches.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "diff --git a/a b.txt b/a b.txt\n@@ -1 +1 @@\n-x\n+diff --git y\n",
                "diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n",
                "diff --git a/old b/new\nrename from old\n",
                "diff --git a/link b/link\ndeleted file mode 100644\ndiff --git a/link b/link\nnew file mode 120000\n",
            ]
        );
        // Without `-p` the output ends after the counts.
        let counts_only = format!("{}\0", raw.split("\0\0").next().unwrap());
        let listed = parse_diff_tree(counts_only.as_bytes()).0;
        assert_eq!(listed.len(), 4);
        assert_eq!(
            (listed[3].file.added_lines, listed[3].file.removed_lines),
            (1, 1)
        );
        assert_eq!(parse_diff_tree(b"").0.len(), 0);
    }
}
