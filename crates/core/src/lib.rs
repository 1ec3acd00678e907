//! The Forkhost Host: the one API the desktop app and the `forkhost` CLI stand on.
//!
//! The shells (src-tauri, crates/cli) parse input, call one Host method and format the result;
//! everything that decides anything lives here or below (store, harness).

pub mod approvals;
pub mod data_dir;
pub mod discovery;
pub mod error;
pub mod events;
pub mod failpoint;
pub mod files;
pub mod fork;
pub mod grants;
pub mod harnesses;
pub mod host;
pub mod layout;
pub mod logging;
pub mod terminal;
pub mod trust;
pub mod view;

mod follow;
mod permissions;
mod pump;
mod runtimes;
mod slot;
mod spares;
mod sync;
mod text;
mod thread;
mod turns;
mod watch;

pub use approvals::{ApprovalView, QuestionView, SubjectView};
pub use discovery::DiscoveredSession;
pub use error::{HostError, HostResult};
pub use events::HostEvent;
pub use files::{
    ChangesView, CheckpointView, FileChangeStatus, FileChangeView, FilesView, ForkFiles,
    WorktreeLoss,
};
pub use fork::{ForkAt, TurnRef};
pub use forkhost_harness::{
    ApprovalDecision, HarnessKind, PermissionMode, TurnOutcome, VersionSupport,
};
pub use grants::{GrantScope, GrantView};
pub use harnesses::HarnessReport;
pub use host::{Host, HostOptions, NewThreadSpec, OpenReport};
pub use trust::{TrustDecision, TrustView};

/// The app's bundle identifier. The CLI derives its default data folder from it so that the app
/// and the CLI open the same store without being told.
pub const APP_IDENTIFIER: &str = "dev.forkhost.desktop";
