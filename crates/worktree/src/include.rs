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

/// Makes the folders of `rel` below `dest` one at a time, each a real folder: `false` when one
/// of them is there as a symlink (or anything but a folder), whose target must not be written.
fn real_folders(dest: &Path, rel: &str) -> Result<bool> {
    let mut at = dest.to_path_buf();
    let folders: Vec<&str> = rel.split('/').collect();
    for part in &folders[..folders.len().saturating_sub(1)] {
        if part.is_empty() || *part == "." || *part == ".." {
            return Ok(false);
        }
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Ok(false),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&at)?,
            Err(err) => return Err(err.into()),
        }
    }
    Ok(true)
}

/// Copies `from` to the new file `to` (`create_new`: never through a link planted there), with
/// the source's permissions.
fn copy_new(from: &Path, to: &Path) -> Result<()> {
    let mut source = std::fs::File::open(from)?;
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)?;
    std::io::copy(&mut source, &mut target)?;
    target.set_permissions(source.metadata()?.permissions())?;
    Ok(())
}

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
            // Only into real folders of the new worktree: a folder there may be a symlink the
            // fork's commit holds, and what it points at is no place for the user's `.env`
            // (review L-6).
            if !real_folders(dest, &rel)? {
                tracing::warn!(path = %rel, "not copied: a folder on its way in the worktree is a symlink");
                continue;
            }
            copy_new(&from, &to)?;
            copied.push(rel);
        }
        copied.sort();
        Ok(copied)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_folder_names_are_made() {
        let dir = tempfile::tempdir().unwrap();
        assert!(real_folders(dir.path(), "a/b/f").unwrap());
        assert!(dir.path().join("a/b").is_dir());
        for odd in ["../f", "a/../../f", "./f", "a//f"] {
            assert!(!real_folders(dir.path(), odd).unwrap(), "{odd}");
        }
        std::fs::write(dir.path().join("file"), "").unwrap();
        assert!(
            !real_folders(dir.path(), "file/f").unwrap(),
            "a file in the way"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_copy_is_new_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::write(&from, "secret").unwrap();
        std::fs::set_permissions(&from, std::fs::Permissions::from_mode(0o600)).unwrap();
        let to = dir.path().join("to");
        copy_new(&from, &to).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), b"secret");
        let mode = std::fs::metadata(&to).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(copy_new(&from, &to).is_err(), "never over something there");
    }
}
