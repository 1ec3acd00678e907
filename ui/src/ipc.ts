// The one door between the UI and the Rust side: every Tauri command, event and plugin call goes
// through this module, so the rest of the UI stays plain React and can be tested with this module
// mocked. Argument and result types are generated from Rust (ui/src/bindings, ts-rs), and so are
// the map of the commands (bindings/commands.ts, from src-tauri/src/command_list.rs) and the map
// of the events (bindings/events.ts, from src-tauri/src/event_list.rs): a command, argument or
// event renamed in Rust, or a payload changed, fails the type check here.
import { invoke, isTauri, type InvokeArgs } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { getCurrentWebviewWindow } from "@tauri-apps/api/webviewWindow";
import { open as openDialog } from "@tauri-apps/plugin-dialog";
import { openUrl } from "@tauri-apps/plugin-opener";

import type { AppInfo } from "./bindings/AppInfo";
import type { ChangesView } from "./bindings/ChangesView";
import type { FileChangeView } from "./bindings/FileChangeView";
import type { FilesView } from "./bindings/FilesView";
import type { ForkFiles } from "./bindings/ForkFiles";
import type { HarnessKind } from "./bindings/HarnessKind";
import type { TrustView } from "./bindings/TrustView";
import type { WorktreeLoss } from "./bindings/WorktreeLoss";
import type { ApprovalDecision } from "./bindings/ApprovalDecision";
import type { ApprovalView } from "./bindings/ApprovalView";
import type { CliToolStatus } from "./bindings/CliToolStatus";
import type { CommandError } from "./bindings/CommandError";
import type { CommandErrorCode } from "./bindings/CommandErrorCode";
import type { ContinueOnHost } from "./bindings/ContinueOnHost";
import type { Commands } from "./bindings/commands";
import type { AppEventName, Events, WindowEventName } from "./bindings/events";
import type { DiscoveredSession } from "./bindings/DiscoveredSession";
import type { ExportFormat } from "./bindings/ExportFormat";
import type { RewindKind } from "./bindings/RewindKind";
import type { ForkAt } from "./bindings/ForkAt";
import type { ForkReply } from "./bindings/ForkReply";
import type { ForkResult } from "./bindings/ForkResult";
import type { HarnessReport } from "./bindings/HarnessReport";
import type { HostEvent } from "./bindings/HostEvent";
import type { NewTab } from "./bindings/NewTab";
import type { NewThreadArgs } from "./bindings/NewThreadArgs";
import type { Prefill } from "./bindings/Prefill";
import type { Settings } from "./bindings/Settings";
import type { SearchQuery } from "./bindings/SearchQuery";
import type { TabView } from "./bindings/TabView";
import type { TerminalExit } from "./bindings/TerminalExit";
import type { TerminalOutput } from "./bindings/TerminalOutput";
import type { ThreadDetail } from "./bindings/ThreadDetail";
import type { ThreadView } from "./bindings/ThreadView";
import type { UpdateInfo } from "./bindings/UpdateInfo";
import type { UpdateProgress } from "./bindings/UpdateProgress";
import type { WindowInit } from "./bindings/WindowInit";

export type {
  AppInfo,
  ApprovalDecision,
  ChangesView,
  FileChangeView,
  FilesView,
  ForkFiles,
  TrustView,
  WorktreeLoss,
  ApprovalView,
  CliToolStatus,
  DiscoveredSession,
  ForkAt,
  ForkReply,
  ForkResult,
  HarnessReport,
  HostEvent,
  NewTab,
  Prefill,
  Settings,
  TabView,
  ThreadDetail,
  ThreadView,
  UpdateInfo,
  UpdateProgress,
  WindowInit,
};

/** A failed command: the Host's stable code and a message (and, for a folder whose trust is
 * undecided, that folder). */
export class IpcError extends Error {
  readonly code: CommandErrorCode;
  readonly trust: TrustView | null;
  constructor(code: CommandErrorCode, message: string, trust: TrustView | null = null) {
    super(message);
    this.name = "IpcError";
    this.code = code;
    this.trust = trust;
  }
}

function toIpcError(err: unknown): IpcError {
  if (err instanceof IpcError) return err;
  if (err && typeof err === "object" && "code" in err && "message" in err) {
    const e = err as CommandError;
    return new IpcError(e.code, String(e.message), e.trust ?? null);
  }
  return new IpcError("internal", err instanceof Error ? err.message : String(err));
}

/** True inside the desktop app; false in a plain browser (e.g. `vite` alone). */
export function inApp(): boolean {
  return isTauri();
}

/** Calls a command of the generated map: its name, arguments and reply are Rust's. */
async function call<C extends keyof Commands>(
  command: C,
  ...args: Commands[C]["args"]
): Promise<Commands[C]["reply"]> {
  if (!inApp()) {
    throw new IpcError("internal", "not running inside the Forkhost app");
  }
  try {
    return await invoke<Commands[C]["reply"]>(command, args[0] as InvokeArgs | undefined);
  } catch (err) {
    throw toIpcError(err);
  }
}

// ---- commands: one per Host method -----------------------------------------------------------

/** Version and data folder of the running app. */
export const appInfo = () => call("app_info");
export const threads = () => call("threads");
export const show = (threadId: string) => call("show", { thread_id: threadId });
/** Every branch of the thread's lineage tree, its own turns' cost, and their sum. */
export const treeCost = (threadId: string) => call("tree_cost", { thread_id: threadId });
export const create = (spec: NewThreadArgs) => call("create", { spec });
/** Starts a turn; returns once it started. The reply streams as host events. */
export const startTurn = (threadId: string, prompt: string) =>
  call("start_turn", { thread_id: threadId, prompt });
export const interrupt = (threadId: string) => call("interrupt", { thread_id: threadId });
export const closeThread = (threadId: string) => call("close", { thread_id: threadId });
export const isStreaming = (threadId: string) =>
  call("is_streaming", { thread_id: threadId });
export const answerApproval = (threadId: string, requestId: string, decision: ApprovalDecision) =>
  call("answer_approval", { thread_id: threadId, request_id: requestId, decision });
/** Answers a question request: one text per question, or null to dismiss it. */
export const answerQuestion = (threadId: string, requestId: string, answers: string[] | null) =>
  call("answer_question", { thread_id: threadId, request_id: requestId, answers });
export const pendingApprovals = (threadId: string) =>
  call("pending_approvals", { thread_id: threadId });
/** The thread's session grants ("Always this session"), oldest first. */
export const sessionGrants = (threadId: string) => call("session_grants", { thread_id: threadId });
/** Revokes one session grant; the harness process that may remember it ends (at once when idle). */
export const revokeGrant = (threadId: string, grantId: string) =>
  call("revoke_grant", { thread_id: threadId, grant_id: grantId });
/**
 * Changes the thread's permission mode (from its runtime's next start); null words are the
 * harness's default. Rejects `busy` while a turn runs, `invalid_input` for a word it lacks.
 */
export const setMode = (threadId: string, mode: string | null, sandbox: string | null) =>
  call("set_mode", { thread_id: threadId, mode, sandbox });
export const rename = (threadId: string, title: string) =>
  call("rename", { thread_id: threadId, title });
export const archive = (threadId: string, archived: boolean) =>
  call("archive", { thread_id: threadId, archived });
/** A thread's branch from the root to turn `to` (a number; all of it when null) as text. */
export const exportBranch = (threadId: string, to: number | null, format: ExportFormat) =>
  call("export", { thread_id: threadId, to, format });
/** What rewinding the thread to the end of turn `to` would write back, delete and lose. */
export const rewindPlan = (threadId: string, to: number, kind: RewindKind) =>
  call("rewind_plan", { thread_id: threadId, to, kind });
/** Rewinds in place; `acceptedLoss`: the loss the user saw (a different one is `conflict`). */
export const rewind = (threadId: string, to: number, kind: RewindKind, acceptedLoss: string[] | null) =>
  call("rewind", { thread_id: threadId, to, kind, accepted_loss: acceptedLoss });
/** Undoes the thread's latest rewind: its old line back, and its files as before. */
export const undoRewind = (threadId: string) => call("undo_rewind", { thread_id: threadId });
/** The thread's rewinds and those whose branch it is, newest first. */
export const rewinds = (threadId: string) => call("rewinds", { thread_id: threadId });
/** Every thread a rewind (or its undo) set aside as a branch. */
export const rewoundBranches = () => call("rewound_branches");
/**
 * Forks a thread. `forWindow`: the fork opens in a window of its own, which the app opens (its
 * preloaded spare shows while the harness forks) and hands the fork's detail directly; the
 * reply names that window, and its thread then has no turns. `files`: a new worktree with the
 * files as of the fork point, or the same folder; null: as Settings' "When I fork" says.
 */
export const fork = (
  threadId: string,
  at: ForkAt,
  forWindow = false,
  files: ForkFiles | null = null,
  into: HarnessKind | null = null,
) => call("fork", { thread_id: threadId, at, files, for_window: forWindow, into });
/** The remote hosts the user added (`forkhost hosts add`), by name. */
export const remoteHosts = () => call("remote_hosts");
/** The threads of a remote host, as its own forkhost lists them (over the user's ssh). */
export const hostThreads = (host: string) => call("host_threads", { host });
/** The harnesses on a remote host, as its own `doctor` finds them there. */
export const hostDoctor = (host: string) => call("host_doctor", { host });
/** Copies this app's forkhost to the host (one of another version), as `forkhost hosts install`. */
export const installOnHost = (host: string) => call("install_on_host", { host });
/** Continues a thread on another machine from one of its messages, with its files unless
 * `files` is false; the new thread is the remote's. */
export const continueOnHost = (args: ContinueOnHost) => call("continue_on_host", { args });
/** Searches every thread and the sessions not adopted yet (a newer search stops this one). */
export const search = (query: SearchQuery) => call("search", { query });
export const discover = () => call("discover");
/** Adopts a native session; `trust`: the user's answer for its folder's agent config. */
export const importSession = (harness: string, session: string, trust: boolean | null = null) =>
  call("import", { harness_name: harness, session, trust });
export const follow = (threadId: string) => call("follow", { thread_id: threadId });
export const unfollow = (threadId: string) => call("unfollow", { thread_id: threadId });
export const doctor = () => call("doctor");
/** Every harness looked for again (one installed or signed in since); the first-run view's Check again. */
export const doctorAgain = () => call("doctor_again");
/**
 * Uses the binary at `path` for `harness` from now on and saves it as its path (checked like a
 * Settings path first; rejects `harness_not_found` or `invalid_input` with a sentence).
 */
export const chooseHarnessPath = (harness: string, path: string) =>
  call("choose_harness_path", { harness, path });

// ---- a thread's files, folder trust ----------------------------------------------------------

/** The thread's folder kind (worktree or folder), whether it is in git and still there. */
export const files = (threadId: string) => call("files", { thread_id: threadId });
/** `other` null: a worktree fork's changes since its fork point; else the two threads' files. */
export const changes = (threadId: string, other: string | null = null) =>
  call("changes", { thread_id: threadId, other });
/** Applies the fork's changes to the target's folder; rejects `conflict` in words. */
export const bringBack = (forkId: string, targetId: string) =>
  call("bring_back", { fork_id: forkId, target_id: targetId });
/** What removing the thread's worktree would lose now. */
export const worktreeLoss = (threadId: string) => call("worktree_loss", { thread_id: threadId });
/** Removes the worktree; with something to lose only when `accepted` is exactly that loss. */
export const removeWorktree = (threadId: string, accepted: WorktreeLoss | null) =>
  call("remove_worktree", { thread_id: threadId, accepted });
/** A folder's trust; `host`: a folder of that remote host, judged there. */
export const folderTrust = (folder: string, host?: string | null) =>
  call("folder_trust", { folder, host: host ?? null });
/** `shown`: the digest of the view the user answered (config changed since is `conflict`). */
export const setFolderTrust = (folder: string, trusted: boolean, shown?: string | null, host?: string | null) =>
  call("set_folder_trust", { folder, trusted, shown: shown ?? null, host: host ?? null });
/** Every folder-trust answer (Settings ▸ Trusted folders). */
export const trustedFolders = () => call("trusted_folders");
/** Every ACP agent (shipped and added), each started and asked what it can do. */
export const acpAgents = () => call("acp_agents");
/** Keeps the ACP agent `name`, started by the command line `command`. */
export const addAcpAgent = (name: string, command: string) => call("add_acp_agent", { name, command });
/** Forgets an added ACP agent. */
export const removeAcpAgent = (name: string) => call("remove_acp_agent", { name });
/** Forgets the answer kept for `folder`: the next thread there asks again. */
export const revokeFolderTrust = (folder: string) => call("revoke_folder_trust", { folder });
/** The command new worktrees of the repository holding `folder` run once (null: none). */
export const setupCommand = (folder: string) => call("setup_command", { folder });
/** Sets it (null or blank: none); resolves to what is set now. */
export const setSetupCommand = (folder: string, command: string | null) =>
  call("set_setup_command", { folder, command });

// ---- windows and tabs ------------------------------------------------------------------------

export const windowInit = () => call("window_init");
/** A window shown for a fork being made: the history the fork inherits (null: none, or no more). */
export const forkPreview = () => call("fork_preview");
export const setWindowTabs = (tabs: TabView[], activeTab: string | null) =>
  call("set_window_tabs", { tabs, active_tab: activeTab });
/**
 * Opens a window with these tabs (the app's preloaded spare window when it has one); returns its
 * label. (A fork's window: `fork` with `forWindow`.)
 */
export const openWindow = (tabs: NewTab[], prefill: Prefill | null, focusComposer: boolean) =>
  call("open_window", { tabs, prefill, focus_composer: focusComposer });
export const moveTabToNewWindow = (tabId: string) =>
  call("move_tab_to_new_window", { tab_id: tabId });
export const closeWindow = () => call("close_window");

export async function setWindowTitle(title: string): Promise<void> {
  // The document's title too: what WebDriver and screen readers read.
  document.title = title;
  if (!inApp()) return;
  try {
    await getCurrentWindow().setTitle(title);
  } catch {
    document.title = title;
  }
}

// ---- settings --------------------------------------------------------------------------------

export const getSettings = () => call("get_settings");
export const saveSettings = (settings: Settings) => call("save_settings", { settings });
/**
 * Checks a harness binary path typed in Settings before it is saved: it must exist, be startable
 * (PATHEXT rules on Windows) and its `--version` must name the harness. Resolves to what `doctor`
 * would show for it; rejects with `harness_not_found` or `invalid_input` and a sentence.
 */
export const checkHarnessPath = (harness: string, path: string) =>
  call("check_harness_path", { harness, path });

// ---- updates ---------------------------------------------------------------------------------

/**
 * Asks the update server for a newer release; null when there is none. `manual`: the user asked,
 * so failures reject (the start-up check resolves null instead).
 */
export const updateCheck = (manual: boolean) => call("update_check", { manual });
/**
 * Downloads, verifies and installs `version` (the one the last check found), then the app
 * restarts. Progress arrives as `update-progress` events to this window.
 */
export const updateInstall = (version: string) => call("update_install", { version });

// ---- command-line tool ----------------------------------------------------------------------

/** Where the bundled `forkhost` CLI is and whether it is on PATH. */
export const cliToolStatus = () => call("cli_tool_status");
/**
 * Puts the bundled CLI on PATH. `replace`: the user confirmed replacing a `forkhost` that is not
 * Forkhost's (without it, such a file rejects with code `conflict`).
 */
export const cliToolInstall = (replace: boolean) =>
  call("cli_tool_install", { replace });
/** Removes exactly what Install added. */
export const cliToolUninstall = () => call("cli_tool_uninstall");

// ---- terminal --------------------------------------------------------------------------------

export const terminalOpen = (threadId: string, cols: number, rows: number) =>
  call("terminal_open", { thread_id: threadId, cols, rows });
export const terminalWrite = (id: string, data: string) =>
  call("terminal_write", { id, data });
export const terminalResize = (id: string, cols: number, rows: number) =>
  call("terminal_resize", { id, cols, rows });
export const terminalClose = (id: string) => call("terminal_close", { id });

// ---- events ----------------------------------------------------------------------------------

/** An event sent to every window: one of the generated map's, with its payload. */
function on<E extends AppEventName>(name: E, handler: (payload: Events[E]) => void): Promise<UnlistenFn> {
  if (!inApp()) return Promise.resolve(() => {});
  return listen<Events[E]>(name, (e) => handler(e.payload));
}

/**
 * An event sent to this window only (`emit_to` its label). A plain `listen` would also hear
 * what is sent to the other windows.
 */
function onHere<E extends WindowEventName>(
  name: E,
  handler: (payload: Events[E]) => void,
): Promise<UnlistenFn> {
  if (!inApp()) return Promise.resolve(() => {});
  return getCurrentWebviewWindow().listen<Events[E]>(name, (e) => handler(e.payload));
}

/** Every Host event (deltas, turn ends, thread changes) of every thread. */
export const onHostEvent = (handler: (event: HostEvent) => void) => on("host-event", handler);
/** The UI missed Host events: re-read what is shown. */
export const onHostLagged = (handler: () => void) => on("host-lagged", () => handler());
/** A menu item was chosen while this window had focus. */
export const onMenu = (handler: (id: string) => void) => onHere("menu", handler);
export const onSettingsChanged = (handler: (settings: Settings) => void) =>
  on("settings-changed", handler);
/** This spare window was given tabs: `windowInit` now says what it holds. */
export const onWindowAssign = (handler: () => void) => onHere("window-assign", () => handler());
/** This window, shown for a fork being made, has its preview to ask for (or lost it). */
export const onForkPreview = (handler: () => void) => onHere("fork-preview", () => handler());
/** The shell changed this window's tabs (a tab moved to another window). */
export const onLayoutChanged = (handler: () => void) => onHere("layout-changed", () => handler());
/**
 * This window gained focus after a notification about one of its threads, which still waits:
 * show it (the app sends this; notifications have no click callback on every OS).
 */
export const onActivateThread = (handler: (threadId: string) => void) =>
  onHere("activate-thread", handler);
/** Progress of an update this window is installing. */
export const onUpdateProgress = (handler: (progress: UpdateProgress) => void) =>
  onHere("update-progress", handler);
export const onTerminalOutput = (handler: (output: TerminalOutput) => void) =>
  onHere("terminal-output", handler);
export const onTerminalExit = (handler: (exit: TerminalExit) => void) =>
  onHere("terminal-exit", handler);

// ---- plugins ---------------------------------------------------------------------------------

/** The OS folder picker; null when cancelled. */
export async function pickFolder(defaultPath?: string): Promise<string | null> {
  if (!inApp()) return null;
  const chosen = await openDialog({ directory: true, multiple: false, defaultPath });
  return typeof chosen === "string" ? chosen : null;
}

/**
 * The OS file picker for a program; null when cancelled. WebDriver cannot drive the OS dialog,
 * so an app test sets `window.__forkhostPickFile` to the path it would choose.
 */
export async function pickFile(title: string): Promise<string | null> {
  const stand_in = (window as { __forkhostPickFile?: string }).__forkhostPickFile;
  if (typeof stand_in === "string") return stand_in;
  if (!inApp()) return null;
  const chosen = await openDialog({ directory: false, multiple: false, title });
  return typeof chosen === "string" ? chosen : null;
}

/** Opens an http(s)/mailto link in the user's browser. */
export async function openExternal(url: string): Promise<void> {
  if (!/^(https?:|mailto:)/i.test(url)) return;
  if (!inApp()) {
    window.open(url, "_blank", "noopener,noreferrer");
    return;
  }
  await openUrl(url);
}

// ---- races (race/) ------------------------------------------------------------------------------

/** The models the thread's harness offers (empty: it names none; any name is tried). */
export const raceModels = (threadId: string) => call("race_models", { thread_id: threadId });
/** The thread's repository check command and whether exactly it was approved. */
export const raceCheck = (threadId: string) => call("race_check", { thread_id: threadId });
/** Starts a race; its lanes come as `race-lane` events, its end as `race-ended`. */
export const raceStart = (args: Commands["race_start"]["args"][0]) => call("race_start", args);
export const keepPlan = (lane: string) => call("keep_plan", { lane });
export const keep = (lane: string, accepted: Commands["keep"]["args"][0]["accepted"]) =>
  call("keep", { lane, accepted });
export const onRaceLane = (handler: (payload: Events["race-lane"]) => void) => on("race-lane", handler);
export const onRaceEnded = (handler: (payload: Events["race-ended"]) => void) => on("race-ended", handler);
