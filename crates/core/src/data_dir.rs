//! Where the store and logs live, shared by the app and the CLI.

use std::path::PathBuf;

/// Environment variable that overrides the data folder for the app and the CLI alike.
pub const DATA_DIR_ENV: &str = "FORKHOST_DATA_DIR";

/// File name of the mapping store inside the data folder.
pub const STORE_FILE: &str = "forkhost.sqlite";

/// The data folder: `FORKHOST_DATA_DIR` if set and non-empty, else the OS app-data folder for
/// [`crate::APP_IDENTIFIER`] — the same folder Tauri's `app_data_dir()` resolves to.
pub fn default_data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::data_dir().map(|d| d.join(crate::APP_IDENTIFIER))
}

/// The log folder inside a data folder.
pub fn log_dir(data_dir: &std::path::Path) -> PathBuf {
    data_dir.join("logs")
}
