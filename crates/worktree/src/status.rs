//! Which files of a checkout have uncommitted changes: what removing it would lose, and what
//! applying changes onto it must not overwrite.

use std::path::Path;

use crate::error::Result;
use crate::git::nul_fields;
use crate::repo::Repo;
use crate::worktree::INCLUDED_FILE;

impl Repo {
    /// Repository-relative paths with uncommitted changes (staged, unstaged, untracked; not
    /// ignored), sorted. Read-only: `GIT_OPTIONAL_LOCKS=0` keeps `status` from refreshing the
    /// index file.
    pub(crate) fn uncommitted(&self) -> Result<Vec<String>> {
        let out = self
            .git
            .call(&self.root)
            .args([
                "status",
                "--porcelain=v1",
                "-z",
                "--untracked-files=all",
                "--ignore-submodules=none",
                "--no-renames",
            ])
            .run()?;
        // Each entry is `XY path`.
        let mut paths: Vec<String> = nul_fields(&out)
            .filter_map(|e| e.get(3..).map(str::to_owned))
            .collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// The gitignored files of this checkout that exist nowhere else: every ignored file, a
    /// wholly ignored folder as one `dir/` entry (`node_modules/` is one line, not thousands),
    /// except the `.worktreeinclude` copies that are still byte for byte the file in `source`
    /// (the checkout they were copied from). `git worktree remove` deletes them all, even
    /// without `--force`.
    pub(crate) fn ignored_made_here(&self, source: &Path) -> Result<Vec<String>> {
        let out = self
            .git
            .call(&self.root)
            .args([
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
            ])
            .run()?;
        let copied = std::fs::read_to_string(self.git_dir.join(INCLUDED_FILE)).unwrap_or_default();
        let copied: Vec<&str> = copied.lines().collect();
        let unchanged_copy = |rel: &str| {
            copied.contains(&rel)
                && match (
                    std::fs::read(self.root.join(rel)),
                    std::fs::read(source.join(rel)),
                ) {
                    (Ok(here), Ok(there)) => here == there,
                    _ => false,
                }
        };
        let mut paths: Vec<String> = nul_fields(&out).filter(|p| !unchanged_copy(p)).collect();
        paths.sort();
        Ok(paths)
    }
}
