//! The Forkhost Host: the one API the desktop app and the `forkhost` CLI stand on.
//!
//! The shells (src-tauri, crates/cli) parse input, call one Host method and format the result;
//! everything that decides anything lives here or below (store, harness).

// The shells see one list of names (below) and three namespaces of free functions used at
// start-up; every other module is private, so a type has exactly one public path.
pub mod data_dir;
pub mod logging;
pub use base::harnesses;

// The base, then the wings above it; a wing calls only the wings under it (each `mod.rs` says
// which) and the base calls none (docs/architecture.md "Core in wings").
mod base;
mod cost;
mod files;
mod fork;
mod host;
mod race;
mod remote;
mod requests;
mod rewind;
mod search;
mod serve;
#[cfg(test)]
mod test_host;
mod thread;
mod trust;

pub use base::acp_agents::{AgentError, AgentReport};
pub use base::branch::{BranchFiles, BranchOrigin, BranchSeed, FilesTarget};
pub use base::error::{ErrorCode, HostError, HostResult};
pub use base::events::{ApprovalResolution, HostEvent, TurnEnd};
/// The fork steps a crash can be injected after (`FORKHOST_FAILPOINT`), for the crash tests.
#[doc(hidden)]
pub use base::failpoint::FORK_STEPS;
pub use base::fork_point::{ForkAt, TurnRef};
pub use base::price::{PricedBy, PRICE_TABLE};
pub use cost::{by_model, ModelCost, ThreadCost, TreeCost, TurnCost};
pub use files::{
    ChangesView, CheckCommandView, CheckpointView, FileChangeStatus, FileChangeView, FilesView,
    ForkFiles, LaneCheck, ThreadInFolder, WorktreeLoss,
};
pub use race::keep::{KeepPlan, KeptView, LaneLoss};
pub use race::{
    LaneFile, LaneSpec, LaneState, OnLane, RaceLane, RaceSpec, RaceView, CHECK_TIMEOUT, MAX_LANES,
};
pub use remote::{
    cli_archives_folder, remote_thread_id, version_mismatch, ProgramSource, RemoteCommand,
    RemoteHostSpec, RemoteHostView, RemoteSystem, ThreadAddress, CLI_ARCHIVES_ENV, LOCAL_HOST,
    REMOTE_EXEC, SSH_FAILED, VERSION,
};
pub use rewind::files::RewindFileView;
pub use rewind::{RewindKind, RewindPlan, RewindView, RewoundView};
#[cfg(unix)]
pub use serve::{serve, ServeOptions};
pub use serve::{
    socket_path, Call, Connection, Entry, Item, RaceCall, Returned, Served, ServerMessage,
    Subscription, PROTOCOL,
};
pub use thread::discovery::DiscoveredSession;
pub use thread::export::ExportFormat;
// The store's and the worktree crate's words the views carry.
pub use base::grant_scope::{GrantScope, GrantView};
pub use base::harnesses::{HarnessReport, InstallCommandView, InstallView};
pub use base::view::{
    ApprovalView, BranchCost, CostFigure, FillView, ForkResult, ForkTiming, ForkView, MessageView,
    NativeView, PermissionsView, QuestionView, SubjectView, ThreadDetail, ThreadView, ToolView,
    TrustDecision, TrustView, TurnView,
};
pub use base::worktree_claims::SpareJob;
pub use forkhost_harness::{
    acp::AgentCommand, binary::FoundBy, setup::SignIn, ApprovalDecision, HarnessKind,
    PermissionMode, TurnOutcome, TurnUsage, VersionSupport,
};
pub use forkhost_store::{Boundary, TabKind, ThreadState};
pub use forkhost_worktree::{bundle_prerequisites, BundleMade, FileStatus};
pub use host::{Host, HostOptions};
pub use search::{
    HitPart, SearchGroup, SearchHit, SearchQuery, SearchResults, SearchSession, MAX_QUERY_BYTES,
};
pub use thread::layout::{LayoutView, TabView, WindowView};
pub use thread::lifecycle::{NewThreadSpec, OpenReport};
pub use thread::terminal::TerminalCommand;

/// The app's bundle identifier. The CLI derives its default data folder from it so that the app
/// and the CLI open the same store without being told.
pub const APP_IDENTIFIER: &str = "dev.forkhost.desktop";
