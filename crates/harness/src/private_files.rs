//! Files and folders that hold a conversation (a seeded or staged session): the user's alone,
//! whatever the umask (review L-8). A session carries the whole conversation, tool output
//! included; on a shared machine a 0644 file, or a 0755 folder in the shared temp folder, lets
//! another local user read it.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` (created or replaced), readable and writable by the user alone.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    // A file that was there keeps its mode through `open`: set it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.flush()
}

/// Creates the folder `path` (its parent must exist), for the user alone; an existing one is
/// an error (`AlreadyExists`), so a folder someone else made first is never used.
pub(crate) fn create_private_dir(path: &Path) -> std::io::Result<()> {
    // Mutable only where Unix sets the mode.
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// The folder warm spares start in (review L-9): empty, the user's alone, and below the user's
/// cache folder, so that no folder above it is one another user can write a `.pi`, `.agents`
/// or `.codex` into (the shared temp folder is), nor a project a harness trusts (the app's own
/// working folder may be one).
pub(crate) fn spare_folder() -> std::io::Result<std::path::PathBuf> {
    let base = dirs::cache_dir()
        .or_else(dirs::home_dir)
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no home folder"))?;
    let parent = base.join("forkhost");
    std::fs::create_dir_all(&parent)?;
    let folder = parent.join("spare-cwd");
    match create_private_dir(&folder) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    let meta = std::fs::symlink_metadata(&folder)?;
    if !meta.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is not a folder",
            folder.display()
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(folder)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_spare_folder_is_private_and_not_in_the_shared_temp_folder() {
        let folder = spare_folder().unwrap();
        assert_eq!(mode(&folder), 0o700);
        assert!(
            !folder.starts_with(std::env::temp_dir()),
            "{}",
            folder.display()
        );
        assert_eq!(spare_folder().unwrap(), folder, "the same one each time");
    }

    #[test]
    fn sessions_are_the_users_alone_whatever_was_there() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("staging");
        create_private_dir(&folder).unwrap();
        assert_eq!(mode(&folder), 0o700);
        assert!(
            create_private_dir(&folder).is_err(),
            "never an existing folder"
        );
        let file = folder.join("s.jsonl");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&file, b"new").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
    }
}
