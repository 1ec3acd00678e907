//! File operations that never leave a half-made `forkhost`: links and copies are made beside the
//! target and renamed over it; and the comparisons that tell ours from someone else's.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::{io_err, CliToolError};

/// A link made next to `at` and renamed over it, so a replaced `forkhost` is never missing
/// half-way.
pub(super) fn replace_with_link(target: &Path, at: &Path) -> std::io::Result<()> {
    if let Some(dir) = at.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = sibling_tmp(at);
    let _ = std::fs::remove_file(&tmp);
    symlink(target, &tmp)?;
    std::fs::rename(&tmp, at).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(unix)]
pub(super) fn symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
pub(super) fn symlink(_target: &Path, _at: &Path) -> std::io::Result<()> {
    // Symbolic links are only made on macOS and Linux; Windows uses the user Path.
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

pub(super) fn sibling_tmp(at: &Path) -> PathBuf {
    let name = at
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    at.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// The copy goes to a temporary name first and is renamed over the target, so a terminal
/// never runs a half-written `forkhost`.
pub(super) fn place_copy(bundled: &Path, target: &Path) -> Result<(), CliToolError> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(io_err("create the folder", dir))?;
    let tmp = sibling_tmp(target);
    std::fs::copy(bundled, &tmp).map_err(io_err("copy the command-line tool to", &tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755));
    }
    std::fs::rename(&tmp, target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err("replace", target)(e)
    })
}

pub(super) fn stamp(path: &Path) -> (Option<u64>, Option<u64>) {
    match std::fs::metadata(path) {
        Ok(m) => (
            Some(m.len()),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_millis() as u64),
        ),
        Err(_) => (None, None),
    }
}

pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub(super) fn files_equal(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok(mut fa), Ok(mut fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let Ok(n) = fa.read(&mut ba) else {
            return false;
        };
        if n == 0 {
            return true;
        }
        if fb.read_exact(&mut bb[..n]).is_err() || ba[..n] != bb[..n] {
            return false;
        }
    }
}
