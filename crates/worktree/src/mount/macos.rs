//! macOS: a file system without `MNT_LOCAL` is remote (NFS, SMB, AFP, WebDAV, macFUSE).

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub fn unwatchable_kind(folder: &Path) -> Option<String> {
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
