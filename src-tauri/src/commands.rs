//! The Tauri commands. Each parses its input, calls one Host method (or one window/terminal
//! operation of the shell) and returns the result or a [`CommandError`]. Arguments are
//! snake_case on the JS side too (`rename_all = "snake_case"`), like the generated types.

use std::path::PathBuf;

use forkhost_core::DiscoveredSession;
use forkhost_core::{ExportFormat, ForkResult, ThreadDetail, ThreadView, TurnRef};
use forkhost_core::{ForkAt, ForkFiles, HarnessKind, HarnessReport, NewThreadSpec};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, State, WebviewWindow};

use crate::error::{AppErrorCode, CmdResult, CommandError, ErrorCode};
use crate::event_list::{channel, emit_all, emit_to};
use crate::layout::{NewTab, Prefill, TabView, WindowInit};
use crate::open_window::{self, WindowContents};
use crate::remote::thread::{self, remote};
use crate::settings::Settings;
use crate::state::AppState;
use crate::terminal::TerminalSpec;

/// Reply of [`app_info`].
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ts_rs::TS)]
#[ts(export)]
pub struct AppInfo {
    /// The app's version (its Cargo package version).
    pub version: String,
    /// The data folder holding the store and the logs.
    pub data_dir: String,
}

/// What `create` needs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct NewThreadArgs {
    pub harness: HarnessKind,
    pub cwd: String,
    pub title: Option<String>,
    /// The permission mode in the harness's words (Claude's mode, Codex's approval policy);
    /// null: the harness's default.
    #[serde(default)]
    pub mode: Option<String>,
    /// Codex's sandbox; null: its default.
    #[serde(default)]
    pub sandbox: Option<String>,
    /// The remote host to start it on (its `cwd` a folder there); null: this machine.
    #[serde(default)]
    pub host: Option<String>,
}

fn harness(name: &str) -> CmdResult<HarnessKind> {
    name.parse::<HarnessKind>()
        .map_err(|e| CommandError::new(ErrorCode::InvalidInput, e.to_string()))
}

/// Async (off the main thread), as every command a window's start waits for.
#[tauri::command]
pub async fn app_info(app: AppHandle, state: State<'_, AppState>) -> CmdResult<AppInfo> {
    Ok(AppInfo {
        version: app.package_info().version.to_string(),
        data_dir: state.data_dir.display().to_string(),
    })
}

// ---- Host ---------------------------------------------------------------------------------

#[tauri::command(rename_all = "snake_case")]
pub async fn threads(state: State<'_, AppState>) -> CmdResult<Vec<ThreadView>> {
    Ok(state.host.threads().await?)
}

/// A thread read at least this long gives its transient memory back afterwards.
const TRIM_AFTER_MESSAGES: usize = 1_000;

#[tauri::command(rename_all = "snake_case")]
pub async fn show(state: State<'_, AppState>, thread_id: String) -> CmdResult<ThreadDetail> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::show(&state, host, thread).await?);
    }
    let detail = state.host.show(&thread_id).await?;
    // Sent as JSON after this returns; what reading and sending a long thread took is freed
    // then (not after every small read: a trim walks the allocator's heaps).
    let messages: usize = detail.turns.iter().map(|t| t.messages.len()).sum();
    if messages >= TRIM_AFTER_MESSAGES {
        crate::platform::trim_memory_soon();
    }
    Ok(detail)
}

/// What every branch of `thread_id`'s tree cost, each turn counted once (the sidebar's and the
/// header's "Cost of this tree").
#[tauri::command(rename_all = "snake_case")]
pub async fn tree_cost(
    state: State<'_, AppState>,
    thread_id: String,
) -> CmdResult<forkhost_core::TreeCost> {
    if let Some((host, thread)) = crate::remote::thread::remote(&thread_id) {
        return Ok(crate::remote::thread::tree_cost(&state, host, thread).await?);
    }
    Ok(state.host.tree_cost(&thread_id).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn create(state: State<'_, AppState>, spec: NewThreadArgs) -> CmdResult<ThreadDetail> {
    if let Some(host) = spec.host.as_deref().filter(|h| !h.is_empty()) {
        let permissions = crate::approvals::permissions(spec.mode, spec.sandbox);
        let created = thread::create(
            &state,
            host,
            spec.harness,
            &spec.cwd,
            spec.title,
            permissions,
        );
        return Ok(created.await?);
    }
    let cwd = expand_home(spec.cwd.trim());
    Ok(state
        .host
        .create(NewThreadSpec {
            harness: spec.harness,
            cwd,
            title: spec.title,
            permissions: crate::approvals::permissions(spec.mode, spec.sandbox),
        })
        .await?)
}

/// Starts a turn and returns at once; the reply streams as `host-event`s.
#[tauri::command(rename_all = "snake_case")]
pub async fn start_turn(
    state: State<'_, AppState>,
    thread_id: String,
    prompt: String,
) -> CmdResult<()> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::start_turn(&state, host, thread, &prompt).await?);
    }
    // The outcome also arrives as a `turn_ended` event; the receiver is not needed here.
    let _done = state.host.start_turn(&thread_id, &prompt).await?;
    Ok(())
}

#[tauri::command(rename_all = "snake_case")]
pub async fn interrupt(state: State<'_, AppState>, thread_id: String) -> CmdResult<()> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::interrupt(&state, host, thread).await?);
    }
    Ok(state.host.interrupt(&thread_id).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn close(state: State<'_, AppState>, thread_id: String) -> CmdResult<()> {
    if remote(&thread_id).is_some() {
        // Its runtime is the remote daemon's, which stops it when idle.
        return Ok(());
    }
    Ok(state.host.close(&thread_id).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn is_streaming(state: State<'_, AppState>, thread_id: String) -> CmdResult<bool> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(state.remote.is_streaming(host, thread));
    }
    Ok(state.host.is_streaming(&thread_id).await)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn rename(
    state: State<'_, AppState>,
    thread_id: String,
    title: String,
) -> CmdResult<ThreadView> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::rename(&state, host, thread, &title).await?);
    }
    Ok(state.host.rename(&thread_id, &title).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn archive(
    state: State<'_, AppState>,
    thread_id: String,
    archived: bool,
) -> CmdResult<ThreadView> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::archive(&state, host, thread, archived).await?);
    }
    Ok(state.host.archive(&thread_id, archived).await?)
}

/// A thread's branch from the root to turn `to` (all of it when `None`), as Markdown or JSON
/// text (the message menu's Copy as Markdown).
#[tauri::command(rename_all = "snake_case")]
pub async fn export(
    state: State<'_, AppState>,
    thread_id: String,
    to: Option<TurnRef>,
    format: ExportFormat,
) -> CmdResult<String> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(thread::export(&state, host, thread, to, format).await?);
    }
    Ok(state.host.export(&thread_id, to, format).await?)
}

/// Reply of [`fork`]: the fork, and the window it opened in.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkReply {
    #[serde(flatten)]
    #[ts(flatten)]
    pub result: ForkResult,
    /// The label of the window the fork opened in (`for_window`). Its thread then comes without
    /// turns: the window got them. Null for a tab, or when no window could be opened (the turns
    /// are there then; the caller may open one with `open_window`).
    pub window: Option<String>,
}

/// Forks `thread_id` at `at`, its files as `files` says (null: as Settings' "When I fork" says).
/// `for_window`: the fork opens in a window of its own, here: the spare window shows while the
/// harness forks, and gets the fork's detail serialized once (in its `window_init` reply), not
/// through the calling window. `into`: continue in another harness (null or the thread's own:
/// a native fork).
// A Tauri command's arguments are its IPC fields, one each (generated into commands.ts).
#[allow(clippy::too_many_arguments)]
#[tauri::command(rename_all = "snake_case")]
pub async fn fork(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
    thread_id: String,
    at: ForkAt,
    files: Option<ForkFiles>,
    for_window: Option<bool>,
    into: Option<HarnessKind>,
) -> CmdResult<ForkReply> {
    let files = files.unwrap_or_else(|| {
        let settings = state.settings.lock().unwrap_or_else(|e| e.into_inner());
        settings.fork_files.fork_files()
    });
    if let Some((host, thread)) = remote(&thread_id) {
        // A remote fork opens in a tab here (the spare window is this machine's Host's).
        let result = thread::fork(&state, host, thread, at, files, into).await?;
        return Ok(ForkReply {
            result,
            window: None,
        });
    }
    // Showing the spare takes round trips to the main thread: beside the fork, not before it.
    // It shows the history the fork inherits meanwhile (crate::fork_preview).
    let showing = for_window
        .unwrap_or(false)
        .then(|| crate::fork_preview::show_with_preview(&app, &window, &thread_id, &at, into));
    let forked = state.host.fork_into(&thread_id, at, files, into).await;
    let (result, opened_in) = match showing {
        Some(showing) => {
            open_window::open_fork_window(&app, &state, &window, showing, forked).await?
        }
        None => (forked?, None),
    };
    Ok(ForkReply {
        result,
        window: opened_in,
    })
}

#[tauri::command(rename_all = "snake_case")]
pub async fn discover(state: State<'_, AppState>) -> CmdResult<Vec<DiscoveredSession>> {
    Ok(state.host.discover().await?)
}

/// Adopts a native session as a thread. `trust`: the user's answer for its folder's project
/// agent config when it was undecided (the first try is refused `invalid_input` naming it).
#[tauri::command(rename_all = "snake_case")]
pub async fn import(
    state: State<'_, AppState>,
    harness_name: String,
    session: String,
    trust: Option<bool>,
) -> CmdResult<ThreadDetail> {
    Ok(state
        .host
        .import_trusting(harness(&harness_name)?, &session, trust)
        .await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn follow(state: State<'_, AppState>, thread_id: String) -> CmdResult<()> {
    if let Some((host, thread)) = remote(&thread_id) {
        return Ok(state.remote.follow(host, thread).await?);
    }
    Ok(state.host.follow(&thread_id).await?)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn unfollow(state: State<'_, AppState>, thread_id: String) -> CmdResult<()> {
    state.host.unfollow(&thread_id);
    Ok(())
}

#[tauri::command(rename_all = "snake_case")]
pub async fn doctor(state: State<'_, AppState>) -> CmdResult<Vec<HarnessReport>> {
    Ok(state.host.doctor().await)
}

// ---- windows and tabs ---------------------------------------------------------------------

/// What the calling window starts with: its tabs, and for a fork window the prefill. Async: a
/// command without `async` runs on the main thread, which is busy showing the very window that
/// asks (a fork's) — its answer waited for that.
#[tauri::command(rename_all = "snake_case")]
pub async fn window_init(
    window: WebviewWindow,
    state: State<'_, AppState>,
) -> CmdResult<WindowInit> {
    Ok(state.windows().init(window.label()))
}

/// The calling window's tabs changed (opened, closed, reordered, activated).
#[tauri::command(rename_all = "snake_case")]
pub fn set_window_tabs(
    window: WebviewWindow,
    state: State<'_, AppState>,
    tabs: Vec<TabView>,
    active_tab: Option<String>,
) {
    state.update_layout(|w| w.set_tabs(window.label(), tabs, active_tab));
}

/// Opens a new window holding `tabs`, cascaded from the calling window; returns its label.
/// (A fork's window opens from [`fork`] itself.)
#[tauri::command(rename_all = "snake_case")]
pub async fn open_window(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
    tabs: Vec<NewTab>,
    prefill: Option<Prefill>,
    focus_composer: bool,
) -> CmdResult<String> {
    let contents = WindowContents {
        tabs,
        prefill,
        focus_composer,
        seed: None,
    };
    open_window::open_window(&app, &state, &window, contents, None)
}

/// Moves one tab of the calling window into a new window; returns the new window's label.
#[tauri::command(rename_all = "snake_case")]
pub async fn move_tab_to_new_window(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
    tab_id: String,
) -> CmdResult<String> {
    let tab = state
        .windows()
        .window(window.label())
        .and_then(|w| w.tabs.iter().find(|t| t.id == tab_id).cloned())
        .ok_or_else(|| CommandError::new(AppErrorCode::Window, format!("no tab {tab_id} here")))?;
    // Open the new window first: the thread never leaves the layout, so its runtime lives on.
    let contents = WindowContents {
        tabs: vec![NewTab {
            thread_id: tab.thread_id,
            kind: tab.kind,
        }],
        ..WindowContents::default()
    };
    let label = open_window::open_window(&app, &state, &window, contents, None)?;
    state.update_layout(|w| w.take_tab(window.label(), &tab_id));
    emit_to::<channel::LayoutChanged>(&window, window.label(), &());
    Ok(label)
}

/// Closes the calling window (its tabs leave the layout unless it is the last window).
#[tauri::command(rename_all = "snake_case")]
pub fn close_window(window: WebviewWindow) -> CmdResult<()> {
    Ok(window.close()?)
}

// ---- settings -----------------------------------------------------------------------------

#[tauri::command(rename_all = "snake_case")]
pub async fn get_settings(state: State<'_, AppState>) -> CmdResult<Settings> {
    Ok(state
        .settings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone())
}

/// Saves the settings and tells every window. Harness paths take effect at the next start.
#[tauri::command(rename_all = "snake_case")]
pub fn save_settings(
    app: AppHandle,
    state: State<'_, AppState>,
    settings: Settings,
) -> CmdResult<()> {
    crate::settings::save(&state.data_dir, &settings)?;
    *state.settings.lock().unwrap_or_else(|e| e.into_inner()) = settings.clone();
    emit_all::<channel::SettingsChanged>(&app, &settings);
    Ok(())
}

// ---- terminal -----------------------------------------------------------------------------

/// Opens the harness's own TUI on the thread's session in a PTY; returns the terminal id.
/// Output arrives as `terminal-output` events, the end as `terminal-exit`.
#[tauri::command(rename_all = "snake_case")]
pub async fn terminal_open(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
    thread_id: String,
    cols: u16,
    rows: u16,
) -> CmdResult<String> {
    if let Some((host, id)) = crate::remote::thread::remote(&thread_id) {
        // The host's TUI over `ssh -t` (the bundled CLI's `--host NAME terminal ID`): that
        // machine's daemon holds the thread while it runs and frees it when it ends — or when
        // the connection drops — so nothing here has to hand it back.
        let spec = crate::remote::cli::terminal_spec(&state.data_dir, host, id)?;
        return state
            .terminals
            .open(&app, window.label(), &thread_id, spec, (cols, rows), || {});
    }
    let command = state.host.terminal_command(&thread_id).await?;
    let spec = TerminalSpec {
        program: command.program,
        args: command.args,
        cwd: Some(command.cwd),
        env: command.env,
    };
    let host = state.host.clone();
    let thread = thread_id.clone();
    let opened = state.terminals.open(
        &app,
        window.label(),
        &thread_id,
        spec,
        (cols, rows),
        move || {
            tauri::async_runtime::spawn(async move {
                if let Err(err) = host.release_terminal(&thread).await {
                    tracing::warn!(thread = %thread, code = err.code(), "release_terminal failed");
                }
            });
        },
    );
    if opened.is_err() {
        let _ = state.host.release_terminal(&thread_id).await;
    }
    opened
}

#[tauri::command(rename_all = "snake_case")]
pub fn terminal_write(state: State<'_, AppState>, id: String, data: String) -> CmdResult<()> {
    state.terminals.write(&id, &data)
}

#[tauri::command(rename_all = "snake_case")]
pub fn terminal_resize(
    state: State<'_, AppState>,
    id: String,
    cols: u16,
    rows: u16,
) -> CmdResult<()> {
    state.terminals.resize(&id, cols, rows)
}

/// Ends the terminal's process and hands the session back to the structured runtime (returns
/// once the Host took it back, so a send right after works).
#[tauri::command(rename_all = "snake_case")]
pub async fn terminal_close(state: State<'_, AppState>, id: String) -> CmdResult<()> {
    let thread = state.terminals.thread_of(&id);
    state.terminals.kill(&id)?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while state.terminals.thread_of(&id).is_some() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    match thread
        .as_deref()
        .map(|t| (t, crate::remote::thread::remote(t)))
    {
        // The TUI there ends with its ssh; the host is told at once too, so a send right
        // after the close is not refused while that machine is still taking it down.
        Some((_, Some((host, id)))) => {
            let call = forkhost_core::Call::ReleaseTerminal { thread: id.into() };
            state.remote.call(host, call).await?;
        }
        Some((thread, None)) => state.host.release_terminal(thread).await?,
        None => {}
    }
    Ok(())
}

/// `~/x` (or `~\x`) → the home folder's `x`: a folder typed by hand.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    forkhost_core::harnesses::expand_tilde(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_thread_without_mode_words_takes_the_harness_default() {
        let args: NewThreadArgs =
            serde_json::from_str(r#"{"harness":"pi","cwd":"/p","title":null}"#).unwrap();
        assert_eq!((args.mode, args.sandbox), (None, None));
    }

    #[test]
    fn home_is_expanded() {
        let home = std::env::var("HOME").unwrap();
        assert_eq!(expand_home("~/p"), PathBuf::from(&home).join("p"));
        assert_eq!(expand_home("/abs"), PathBuf::from("/abs"));
    }
}
