//! Whether a folder lives on a file system whose changes the OS may not report to a watcher:
//! a network share (another machine's writes raise no local event), a user-space file system,
//! or a kernel one whose files change without writes (`/proc`, `/sys`).

use std::path::Path;

/// The kind of file system holding `folder` when a watcher cannot be trusted there, `None` when
/// it is local (or cannot be told: a watcher then decides by working or not).
pub(crate) fn unwatchable_kind(folder: &Path) -> Option<String> {
    imp::unwatchable_kind(folder)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// `statfs` magic numbers (linux/magic.h) of network, user-space and kernel file systems.
    /// 9P is WSL's view of Windows drives, whose Windows-side changes inotify never sees.
    const UNWATCHABLE: &[(i64, &str)] = &[
        (0x6969, "nfs"),
        (0x517B, "smb"),
        (0xFE53_4D42, "smb2"),
        (0xFF53_4D42, "cifs"),
        (0x7375_7245, "coda"),
        (0x5346_414F, "afs"),
        (0x0102_1997, "9p"),
        (0x6573_5546, "fuse"),
        (0x00C3_6400, "ceph"),
        (0x0BD0_0BD0, "lustre"),
        (0x9FA0, "proc"),
        (0x6265_6572, "sysfs"),
    ];

    pub fn unwatchable_kind(folder: &Path) -> Option<String> {
        let path = CString::new(folder.as_os_str().as_bytes()).ok()?;
        let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a NUL-terminated string and `stat` a statfs the call fills.
        if unsafe { libc::statfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets
        let magic = stat.f_type as i64;
        UNWATCHABLE
            .iter()
            .find(|(m, _)| *m == magic)
            .map(|(_, name)| (*name).to_owned())
    }
}

// The other platforms' code lives in files of its own: the mutation run (Linux) cannot build
// them, and `.cargo/mutants.toml` leaves them out by file (they are type-checked for macOS and
// Windows by scripts/cross-check.sh).
#[cfg(target_os = "macos")]
#[path = "mount/macos.rs"]
mod imp;

#[cfg(windows)]
#[path = "mount/windows.rs"]
mod imp;

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
#[path = "mount/other.rs"]
mod imp;

#[cfg(test)]
mod tests {
    #[test]
    fn a_local_temporary_folder_is_watchable() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(super::unwatchable_kind(dir.path()), None);
    }

    /// Read through statfs, not guessed from the path.
    #[cfg(target_os = "linux")]
    #[test]
    fn proc_is_not_watchable() {
        assert_eq!(
            super::unwatchable_kind(std::path::Path::new("/proc/self")).as_deref(),
            Some("proc")
        );
        assert_eq!(
            super::unwatchable_kind(std::path::Path::new("/nonexistent")),
            None
        );
    }
}
