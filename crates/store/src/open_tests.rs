//! The file-level steps of the open, each on its own: the ways a mistake there would show
//! through `Store::open` are either slow to provoke or depend on who runs the tests (root
//! ignores file modes).

#[cfg(unix)]
use std::path::{Path, PathBuf};

use super::{not_a_database, SQLITE_MAGIC};
#[cfg(unix)]
use super::{private_files, FILE_MODE};

#[cfg(unix)]
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

#[cfg(unix)]
mod modes {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_missing_store_file_is_made_empty_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        private_files(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        assert_eq!(mode(&path), FILE_MODE);
    }

    /// Each of the store's files loses what others could read or write, and nothing else: a
    /// file the user made stricter stays as strict.
    #[test]
    fn modes_are_only_ever_narrowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        for (suffix, before, after) in [
            ("", 0o644, 0o600),
            ("-wal", 0o044, 0o000),
            ("-shm", 0o400, 0o400),
        ] {
            let file = with_suffix(&path, suffix);
            std::fs::write(&file, b"x").unwrap();
            set_mode(&file, before);
            private_files(&path).unwrap();
            assert_eq!(mode(&file), after, "{suffix} from {before:o}");
            std::fs::remove_file(&file).unwrap();
        }
        std::fs::write(&path, b"x").unwrap();
        set_mode(&path, 0o600);
        private_files(&path).unwrap();
        assert_eq!(mode(&path), 0o600);
    }

    /// A companion that is a symlink is left alone: changing its mode would change the file it
    /// points at, which may be anyone's.
    #[test]
    fn a_symlinked_companion_keeps_its_targets_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, b"not ours").unwrap();
        set_mode(&elsewhere, 0o644);
        std::os::unix::fs::symlink(&elsewhere, with_suffix(&path, "-wal")).unwrap();
        private_files(&path).unwrap();
        assert_eq!(mode(&elsewhere), 0o644);
    }

    /// A store file that cannot be created is an error here, named by its path, not a problem
    /// left for SQLite to report in other words later.
    #[test]
    fn a_store_file_that_cannot_be_made_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n".repeat(300));
        let err = private_files(&path).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENAMETOOLONG), "{err}");
    }
}

#[test]
fn only_a_non_empty_file_without_the_header_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    assert_eq!(not_a_database(&path).unwrap(), None, "missing");
    std::fs::write(&path, b"").unwrap();
    assert_eq!(not_a_database(&path).unwrap(), None, "empty");
    let mut header = SQLITE_MAGIC.to_vec();
    header.extend([0u8; 100]);
    std::fs::write(&path, &header).unwrap();
    assert_eq!(not_a_database(&path).unwrap(), None, "a header");
    std::fs::write(&path, b"{\"not\": \"sqlite\"}").unwrap();
    let reason = not_a_database(&path).unwrap().expect("not a database");
    assert!(reason.contains("not an SQLite database"), "{reason}");
}

/// A file that exists but cannot be read is an I/O error naming it: neither "missing" (which
/// would let SQLite try) nor a reason to move it aside.
#[cfg(unix)]
#[test]
fn an_unreadable_store_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    // A symlink to itself: opening it fails (ELOOP) whoever runs the test.
    std::os::unix::fs::symlink(&path, &path).unwrap();
    match not_a_database(&path) {
        Err(crate::StoreError::Io {
            path: named,
            source,
        }) => {
            assert_eq!(named, path);
            assert_eq!(source.raw_os_error(), Some(libc::ELOOP), "{source}");
        }
        other => panic!("not an I/O error: {other:?}"),
    }
}
