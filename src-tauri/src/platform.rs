//! What the app sets up about its platform before the first window: rendering defaults, log
//! files, and the single-instance id of a data folder.

use std::path::Path;

/// Keeps the log writer alive; dropping it flushes buffered lines. (The core's `WorkerGuard`,
/// held opaquely so this crate needs no logging crates of its own.)
pub type LogGuard = Box<dyn std::any::Any + Send>;

/// Without a GPU (no DRM render node: a VM, a remote or virtual display), WebKitGTK composites
/// through software GL (llvmpipe), which cost ~70 MB per window and made scrolling a long thread
/// about three times slower than plain software rendering. Use the latter then, unless the user
/// chose (`WEBKIT_DISABLE_COMPOSITING_MODE` set either way; the WebDriver tests set it to `0`,
/// because WebKitWebDriver's screenshots hang without compositing).
#[cfg(target_os = "linux")]
pub fn software_rendering_defaults() {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if !has_render_node() && std::env::var_os(VAR).is_none() {
        std::env::set_var(VAR, "1");
    }
}

#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// File logging into `<data dir>/logs`; on failure the app still runs, with stderr logging only.
pub fn init_logging(data_dir: &Path) -> Option<LogGuard> {
    let log_dir = forkhost_core::data_dir::log_dir(data_dir);
    match forkhost_core::logging::init_app(&log_dir) {
        Ok(guard) => Some(Box::new(guard)),
        Err(err) => {
            forkhost_core::logging::init_stderr("info");
            tracing::warn!(error = %err, log_dir = %log_dir.display(), "cannot write log files");
            None
        }
    }
}

/// Whether `FORKHOST_DATA_DIR` names another data folder than the user's.
pub fn data_dir_overridden() -> bool {
    std::env::var_os(forkhost_core::data_dir::DATA_DIR_ENV).is_some_and(|v| !v.is_empty())
}

/// A D-Bus-safe single-instance id for a data folder: the identifier plus a stable hash
/// (FNV-1a, so it does not change between builds) of the folder's path.
pub fn instance_id(data_dir: &Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in data_dir.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}.d{hash:016x}", forkhost_core::APP_IDENTIFIER)
}

/// glibc gives every thread that allocates an arena of its own, up to 8 per core: the async
/// runtime's workers, blocking threads and WebKit's threads each keep memory freed in theirs,
/// which no other thread reuses and `malloc_trim` returns only in part. Two arenas hold the
/// app's footprint near what it uses; this app's threads seldom allocate at the same moment.
/// Call first thing, before other threads exist.
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; no thread allocates concurrently yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Gives memory freed after a large piece of work (reading and sending a 10,000-message thread:
/// tens of MB of strings and JSON) back to the system, a second after the last such piece.
/// glibc's allocator keeps freed memory in its arenas (one per thread that allocated), so the
/// app's footprint otherwise stays at its highest point. Elsewhere nothing is needed.
pub fn trim_memory_soon() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        static LATEST: AtomicU64 = AtomicU64::new(0);
        let ticket = LATEST.fetch_add(1, Ordering::SeqCst) + 1;
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            if LATEST.load(Ordering::SeqCst) == ticket {
                // SAFETY: malloc_trim only returns free pages of glibc's heaps to the system.
                tauri::async_runtime::spawn_blocking(|| unsafe { libc::malloc_trim(0) });
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_ids_are_stable_and_distinct_per_data_dir() {
        let a = instance_id(Path::new("/tmp/a"));
        assert_eq!(a, instance_id(Path::new("/tmp/a")));
        assert_ne!(a, instance_id(Path::new("/tmp/b")));
        assert!(a.starts_with("dev.forkhost.desktop.d"));
        // D-Bus name elements: [A-Za-z0-9_-], not starting with a digit.
        for element in a.split('.') {
            assert!(!element.is_empty());
            assert!(!element.starts_with(|c: char| c.is_ascii_digit()));
            assert!(element
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }
    }
}
