//! The Forkhost Host: the one API the desktop app and the `forkhost` CLI stand on.
//!
//! The shells (src-tauri, crates/cli) parse input, call one Host method and format the result;
//! everything that decides anything lives here or below (store, harness).

// The shells see one list of names (below) and three namespaces of free functions used at
// start-up; every other module is private, so a type has exactly one public path.
pub mod data_dir;
pub mod harnesses;
pub mod logging;

mod approvals;
mod cross_fork;
mod discovery;
mod error;
mod events;
mod export;
mod failpoint;
mod files;
mod follow;
mod fork;
mod fork_preview;
mod grant_scope;
mod grants;
mod host;
mod layout;
mod models;
mod modes;
mod pending;
mod permissions;
mod pump;
mod race;
mod race_keep;
mod rewind;
mod rewind_files;
mod runtimes;
mod search;
mod spare_pool;
mod spares;
mod sync;
mod terminal;
#[cfg(test)]
mod test_host;
mod text;
mod thread;
mod thread_handle;
mod titles;
mod trust;
mod turns;
mod view;
mod watch;
mod worktree_spares;

pub use discovery::DiscoveredSession;
pub use error::{ErrorCode, HostError, HostResult};
pub use events::{ApprovalResolution, HostEvent, TurnEnd};
pub use export::ExportFormat;
/// The fork steps a crash can be injected after (`FORKHOST_FAILPOINT`), for the crash tests.
#[doc(hidden)]
pub use failpoint::FORK_STEPS;
pub use files::{
    ChangesView, CheckCommandView, CheckpointView, FileChangeStatus, FileChangeView, FilesView,
    ForkFiles, LaneCheck, ThreadInFolder, WorktreeLoss,
};
pub use fork::{ForkAt, TurnRef};
pub use race::{
    LaneFile, LaneSpec, LaneState, OnLane, RaceLane, RaceSpec, RaceView, CHECK_TIMEOUT, MAX_LANES,
};
pub use race_keep::{KeepPlan, KeptView, LaneLoss};
pub use rewind::{RewindKind, RewindPlan, RewindView, RewoundView};
pub use rewind_files::RewindFileView;
// The store's and the worktree crate's words the views carry.
pub use forkhost_harness::{
    binary::FoundBy, setup::SignIn, ApprovalDecision, HarnessKind, PermissionMode, TurnOutcome,
    TurnUsage, VersionSupport,
};
pub use forkhost_store::{Boundary, TabKind, ThreadState};
pub use forkhost_worktree::FileStatus;
pub use grant_scope::{GrantScope, GrantView};
pub use harnesses::{HarnessReport, InstallCommandView, InstallView};
pub use host::{Host, HostOptions, NewThreadSpec, OpenReport};
pub use layout::{LayoutView, TabView, WindowView};
pub use search::{
    HitPart, SearchGroup, SearchHit, SearchQuery, SearchResults, SearchSession, MAX_QUERY_BYTES,
};
pub use terminal::TerminalCommand;
pub use view::{
    ApprovalView, FillView, ForkResult, ForkTiming, ForkView, MessageView, NativeView,
    PermissionsView, QuestionView, SubjectView, ThreadDetail, ThreadView, ToolView, TrustDecision,
    TrustView, TurnView,
};
pub use worktree_spares::SpareJob;

/// The app's bundle identifier. The CLI derives its default data folder from it so that the app
/// and the CLI open the same store without being told.
pub const APP_IDENTIFIER: &str = "dev.forkhost.desktop";
