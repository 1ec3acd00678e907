//! Whether the process that holds a `creating` row (an interrupted fork) is still there.

/// Whether a process with this pid exists. Only Unix can tell cheaply; elsewhere every pid is
/// assumed alive and the lease alone decides.
pub(crate) fn process_alive(pid: i64) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        if pid == std::process::id() as libc::pid_t {
            // Our own process is not in the middle of a fork while it opens the store.
            return false;
        }
        // SAFETY: kill with signal 0 sends nothing; it only asks whether the pid exists.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}
