//! `.worktreeinclude`: gitignored files (such as `.env`) a new worktree needs but git would not
//! check out. The file at the source's root holds gitignore-style patterns; a file is copied when
//! it exists in the source, git ignores it, and a pattern matches it. Matching is git's own
//! (`ls-files --exclude-from`, `check-ignore`), so the patterns mean what they mean in a
//! `.gitignore`.

use std::path::Path;

use crate::error::Result;
use crate::git::{nul_fields, nul_joined};
use crate::repo::Repo;

pub const INCLUDE_FILE: &str = ".worktreeinclude";

impl Repo {
    /// Copies the source checkout's matching ignored files into `dest`, never overwriting a file
    /// already there. Returns the copied paths.
    pub(crate) fn copy_included(&self, dest: &Path) -> Result<Vec<String>> {
        let patterns = self.root.join(INCLUDE_FILE);
        if !patterns.is_file() {
            return Ok(Vec::new());
        }
        // Untracked files the include patterns match (used as ignore rules, inverted by -i).
        let matched = self
            .git
            .call(&self.root)
            .args(["ls-files", "-z", "--others", "--ignored"])
            .arg({
                let mut a = std::ffi::OsString::from("--exclude-from=");
                a.push(&patterns);
                a
            })
            .run()?;
        let matched: Vec<String> = nul_fields(&matched).collect();
        if matched.is_empty() {
            return Ok(Vec::new());
        }
        // Of those, the ones the repository ignores; the rest are already in the checkpoint.
        let out = self
            .git
            .call(&self.root)
            .args(["check-ignore", "-z", "--stdin", "--no-index"])
            .stdin(nul_joined(matched.iter().map(String::as_str)))
            .output()?;
        // Exit 1 means "none ignored"; anything else unsuccessful is a real failure.
        if !out.success && !out.stderr.is_empty() {
            return Err(crate::git::failed("git check-ignore".into(), &out.stderr));
        }
        let mut copied = Vec::new();
        for rel in nul_fields(&out.stdout) {
            let from = self.root.join(&rel);
            let to = dest.join(&rel);
            let Ok(meta) = std::fs::symlink_metadata(&from) else {
                continue;
            };
            if !meta.is_file() || to.symlink_metadata().is_ok() {
                continue;
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(&from, &to)?;
            copied.push(rel);
        }
        copied.sort();
        Ok(copied)
    }
}
