//! Whether a folder lives on a file system whose changes the OS may not report to a watcher:
//! a network share (another machine's writes raise no local event) or a user-space file system.

use std::path::Path;

/// The kind of file system holding `folder` when it is remote, `None` when it is local (or
/// cannot be told: a watcher then decides by working or not).
pub(crate) fn remote_kind(folder: &Path) -> Option<String> {
    imp::remote_kind(folder)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// `statfs` magic numbers (linux/magic.h) of network and user-space file systems. 9P is
    /// WSL's view of Windows drives, whose Windows-side changes inotify never sees.
    const REMOTE: &[(i64, &str)] = &[
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
    ];

    pub fn remote_kind(folder: &Path) -> Option<String> {
        let path = CString::new(folder.as_os_str().as_bytes()).ok()?;
        let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a NUL-terminated string and `stat` a statfs the call fills.
        if unsafe { libc::statfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets
        let magic = stat.f_type as i64;
        REMOTE
            .iter()
            .find(|(m, _)| *m == magic)
            .map(|(_, name)| (*name).to_owned())
    }
}

#[cfg(target_os = "macos")]
mod imp {
    use std::ffi::{CStr, CString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    pub fn remote_kind(folder: &Path) -> Option<String> {
        let path = CString::new(folder.as_os_str().as_bytes()).ok()?;
        let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a NUL-terminated string and `stat` a statfs the call fills.
        if unsafe { libc::statfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        if stat.f_flags & libc::MNT_LOCAL as u32 != 0 {
            return None;
        }
        // SAFETY: f_fstypename is a NUL-terminated name the kernel wrote.
        let name = unsafe { CStr::from_ptr(stat.f_fstypename.as_ptr()) };
        Some(name.to_string_lossy().into_owned())
    }
}

#[cfg(windows)]
mod imp {
    use std::os::windows::ffi::OsStrExt;
    use std::path::{Component, Path, Prefix};

    use windows_sys::Win32::Storage::FileSystem::GetDriveTypeW;

    const DRIVE_REMOTE: u32 = 4;

    pub fn remote_kind(folder: &Path) -> Option<String> {
        match folder.components().next() {
            Some(Component::Prefix(p)) => match p.kind() {
                Prefix::UNC(..) | Prefix::VerbatimUNC(..) => Some("network share".into()),
                Prefix::Disk(_) | Prefix::VerbatimDisk(_) => {
                    let root: Vec<u16> = Path::new(p.as_os_str())
                        .join("\\")
                        .as_os_str()
                        .encode_wide()
                        .chain(Some(0))
                        .collect();
                    // SAFETY: `root` is a NUL-terminated drive root such as `C:\`.
                    let kind = unsafe { GetDriveTypeW(root.as_ptr()) };
                    (kind == DRIVE_REMOTE).then(|| "network drive".into())
                }
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod imp {
    pub fn remote_kind(_folder: &std::path::Path) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_local_temporary_folder_is_not_remote() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(super::remote_kind(dir.path()), None);
    }
}
