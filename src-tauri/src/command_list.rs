//! The one list of the commands the UI may call. Each entry names the command, its arguments as
//! the UI passes them (injected `State`, `AppHandle` and window arguments left out) and its reply
//! (the `Ok` of a `CmdResult`). From it come both Tauri's handler ([`handler`]) and, on
//! `cargo test`, `ui/src/bindings/commands.ts` ([`crate::command_bindings`]), through which
//! `ui/src/ipc.ts` calls every command: renaming a command breaks this list's build, and renaming
//! an argument or a field breaks the UI's type check. A test holds each entry to its function's
//! real signature.

use crate::{
    agents, approvals, cli_tool, commands, files, first_run, fork_preview, race, remote, rewind,
    search, settings, trust, update,
};
use forkhost_core::DiscoveredSession;
use forkhost_core::{
    ApprovalDecision, ApprovalView, ChangesView, FilesView, ForkAt, ForkFiles, GrantView,
    HarnessKind, HarnessReport, TrustDecision, TrustView, WorktreeLoss,
};
use forkhost_core::{ExportFormat, ThreadDetail, ThreadView, TurnRef};
use forkhost_core::{RewindKind, RewindPlan, RewindView, RewoundView};
use forkhost_core::{SearchQuery, SearchResults};

use crate::cli_tool::CliToolStatus;
use crate::commands::{AppInfo, ForkReply, NewThreadArgs};
use crate::fork_preview::ForkPreview;
use crate::layout::{NewTab, Prefill, TabView, WindowInit};
use crate::settings::Settings;
use crate::update::UpdateInfo;

/// Turns the list into [`handler`] and, for the tests, [`signatures`].
macro_rules! command_list {
    ($( $module:ident :: $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $reply:ty ; )*) => {
        /// Tauri's invoke handler for every command of the list.
        pub fn handler() -> impl Fn(tauri::ipc::Invoke<tauri::Wry>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($module::$name),*]
        }

        // The listed types are checked in every build, not only the tests'.
        const _: () = {
            $(let _ = std::marker::PhantomData::<($($ty,)* $reply,)>;)*
        };

        /// Every command of the list, as the UI calls it.
        #[cfg(test)]
        pub(crate) fn signatures() -> Vec<crate::command_bindings::Signature> {
            use crate::command_bindings::{Shape, Signature};
            vec![$(Signature {
                module: stringify!($module),
                name: stringify!($name),
                args: vec![$(Shape::of::<$ty>(stringify!($arg), stringify!($ty))),*],
                reply: Shape::of::<$reply>("", stringify!($reply)),
            }),*]
        }
    };
}

command_list! {
    commands::app_info() -> AppInfo;
    commands::threads() -> Vec<ThreadView>;
    commands::show(thread_id: String) -> ThreadDetail;
    commands::tree_cost(thread_id: String) -> forkhost_core::TreeCost;
    commands::create(spec: NewThreadArgs) -> ThreadDetail;
    commands::start_turn(thread_id: String, prompt: String) -> ();
    commands::interrupt(thread_id: String) -> ();
    commands::close(thread_id: String) -> ();
    commands::is_streaming(thread_id: String) -> bool;
    approvals::answer_approval(thread_id: String, request_id: String, decision: ApprovalDecision) -> ();
    approvals::answer_question(thread_id: String, request_id: String, answers: Option<Vec<String>>) -> ();
    approvals::pending_approvals(thread_id: String) -> Vec<ApprovalView>;
    approvals::session_grants(thread_id: String) -> Vec<GrantView>;
    approvals::revoke_grant(thread_id: String, grant_id: String) -> ();
    approvals::set_mode(thread_id: String, mode: Option<String>, sandbox: Option<String>) -> ThreadView;
    commands::rename(thread_id: String, title: String) -> ThreadView;
    commands::archive(thread_id: String, archived: bool) -> ThreadView;
    commands::export(thread_id: String, to: Option<TurnRef>, format: ExportFormat) -> String;
    commands::fork(thread_id: String, at: ForkAt, files: Option<ForkFiles>, for_window: Option<bool>, into: Option<HarnessKind>) -> ForkReply;
    rewind::rewind_plan(thread_id: String, to: TurnRef, kind: RewindKind) -> RewindPlan;
    rewind::rewind(thread_id: String, to: TurnRef, kind: RewindKind, accepted_loss: Option<Vec<String>>) -> RewoundView;
    rewind::undo_rewind(thread_id: String) -> RewoundView;
    rewind::rewinds(thread_id: String) -> Vec<RewindView>;
    rewind::rewound_branches() -> Vec<String>;
    files::files(thread_id: String) -> FilesView;
    files::changes(thread_id: String, other: Option<String>) -> ChangesView;
    files::bring_back(fork_id: String, target_id: String) -> ChangesView;
    files::worktree_loss(thread_id: String) -> WorktreeLoss;
    files::remove_worktree(thread_id: String, accepted: Option<WorktreeLoss>) -> ();
    files::folder_trust(folder: String, host: Option<String>) -> TrustView;
    files::set_folder_trust(folder: String, trusted: bool, shown: Option<String>, host: Option<String>) -> TrustView;
    trust::trusted_folders() -> Vec<TrustDecision>;
    agents::acp_agents() -> Vec<forkhost_core::AgentReport>;
    agents::add_acp_agent(name: String, command: String) -> forkhost_core::AgentCommand;
    agents::remove_acp_agent(name: String) -> ();
    trust::revoke_folder_trust(folder: String) -> ();
    files::setup_command(folder: String) -> Option<String>;
    files::set_setup_command(folder: String, command: Option<String>) -> Option<String>;
    search::search(query: SearchQuery) -> SearchResults;
    remote::remote_hosts() -> Vec<forkhost_core::RemoteHostView>;
    remote::host_threads(host: String) -> Vec<ThreadView>;
    remote::host_doctor(host: String) -> Vec<HarnessReport>;
    remote::install_on_host(host: String) -> forkhost_core::RemoteHostView;
    remote::continue_on_host(args: remote::ContinueOnHost) -> remote::ContinuedOnHost;
    commands::discover() -> Vec<DiscoveredSession>;
    commands::import(harness_name: String, session: String, trust: Option<bool>) -> ThreadDetail;
    commands::follow(thread_id: String) -> ();
    commands::unfollow(thread_id: String) -> ();
    commands::doctor() -> Vec<HarnessReport>;
    commands::window_init() -> WindowInit;
    fork_preview::fork_preview() -> ForkPreview;
    commands::set_window_tabs(tabs: Vec<TabView>, active_tab: Option<String>) -> ();
    commands::open_window(tabs: Vec<NewTab>, prefill: Option<Prefill>, focus_composer: bool) -> String;
    commands::move_tab_to_new_window(tab_id: String) -> String;
    commands::close_window() -> ();
    commands::get_settings() -> Settings;
    commands::save_settings(settings: Settings) -> ();
    settings::check_harness_path(harness: String, path: String) -> HarnessReport;
    commands::terminal_open(thread_id: String, cols: u16, rows: u16) -> String;
    commands::terminal_write(id: String, data: String) -> ();
    commands::terminal_resize(id: String, cols: u16, rows: u16) -> ();
    commands::terminal_close(id: String) -> ();
    cli_tool::cli_tool_status() -> CliToolStatus;
    cli_tool::cli_tool_install(replace: bool) -> CliToolStatus;
    cli_tool::cli_tool_uninstall() -> CliToolStatus;
    update::update_check(manual: bool) -> Option<UpdateInfo>;
    update::update_install(version: String) -> ();
    race::race_models(thread_id: String) -> Vec<String>;
    race::race_check(thread_id: String) -> forkhost_core::CheckCommandView;
    race::set_race_check(thread_id: String, command: Option<String>) -> forkhost_core::CheckCommandView;
    race::race_start(thread_id: String, at: ForkAt, lanes: Vec<race::LaneArgs>, prompt: String, shared_folder: bool, check: Option<String>, max_parallel: Option<usize>, budget_usd: Option<f64>) -> String;
    race::keep_plan(lane: String) -> forkhost_core::KeepPlan;
    race::keep(lane: String, accepted: forkhost_core::KeepPlan) -> forkhost_core::KeptView;
    // The first-run view.
    first_run::doctor_again() -> Vec<HarnessReport>;
    first_run::choose_harness_path(harness: String, path: String) -> HarnessReport;
}
