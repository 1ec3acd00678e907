//! Where the store and logs live, shared by the app and the CLI, and keeping them private.
//!
//! The folder holds the thread list (titles, working folders) and logs: on Unix it is `0700`
//! and its files `0600` whatever the umask, set when they are created and tightened at start
//! for folders made by older versions. On Windows the user's profile folder is private
//! already; there the data lives in the local (not roaming) app-data folder, so a roaming
//! profile never copies a live SQLite file between machines.

use std::io;
use std::path::{Path, PathBuf};

/// Environment variable that overrides the data folder for the app and the CLI alike.
pub const DATA_DIR_ENV: &str = "FORKHOST_DATA_DIR";

/// File name of the mapping store inside the data folder.
pub const STORE_FILE: &str = "forkhost.sqlite";

/// Mode of the data folder and the folders inside it (Unix).
pub const PRIVATE_DIR_MODE: u32 = 0o700;

/// Mode of every file in the data folder (Unix).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// The data folder: `FORKHOST_DATA_DIR` if set and non-empty, else the OS's local app-data
/// folder for [`crate::APP_IDENTIFIER`] — Tauri's `app_local_data_dir()`: on Linux and macOS
/// the same folder as `app_data_dir()`, on Windows `%LOCALAPPDATA%` rather than `%APPDATA%`.
pub fn default_data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::data_local_dir().map(|d| d.join(crate::APP_IDENTIFIER))
}

/// The log folder inside a data folder.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Creates `dir` and its missing parents; on Unix the ones it creates are `0700` (the XDG
/// rule for data folders), whatever the umask.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, PRIVATE_DIR_MODE);
    builder.create(dir)
}

/// Opens `path` for appending, creating it `0600` on Unix whatever the umask; a file that
/// exists with a looser mode is tightened.
pub fn open_private_file(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, PRIVATE_FILE_MODE);
    let file = options.open(path)?;
    #[cfg(unix)]
    tighten(&file.metadata()?, path, PRIVATE_FILE_MODE)?;
    Ok(file)
}

/// Replaces `path` with `bytes` atomically (a private temp file renamed over it), so a file in
/// the data folder is never briefly readable by others, nor half written.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let written = open_private_file(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(err) => {
            let _ = std::fs::remove_file(&tmp);
            Err(err)
        }
    }
}

/// Makes the data folder ready: creates it private, and tightens an existing one and the files
/// in it (and in `logs/`). An existing folder is only changed when it is the current user's and
/// already holds the store, or is empty: pointed at a shared folder by mistake (`/tmp`, a
/// project), Forkhost must not change its mode.
pub fn prepare(dir: &Path) -> io::Result<()> {
    let existed = dir.is_dir();
    create_private_dir(dir)?;
    #[cfg(unix)]
    {
        let ours = !existed || dir.join(STORE_FILE).is_file() || is_empty_dir(dir);
        if ours {
            tighten_tree(dir)?;
        } else {
            tracing::warn!(
                data_dir = %dir.display(),
                "data folder holds no store; its permissions are left as they are"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = existed;
    Ok(())
}

#[cfg(unix)]
fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

/// `dir` to `0700`, its files to `0600`, one level of folders deep (`logs/`). Symlinks are
/// left alone (never followed), as is anything owned by another user.
#[cfg(unix)]
fn tighten_tree(dir: &Path) -> io::Result<()> {
    tighten(&std::fs::symlink_metadata(dir)?, dir, PRIVATE_DIR_MODE)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_file() {
            tighten(&meta, &path, PRIVATE_FILE_MODE)?;
        } else if meta.is_dir() {
            tighten(&meta, &path, PRIVATE_DIR_MODE)?;
            for inner in std::fs::read_dir(&path)? {
                let inner = inner?.path();
                let meta = std::fs::symlink_metadata(&inner)?;
                if meta.is_file() {
                    tighten(&meta, &inner, PRIVATE_FILE_MODE)?;
                }
            }
        }
    }
    Ok(())
}

/// Removes the group and other bits beyond `mode`. A file that is not the user's (which only
/// root could change) is left alone rather than failing the start.
#[cfg(unix)]
fn tighten(meta: &std::fs::Metadata, path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let current = meta.mode() & 0o7777;
    if current & !mode == 0 {
        return Ok(());
    }
    match std::fs::set_permissions(path, std::fs::Permissions::from_mode(current & mode)) {
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
            tracing::warn!(path = %path.display(), "cannot make a data file private");
            Ok(())
        }
        other => other,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
    }

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_new_data_folder_and_its_files_are_private() {
        // (The usual umask 022 would make these 0755 and 0644.)
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/dev.forkhost.desktop");
        prepare(&dir).unwrap();
        create_private_dir(&log_dir(&dir)).unwrap();
        open_private_file(&log_dir(&dir).join("forkhost.log")).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&tmp.path().join("a")), 0o700);
        assert_eq!(mode(&log_dir(&dir)), 0o700);
        assert_eq!(mode(&log_dir(&dir).join("forkhost.log")), 0o600);
    }

    #[test]
    fn an_existing_data_folder_is_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("data");
        std::fs::create_dir_all(log_dir(&dir)).unwrap();
        for file in [STORE_FILE, "settings.json", "window-state.json"] {
            std::fs::write(dir.join(file), b"x").unwrap();
            chmod(&dir.join(file), 0o644);
        }
        std::fs::write(log_dir(&dir).join("forkhost.2026-01-01.log"), b"x").unwrap();
        chmod(&log_dir(&dir).join("forkhost.2026-01-01.log"), 0o664);
        chmod(&log_dir(&dir), 0o755);
        chmod(&dir, 0o755);
        // A symlink is not followed: what it points at keeps its mode.
        let outside = tmp.path().join("outside.txt");
        std::fs::write(&outside, b"x").unwrap();
        chmod(&outside, 0o644);
        std::os::unix::fs::symlink(&outside, dir.join("link")).unwrap();

        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&log_dir(&dir)), 0o700);
        for file in [STORE_FILE, "settings.json", "window-state.json"] {
            assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
        }
        assert_eq!(mode(&log_dir(&dir).join("forkhost.2026-01-01.log")), 0o600);
        assert_eq!(mode(&outside), 0o644);
        // Modes already tighter stay as they are.
        chmod(&dir.join("settings.json"), 0o400);
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir.join("settings.json")), 0o400);
    }

    #[test]
    fn a_folder_that_is_not_forkhosts_keeps_its_mode() {
        let tmp = tempfile::tempdir().unwrap();
        let shared = tmp.path().join("project");
        std::fs::create_dir(&shared).unwrap();
        std::fs::write(shared.join("README"), b"x").unwrap();
        chmod(&shared, 0o755);
        chmod(&shared.join("README"), 0o644);
        prepare(&shared).unwrap();
        assert_eq!(mode(&shared), 0o755);
        assert_eq!(mode(&shared.join("README")), 0o644);
    }

    #[test]
    fn an_existing_file_is_tightened_when_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("old.log");
        std::fs::write(&path, b"x").unwrap();
        chmod(&path, 0o644);
        open_private_file(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn private_writes_replace_the_file_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("settings.json");
        std::fs::write(&path, b"old").unwrap();
        chmod(&path, 0o644);
        write_private(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_default_folder_is_the_local_app_data_one() {
        if std::env::var_os(DATA_DIR_ENV).is_some() {
            return;
        }
        let dir = default_data_dir().unwrap();
        assert!(dir.ends_with(crate::APP_IDENTIFIER));
        // Linux and macOS: the same folder as before (data_dir == data_local_dir there).
        assert_eq!(dir.parent(), dirs::data_dir().as_deref());
    }
}
