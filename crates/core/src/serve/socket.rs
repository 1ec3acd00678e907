//! Where a data folder's daemon listens, and the rule that there is one: the socket lives in
//! the data folder itself (private to its user, 0700), beside a lock file the daemon holds
//! while it runs — a second `forkhost serve` on the same folder says so and exits.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::base::error::{HostError, HostResult};

/// The longest path a Unix socket takes (`sun_path` is 108 bytes on Linux, 104 on macOS).
const SOCKET_PATH_MAX: usize = 100;

/// The socket of the daemon serving `data_dir`.
pub fn socket_path(data_dir: &Path) -> HostResult<PathBuf> {
    let path = data_dir.join("serve.sock");
    if path.as_os_str().len() > SOCKET_PATH_MAX {
        return Err(HostError::InvalidInput(format!(
            "the data folder's path is too long for the daemon's socket ({} bytes, at most {}): use a shorter --data-dir",
            path.as_os_str().len(),
            SOCKET_PATH_MAX - "/serve.sock".len()
        )));
    }
    Ok(path)
}

/// This process serves the folder: it holds the lock until it drops this.
pub struct Served {
    pub socket: PathBuf,
    _lock: File,
}

impl Served {
    /// Takes the folder's daemon lock, or says that another daemon serves it.
    pub fn claim(data_dir: &Path) -> HostResult<Served> {
        let socket = socket_path(data_dir)?;
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(data_dir.join("serve.lock"))
            .map_err(|e| HostError::Internal(format!("the daemon's lock: {e}")))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(HostError::Busy(format!(
                    "another forkhost serves {} already",
                    data_dir.display()
                )))
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(HostError::Internal(format!("the daemon's lock: {e}")))
            }
        }
        // The lock file names the daemon holding it (`kill $(cat serve.lock)` ends it).
        {
            use std::io::Write;
            let mut named = &lock;
            let _ = named.set_len(0);
            let _ = writeln!(named, "{}", std::process::id());
        }
        // A socket left by a daemon that died: nobody listens on it (we hold the lock).
        let _ = std::fs::remove_file(&socket);
        Ok(Served {
            socket,
            _lock: lock,
        })
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_daemon_per_folder_and_a_too_long_path_is_refused_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let first = Served::claim(dir.path()).unwrap();
        let err = Served::claim(dir.path()).err().unwrap();
        assert_eq!(err.code(), "busy", "{err}");
        drop(first);
        Served::claim(dir.path()).unwrap();

        let long = dir.path().join("x".repeat(120));
        let err = socket_path(&long).unwrap_err();
        assert!(err.to_string().contains("too long"), "{err}");
    }
}
