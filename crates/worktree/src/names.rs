//! Names that become parts of refs and branches. Kept to a small safe alphabet so a thread id or
//! label can never climb out of `refs/forkhost/<thread>/` or form a name git rejects.

use crate::error::{Result, WorktreeError};

/// One path component of a ref: letters, digits, `-`, `_`, `.`; not starting with `.` or `-`,
/// no `..`, not ending in `.lock` or `.`.
pub(crate) fn component(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.starts_with(['.', '-'])
        && !name.ends_with('.')
        && !name.ends_with(".lock")
        && !name.contains("..");
    if ok {
        Ok(name)
    } else {
        Err(WorktreeError::InvalidName(name.to_owned()))
    }
}

/// A branch name made of `/`-separated components (e.g. `forkhost/my-fork`).
pub(crate) fn branch(name: &str) -> Result<&str> {
    if name.split('/').all(|c| component(c).is_ok()) {
        Ok(name)
    } else {
        Err(WorktreeError::InvalidName(name.to_owned()))
    }
}
