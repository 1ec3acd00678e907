//! The working files of a checkout as a tree object, written through a private copy of its index.
//!
//! Why a copy of the real index: it carries the stat data of every tracked file, so git re-hashes
//! only files whose stat changed (the same work `git status` does), and the cache-tree extension
//! lets `write-tree` reuse unchanged subtrees. Why a copy and not the real one: every write goes
//! to the copy (`GIT_INDEX_FILE`), so the user's index, staged changes included, is never
//! touched; the copy is deleted when the snapshot is done. Staged changes are in the copy
//! already, so only the working-file side of `status` needs staging.
//!
//! Why a scope: the repository holding a thread's folder may be far larger than the folder (a
//! dotfiles repository in the home folder holds every secret the user has). Only the thread's
//! folder is walked and re-read: working-file changes and untracked files elsewhere are left
//! out, and tracked files elsewhere keep their index contents (already in the repository).
//! A repository configured `status.showUntrackedFiles=no` (the dotfiles convention: "only what
//! I added") gets no untracked files at all.

use std::path::Path;

use crate::error::{Result, WorktreeError};
use crate::git::nul_joined;
use crate::oid::Oid;
use crate::repo::Repo;

/// Untracked files bigger than this are left out of a checkpoint by default (build outputs,
/// datasets and videos a `.gitignore` forgot would otherwise be copied into the object store).
pub const DEFAULT_SIZE_LIMIT: u64 = 20 * 1024 * 1024;

/// An untracked file a checkpoint left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub reason: SkipReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Larger than the size limit (the size in bytes).
    TooLarge(u64),
    /// A nested git repository; recording it would store a bare gitlink, not its files.
    NestedRepository,
}

pub(crate) struct Snapshot {
    pub tree: Oid,
    pub skipped: Vec<Skipped>,
    /// HEAD's commit as `status` saw it (`None` when unborn), saving a `rev-parse`.
    pub head: Option<Oid>,
    /// `status.showUntrackedFiles` as this snapshot applied it.
    pub shows_untracked: bool,
}

/// What one `status` pass says must change in the index copy.
#[derive(Debug, Default, PartialEq, Eq)]
struct Pending {
    /// Paths whose working file differs from the index (modified, deleted, unmerged, added).
    update: Vec<String>,
    /// Untracked files to add (size checked by the caller).
    untracked: Vec<String>,
    /// Untracked nested repositories (shown as `dir/`).
    nested: Vec<String>,
    head: Option<Oid>,
}

impl Repo {
    /// Writes the checkout's current files (tracked and untracked, `.gitignore` respected,
    /// untracked files over `size_limit` skipped) as a tree. Only new blobs are written.
    ///
    /// Three git passes: one `status` (the stat refresh and untracked walk `git status` itself
    /// does, on the copy), one `update-index` fed exactly the paths that differ, one `write-tree`.
    ///
    /// `within` (a folder inside the checkout) limits the walk to that folder; `None` is the
    /// whole checkout.
    pub(crate) fn snapshot(&self, size_limit: u64, within: Option<&Path>) -> Result<Snapshot> {
        let scope = match within {
            Some(folder) => self.pathspec_of(folder)?,
            None => None,
        };
        let shows_untracked = self.shows_untracked()?;
        let untracked = if shows_untracked {
            "--untracked-files=all"
        } else {
            "--untracked-files=no"
        };
        let temp = tempfile::Builder::new()
            .prefix("forkhost-index-")
            .tempdir()?;
        let index = temp.path().join("index");
        // With GIT_INDEX_FILE never inherited, a checkout's index is always `<git dir>/index`.
        let real_index = self.git_dir.join("index");
        match std::fs::copy(&real_index, &index) {
            // Git re-reads an entry no older than the index file ("racily clean": its file may
            // have changed in the same clock tick, unseen by its stat); the copy must keep the
            // real index's time for that, or such an edit is left out.
            Ok(_) => keep_modified(&real_index, &index)?,
            // No index yet (fresh `git init`): start from an empty one.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }

        let mut status = self
            .git
            .call(&self.root)
            .env("GIT_INDEX_FILE", &index)
            .args([
                "status",
                "--porcelain=v2",
                "--branch",
                "-z",
                untracked,
                "--no-renames",
            ]);
        if let Some(scope) = &scope {
            status = status.arg("--").arg(scope);
        }
        let status = status.run()?;
        let pending = parse_status(&status);

        let mut skipped: Vec<Skipped> = pending
            .nested
            .into_iter()
            .map(|path| Skipped {
                path,
                reason: SkipReason::NestedRepository,
            })
            .collect();
        let mut paths = pending.update;
        for path in pending.untracked {
            match std::fs::symlink_metadata(self.root.join(&path)) {
                Ok(meta) if meta.is_file() && meta.len() > size_limit => skipped.push(Skipped {
                    path,
                    reason: SkipReason::TooLarge(meta.len()),
                }),
                // Gone since the status pass: nothing to record.
                Err(_) => {}
                Ok(_) => paths.push(path),
            }
        }

        if !paths.is_empty() {
            // Paths on stdin are literal (no pathspec magic); --remove drops deleted files,
            // --replace settles a file that became a folder or the reverse.
            self.git
                .call(&self.root)
                .env("GIT_INDEX_FILE", &index)
                .args([
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ])
                .stdin(nul_joined(paths.iter().map(String::as_str)))
                .run()?;
        }

        let tree = self
            .git
            .call(&self.root)
            .env("GIT_INDEX_FILE", &index)
            .arg("write-tree")
            .run()?;
        let tree = Oid::from_output(&tree).ok_or_else(|| {
            crate::git::failed("git write-tree".into(), b"no tree id in the output")
        })?;
        if !skipped.is_empty() {
            tracing::info!(count = skipped.len(), "checkpoint skipped untracked files");
        }
        // In path order, as an edit of this checkpoint lists them (`tree_edit`).
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Snapshot {
            tree,
            skipped,
            head: pending.head,
            shows_untracked,
        })
    }
}

impl Repo {
    /// `folder` as a literal pathspec relative to the checkout's top, `None` for the top
    /// itself. A folder outside the checkout is [`WorktreeError::NotARepository`].
    fn pathspec_of(&self, folder: &Path) -> Result<Option<String>> {
        // `literal`: a folder named `*` or `:x` means itself, not a pattern.
        Ok(self
            .relative_of(folder)?
            .map(|rel| format!(":(literal){rel}")))
    }

    /// `folder` relative to the checkout's top, `/`-separated, `None` for the top itself. A
    /// folder outside the checkout is [`WorktreeError::NotARepository`].
    pub(crate) fn relative_of(&self, folder: &Path) -> Result<Option<String>> {
        let real = folder.canonicalize()?;
        let root = self.root.canonicalize()?;
        let Ok(rel) = real.strip_prefix(&root) else {
            return Err(WorktreeError::NotARepository(folder.to_owned()));
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.is_empty() {
            return Ok(None);
        }
        Ok(Some(parts.join("/")))
    }

    /// Whether the repository wants untracked files seen (`status.showUntrackedFiles` is not
    /// `no`/false). One `git config` call: its value may come from any config file.
    pub(crate) fn shows_untracked(&self) -> Result<bool> {
        let out = self
            .git
            .call(&self.root)
            .args(["config", "--get", "status.showUntrackedFiles"])
            .output()?;
        // Exit 1: not set, git's default (`normal`).
        let value = String::from_utf8_lossy(&out.stdout)
            .trim()
            .to_ascii_lowercase();
        Ok(!matches!(value.as_str(), "no" | "false" | "off" | "0"))
    }
}

/// Gives `copy` the modification time of `original`.
fn keep_modified(original: &Path, copy: &Path) -> std::io::Result<()> {
    let modified = std::fs::metadata(original)?.modified()?;
    std::fs::File::options()
        .write(true)
        .open(copy)?
        .set_modified(modified)
}

/// Reads `git status --porcelain=v2 --branch -z --no-renames`.
fn parse_status(bytes: &[u8]) -> Pending {
    let mut pending = Pending::default();
    let mut fields = bytes
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    while let Some(entry) = fields.next() {
        let mut kind = entry.splitn(2, ' ');
        let (Some(tag), Some(rest)) = (kind.next(), kind.next()) else {
            continue;
        };
        match tag {
            "#" => {
                if let Some(oid) = rest.strip_prefix("branch.oid ") {
                    pending.head = oid.parse().ok();
                }
            }
            // Ordinary: `XY sub mH mI mW hH hI path`; only a worktree-side change (Y) matters,
            // staged changes are already in the index copy.
            "1" => {
                let parts: Vec<&str> = rest.splitn(8, ' ').collect();
                if let [xy, .., path] = parts.as_slice() {
                    if parts.len() == 8 && !xy.ends_with('.') {
                        pending.update.push((*path).to_owned());
                    }
                }
            }
            // Renamed (only without --no-renames): the new path and, in the next field, the old.
            "2" => {
                let parts: Vec<&str> = rest.splitn(9, ' ').collect();
                if parts.len() == 9 {
                    pending.update.push(parts[8].to_owned());
                }
                if let Some(orig) = fields.next() {
                    pending.update.push(orig);
                }
            }
            // Unmerged: `XY sub m1 m2 m3 mW h1 h2 h3 path`; the working file settles it.
            "u" => {
                let parts: Vec<&str> = rest.splitn(10, ' ').collect();
                if parts.len() == 10 {
                    pending.update.push(parts[9].to_owned());
                }
            }
            "?" => {
                if rest.ends_with('/') {
                    pending.nested.push(rest.to_owned());
                } else {
                    pending.untracked.push(rest.to_owned());
                }
            }
            _ => {}
        }
    }
    pending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_entries_become_index_updates() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        let raw = format!(
            "# branch.oid {oid}\0# branch.head main\0\
             1 .M N... 100644 100644 100644 {oid} {oid} dir/a b.txt\0\
             1 M. N... 100644 100644 100644 {oid} {oid} staged only.txt\0\
             1 .D N... 100644 100644 000000 {oid} {oid} gone.txt\0\
             u UU N... 100644 100644 100644 100644 {oid} {oid} {oid} conflict.txt\0\
             ? new file.txt\0? nested/\0"
        );
        let p = parse_status(raw.as_bytes());
        assert_eq!(p.head.as_ref().map(Oid::as_str), Some(oid));
        assert_eq!(p.update, vec!["dir/a b.txt", "gone.txt", "conflict.txt"]);
        assert_eq!(p.untracked, vec!["new file.txt"]);
        assert_eq!(p.nested, vec!["nested/"]);
        let unborn = parse_status(b"# branch.oid (initial)\0? x\0");
        assert_eq!(unborn.head, None);
    }

    /// A rename (should a git ever report one despite `--no-renames`) updates both its paths,
    /// the old one to drop it, and its second field is a path, not the next entry.
    #[test]
    fn a_renamed_entry_updates_both_paths() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        let raw = format!(
            "2 R. N... 100644 100644 100644 {oid} {oid} R100 new name.txt\0old name.txt\0\
             ? after.txt\0"
        );
        let p = parse_status(raw.as_bytes());
        assert_eq!(p.update, vec!["new name.txt", "old name.txt"]);
        assert_eq!(p.untracked, vec!["after.txt"]);
    }
}
