//! Bringing a fork's changes back: the changes between two commits written into another checkout
//! as uncommitted edits. The target's index is never touched (`git apply` without `--index`), and
//! a refusal leaves every byte of the target as it was: the conflict check and `apply --check`
//! both run before anything is written.

use std::path::Path;

use crate::error::{Result, WorktreeError};
use crate::oid::Oid;
use crate::repo::Repo;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Repository-relative paths now changed in the target (both sides of a rename).
    pub files: Vec<String>,
}

impl Repo {
    /// Applies `from..to` to the files of `target_folder` as uncommitted changes. Refuses with
    /// [`WorktreeError::Conflict`] when a touched file in the target has uncommitted changes that
    /// make it differ from its version at `from` (the target moved on there: applying would mix
    /// the two), or the patch does not apply cleanly. A touched file that is uncommitted but
    /// exactly as it was at `from` (the common case of a fork point that was never committed)
    /// takes the changes.
    pub fn apply_changes(&self, from: &Oid, to: &Oid, target_folder: &Path) -> Result<Applied> {
        let from = self.commit(from)?;
        let to = self.commit(to)?;
        let target = self.sibling(target_folder)?;

        let mut touched: Vec<String> = Vec::new();
        for f in self.diff(&from, &to)? {
            touched.extend(f.old_path);
            touched.push(f.path);
        }
        touched.sort();
        touched.dedup();
        if touched.is_empty() {
            return Ok(Applied { files: touched });
        }

        let dirty = target.uncommitted()?;
        let mut clashes: Vec<String> = Vec::new();
        for path in touched.iter().filter(|p| dirty.binary_search(p).is_ok()) {
            if target.blob_in_folder(path)? != self.blob_at(&from, path)? {
                clashes.push(path.clone());
            }
        }
        if !clashes.is_empty() {
            return Err(WorktreeError::Conflict { paths: clashes });
        }

        let patch = self
            .git
            .call(&self.root)
            .args([
                "diff-tree",
                "-r",
                "-p",
                "--binary",
                "--find-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                from.as_str(),
                to.as_str(),
            ])
            .run()?;
        // `apply.whitespace=error` in a user's config must not turn a clean patch into a refusal.
        let apply = |check: bool| {
            let mut call = target
                .git
                .call(&target.root)
                .args(["apply", "--whitespace=nowarn"]);
            if check {
                call = call.arg("--check");
            }
            call.stdin(patch.clone()).output()
        };
        let checked = apply(true)?;
        if !checked.success {
            let stderr = String::from_utf8_lossy(&checked.stderr);
            let mut paths: Vec<String> = touched
                .iter()
                .filter(|p| stderr.contains(p.as_str()))
                .cloned()
                .collect();
            if paths.is_empty() {
                paths = touched;
            }
            return Err(WorktreeError::Conflict { paths });
        }
        let done = apply(false)?;
        if !done.success {
            return Err(crate::git::failed("git apply".into(), &done.stderr));
        }
        tracing::info!(files = touched.len(), "changes applied");
        Ok(Applied { files: touched })
    }

    /// The blob id of `path` in commit `at`, `None` when it has no such file.
    fn blob_at(&self, at: &Oid, path: &str) -> Result<Option<String>> {
        let out = self
            .git
            .call(&self.root)
            .args(["rev-parse", "--verify", "-q"])
            .arg(format!("{}:{path}", at.as_str()))
            .output()?;
        Ok(out
            .success
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()))
    }

    /// The blob id `path`'s current content in this checkout would have, `None` when there is
    /// no such file.
    fn blob_in_folder(&self, path: &str) -> Result<Option<String>> {
        if !self.root.join(path).is_file() {
            return Ok(None);
        }
        let out = self
            .git
            .call(&self.root)
            .args(["hash-object", "--", path])
            .run()?;
        Ok(Some(String::from_utf8_lossy(&out).trim().to_owned()))
    }
}
