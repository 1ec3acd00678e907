//! Windows: a UNC path or a drive that `GetDriveTypeW` calls remote.

use std::os::windows::ffi::OsStrExt;
use std::path::{Component, Path, Prefix};

use windows_sys::Win32::Storage::FileSystem::GetDriveTypeW;

const DRIVE_REMOTE: u32 = 4;

pub fn unwatchable_kind(folder: &Path) -> Option<String> {
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
