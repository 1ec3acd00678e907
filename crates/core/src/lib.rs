//! The Forkhost Host: the one API the desktop app and the `forkhost` CLI stand on.
//!
//! The shells (src-tauri, crates/cli) parse input, call one Host method and format the result;
//! everything that decides anything lives here or below (store, harness).

pub mod data_dir;
pub mod error;
pub mod host;
pub mod logging;
pub mod view;

pub use error::{HostError, HostResult};
pub use host::{Host, OpenReport};

/// The app's bundle identifier. The CLI derives its default data folder from it so that the app
/// and the CLI open the same store without being told.
pub const APP_IDENTIFIER: &str = "dev.forkhost.desktop";
