//! A checkpoint made by editing the last one: its tree with exactly the paths a
//! [`crate::TreeWatch`] saw change written again, and nothing else read.
//!
//! Why not the index: every git plumbing call that touches an index parses all of it (4.4 MB
//! for 50,000 files) and `update-index` and `write-tree` each write it back, so even a status
//! limited to ten paths costs ~100 ms there. Editing the tree needs no index at all: the
//! changed files are hashed (`hash-object`, with the repository's clean filters and
//! attributes, as `update-index` would), and `fast-import` writes the commit whose tree is the
//! last one's with those entries replaced or deleted, reading only the trees on their paths.
//!
//! What a full scan would decide differently is handed back to it ([`Repo::edit_checkpoint`]
//! returns `None`): a changed `.gitignore` or `.gitattributes` (what is ignored or filtered
//! changes with it), a symlink among the paths or on their way, a folder where the last tree
//! has a file, a nested repository, a known file grown past the size limit
//! (only the real index can tell whether it is tracked), more than [`MAX_NEW_FOLDER_FILES`]
//! files in new folders, or a path git's line-based inputs cannot carry (a newline or a quote).
//!
//! A new folder is read here (its files may have been written before the watcher saw the
//! folder); a folder the last tree has already is left alone (its changed files are among the
//! paths themselves).

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Result;
use crate::oid::Oid;
use crate::recorded::Recorded;
use crate::repo::Repo;
use crate::snapshot::{SkipReason, Skipped};

/// What the edit wrote.
pub(crate) struct Edited {
    pub commit: Oid,
    pub skipped: Vec<Skipped>,
    /// Files that differ from the last checkpoint, when known without a diff (`None` when a
    /// folder was deleted: how many files it held is the diff's to say).
    pub files_changed: Option<usize>,
}

/// A tree entry of the last checkpoint, from `ls-tree`.
struct Entry {
    mode: String,
    kind: String,
    oid: String,
}

/// One changed path and what it is now.
enum Change {
    /// A regular file: written again (`exec` from its mode bits).
    File {
        exec: bool,
        len: u64,
    },
    Folder,
    Gone,
}

/// Paths per `ls-tree` call: 64 paths of Windows' usual 260 characters stay well inside its
/// 32,767-character command line.
const LS_TREE_PATHS: usize = 64;

/// Files in new folders read at most; past it, the full scan (a fresh clone, an install).
pub const MAX_NEW_FOLDER_FILES: usize = 1_000;

impl Repo {
    /// A checkpoint as an edit of `last` (whose commit must be its parent): `changed` are
    /// the paths (relative to the checkout's top) that may differ from its tree. `None` when
    /// only a full scan can decide (see the module docs); nothing is written then.
    pub(crate) fn edit_checkpoint(
        &self,
        size_limit: u64,
        r#ref: &str,
        message: &str,
        last: &Recorded,
        changed: &[String],
    ) -> Result<Option<Edited>> {
        let reading = last.reading;
        let mut now = BTreeMap::new();
        for path in changed {
            let name = path.rsplit('/').next().unwrap_or_default();
            if path.is_empty()
                || path.contains(['\n', '"'])
                || matches!(name, ".gitignore" | ".gitattributes")
                || !self.on_a_plain_path(path)
            {
                return Ok(None);
            }
            let Some(change) = self.change_of(path) else {
                return Ok(None);
            };
            now.insert(path.clone(), change);
        }
        let known = self.entries(&last.commit, now.keys().map(String::as_str))?;

        // New folders: their files, unless the folder is ignored as a whole.
        let mut new_folders = Vec::new();
        for (path, change) in &now {
            match (change, known.get(path)) {
                (Change::Folder, Some(entry)) if entry.kind == "tree" => {}
                (Change::Folder, Some(_)) => return Ok(None),
                (Change::Folder, None) => new_folders.push(path.clone()),
                _ => {}
            }
        }
        if !new_folders.is_empty() {
            let ignored = self.ignored(new_folders.iter().map(String::as_str))?;
            let mut found = Vec::new();
            for folder in new_folders.iter().filter(|f| !ignored.contains(*f)) {
                if !self.files_in(folder, &mut found)? {
                    return Ok(None);
                }
            }
            for path in found {
                let Some(change) = self
                    .change_of(&path)
                    .filter(|_| self.on_a_plain_path(&path))
                else {
                    return Ok(None);
                };
                now.insert(path, change);
            }
        }

        // (path, mode, the last tree's (mode, blob) for a known file)
        let mut write: Vec<(&str, String, Option<&Entry>)> = Vec::new();
        let mut delete: Vec<&str> = Vec::new();
        let mut folder_deleted = false;
        let mut new_files: Vec<(&str, bool)> = Vec::new();
        let mut skipped: Vec<Skipped> = last
            .skipped
            .iter()
            .filter(|s| !now.contains_key(s.path.as_str()))
            .cloned()
            .collect();
        for (path, change) in &now {
            let path = path.as_str();
            match (change, known.get(path)) {
                (Change::Folder, _) => {}
                (Change::Gone, Some(entry)) => {
                    folder_deleted |= entry.kind != "blob";
                    delete.push(path);
                }
                (Change::Gone, None) => {}
                (Change::File { exec, len }, Some(entry)) => {
                    // Past the limit it may be an untracked file grown large, which only the
                    // real index can tell from a tracked one.
                    if *len > size_limit {
                        return Ok(None);
                    }
                    let mode = match (reading.file_mode, entry.mode.as_str()) {
                        (true, _) => file_mode(*exec),
                        (false, kept @ ("100644" | "100755")) => kept,
                        // A file where the last tree had a link, a folder or a submodule.
                        (false, _) => file_mode(false),
                    };
                    write.push((path, mode.to_owned(), Some(entry)));
                }
                (Change::File { exec, len }, None) => {
                    if !reading.shows_untracked {
                        continue;
                    }
                    if *len > size_limit {
                        skipped.push(Skipped {
                            path: path.to_owned(),
                            reason: SkipReason::TooLarge(*len),
                        });
                        continue;
                    }
                    new_files.push((path, *exec && reading.file_mode));
                }
            }
        }
        if !new_files.is_empty() {
            let ignored = self.ignored(new_files.iter().map(|(p, _)| *p))?;
            for (path, exec) in new_files {
                if !ignored.contains(path) {
                    write.push((path, file_mode(exec).to_owned(), None));
                }
            }
        }
        skipped.sort_by(|a, b| a.path.cmp(&b.path));

        let blobs = self.hash_files(write.iter().map(|(p, _, _)| *p))?;
        // A file written back as it was (touched, or edited and undone) changes nothing.
        let writes: Vec<(&str, &str, &Oid)> = write
            .iter()
            .zip(&blobs)
            .filter(|((_, mode, was), blob)| {
                !was.is_some_and(|e| e.mode == *mode && e.oid == blob.as_str())
            })
            .map(|((path, mode, _), blob)| (*path, mode.as_str(), blob))
            .collect();
        if writes.is_empty() && delete.is_empty() {
            self.point(r#ref, message, &last.commit)?;
            return Ok(Some(Edited {
                commit: last.commit.clone(),
                skipped,
                files_changed: Some(0),
            }));
        }
        let mut script = format!(
            "commit {}\nmark :1\ncommitter Forkhost <forkhost@localhost> now\ndata {}\n{}\nfrom {}\n",
            r#ref,
            message.len(),
            message,
            last.commit.as_str()
        );
        for path in &delete {
            script.push_str(&format!("D {path}\n"));
        }
        for (path, mode, blob) in &writes {
            script.push_str(&format!("M {mode} {} {path}\n", blob.as_str()));
        }
        script.push_str("\nget-mark :1\n");
        let out = self
            .git
            .call(&self.root)
            // Its few objects stay loose (no tiny pack per turn), as update-index leaves them.
            .args(["-c", "fastimport.unpackLimit=100000"])
            .args(["fast-import", "--quiet", "--force", "--date-format=now"])
            .stdin(script.into_bytes())
            .run()?;
        let commit = Oid::from_output(&out)
            .ok_or_else(|| crate::git::failed("git fast-import".into(), b"no commit id"))?;
        Ok(Some(Edited {
            commit,
            skipped,
            files_changed: (!folder_deleted).then_some(writes.len() + delete.len()),
        }))
    }

    /// What `path` (relative to the top) is on disk now; `None` for what only a full scan
    /// settles (a symlink, a device, a path that cannot be read).
    fn change_of(&self, path: &str) -> Option<Change> {
        match std::fs::symlink_metadata(self.root.join(path)) {
            Ok(meta) if meta.is_file() => Some(Change::File {
                exec: is_executable(&meta),
                len: meta.len(),
            }),
            Ok(meta) if meta.is_dir() => Some(Change::Folder),
            Ok(_) => None,
            // Gone, or a folder on its path became a file.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                Some(Change::Gone)
            }
            // Unreadable (permissions): the full scan says what git makes of it.
            Err(_) => None,
        }
    }

    /// Adds the files under the new folder `folder` to `found`; `false` when a full scan must
    /// decide instead (a nested repository, a symlink, more than [`MAX_NEW_FOLDER_FILES`]).
    fn files_in(&self, folder: &str, found: &mut Vec<String>) -> Result<bool> {
        let mut stack = vec![folder.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(self.root.join(&dir))? {
                let entry = entry?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    return Ok(false);
                };
                if name == ".git" {
                    return Ok(false);
                }
                let path = format!("{dir}/{name}");
                let kind = entry.file_type()?;
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file() {
                    found.push(path);
                    if found.len() > MAX_NEW_FOLDER_FILES {
                        return Ok(false);
                    }
                } else {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The entries of `commit`'s tree at `paths` (absent ones are not in the map).
    fn entries<'p>(
        &self,
        commit: &Oid,
        paths: impl Iterator<Item = &'p str>,
    ) -> Result<BTreeMap<String, Entry>> {
        let mut found = BTreeMap::new();
        let paths: Vec<&str> = paths.collect();
        for chunk in paths.chunks(LS_TREE_PATHS) {
            // ls-tree's paths are literal (it never expands wildcards), from the top with
            // --full-tree. `-r -t`: every folder on a path is listed as the tree it is (without
            // them, asking for `a` and `a/b` lists `a/b` alone), and a folder's files with it.
            let out = self
                .git
                .call(&self.root)
                .args([
                    "ls-tree",
                    "-r",
                    "-t",
                    "-z",
                    "--full-tree",
                    commit.as_str(),
                    "--",
                ])
                .args(chunk)
                .run()?;
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            for record in crate::git::nul_records(&out) {
                if let Some(([mode, kind, oid], path)) = crate::git::words_and_path(record) {
                    found.insert(
                        text(path),
                        Entry {
                            mode: text(mode),
                            kind: text(kind),
                            oid: text(oid),
                        },
                    );
                }
            }
        }
        Ok(found)
    }

    /// Which of `paths` the repository's ignore rules exclude (the index is not consulted: a
    /// path not in the last tree is untracked there).
    fn ignored<'p>(
        &self,
        paths: impl Iterator<Item = &'p str>,
    ) -> Result<std::collections::BTreeSet<String>> {
        let out = self
            .git
            .call(&self.root)
            .args(["check-ignore", "--no-index", "-z", "--stdin"])
            .stdin(crate::git::nul_joined(paths))
            .output()?;
        // Exit 1 (no output, nothing on stderr): none is ignored; 128: a real failure.
        if !out.success && !out.stderr.is_empty() {
            return Err(crate::git::failed("git check-ignore".into(), &out.stderr));
        }
        Ok(crate::git::nul_fields(&out.stdout).collect())
    }

    /// Writes the files as blobs (clean filters and attributes applied by path) and returns
    /// their ids in order.
    fn hash_files<'p>(&self, paths: impl Iterator<Item = &'p str>) -> Result<Vec<Oid>> {
        let mut input = String::new();
        for path in paths {
            input.push_str(path);
            input.push('\n');
        }
        if input.is_empty() {
            return Ok(Vec::new());
        }
        let out = self
            .git
            .call(&self.root)
            .args(["hash-object", "-w", "--stdin-paths"])
            .stdin(input.into_bytes())
            .run()?;
        String::from_utf8_lossy(&out)
            .lines()
            .map(str::parse)
            .collect()
    }

    /// Whether every folder between the checkout's top and `path` is an ordinary folder of
    /// this repository: not a repository of its own (a `.git` in it, whose files a full scan
    /// leaves out) and not a symlink (git sees the link, never what lies behind it).
    fn on_a_plain_path(&self, path: &str) -> bool {
        let mut dir = Path::new(path).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            let folder = self.root.join(d);
            let is_link =
                std::fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink());
            if is_link || std::fs::symlink_metadata(folder.join(".git")).is_ok() {
                return false;
            }
            dir = d.parent();
        }
        true
    }
}

fn file_mode(exec: bool) -> &'static str {
    match exec {
        true => "100755",
        false => "100644",
    }
}

/// Whether the owner may run the file (git's own test); never on Windows, where a file's mode
/// is the last tree's (`core.fileMode` is false there).
fn is_executable(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o100 != 0
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::Git;

    fn repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().unwrap();
        let git = Git::new()
            .unwrap()
            .env("GIT_CONFIG_GLOBAL", dir.path().join("none"))
            .env("GIT_CONFIG_NOSYSTEM", "1");
        git.call(dir.path()).args(["init", "-q"]).run().unwrap();
        let repo = Repo::discover(&git, dir.path()).unwrap().unwrap();
        (dir, repo)
    }

    /// A path lstat cannot answer for (here a name longer than any file system allows; for a
    /// user, one in a folder they may not read) is no deletion: the full scan judges it.
    #[test]
    fn a_path_that_cannot_be_read_is_left_to_the_full_scan() {
        let (_dir, repo) = repo();
        assert!(repo.change_of(&"x".repeat(300)).is_none());
        assert!(matches!(repo.change_of("gone.txt"), Some(Change::Gone)));
    }

    /// check-ignore failing (a path outside the work tree) is an error, not "nothing ignored".
    #[test]
    fn a_failed_ignore_check_is_an_error() {
        let (_dir, repo) = repo();
        assert!(repo.ignored(["../outside.txt"].into_iter()).is_err());
        assert!(repo.ignored(["inside.txt"].into_iter()).unwrap().is_empty());
    }
}
