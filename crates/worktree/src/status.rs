//! Which files of a checkout have uncommitted changes: what removing it would lose, and what
//! applying changes onto it must not overwrite.

use crate::error::Result;
use crate::git::nul_fields;
use crate::repo::Repo;

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
}
