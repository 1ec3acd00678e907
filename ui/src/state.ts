// The window's state: its tabs, the threads it knows, the live turns, drafts, dialogs and
// notices. One store per window (each window is its own web view).
//
// The rule for state: what several features read or write lives here, in `AppState`. A feature
// whose state no other feature writes keeps a store of its own, made with `createStore`
// (store.ts), exported beside its writers and read through a `use…(selector)` hook: `races` in
// race/race.ts, `rewinds` in rewind/rewind.ts, the fork previews in fork/preview.ts. No
// hand-made listener sets or module-level maps a component has to be told about.
import type { AppInfo } from "./bindings/AppInfo";
import type { ApprovalView } from "./bindings/ApprovalView";
import type { GrantView } from "./bindings/GrantView";
import type { DiscoveredSession } from "./bindings/DiscoveredSession";
import type { FilesView } from "./bindings/FilesView";
import type { FillView } from "./bindings/FillView";
import type { TrustView } from "./bindings/TrustView";
import type { WorktreeLoss } from "./bindings/WorktreeLoss";
import type { HarnessReport } from "./bindings/HarnessReport";
import type { Settings } from "./bindings/Settings";
import type { TabView } from "./bindings/TabView";
import type { ThreadDetail } from "./bindings/ThreadDetail";
import type { ThreadView } from "./bindings/ThreadView";
import type { TurnEnd } from "./bindings/TurnEnd";
import type { UpdateInfo } from "./bindings/UpdateInfo";
import { createStore, useSelector } from "./store";

export type AppInfoState =
  | { status: "loading" }
  | { status: "ready"; info: AppInfo }
  | { status: "error"; message: string };

/** The turn being streamed in a thread (threads/live.ts builds it from Host events). */
export type LiveItem =
  | { kind: "text"; text: string }
  | {
      kind: "tool";
      id: string | null;
      name: string;
      input: unknown;
      output: string | null;
      isError: boolean;
    };

export type TurnPhase = "starting" | "streaming" | "ended";

export interface LiveTurn {
  /** The prompt, when it was sent from this window (otherwise unknown until re-read). */
  prompt: string | null;
  items: LiveItem[];
  phase: TurnPhase;
  /** `completed`, `interrupted` or `failed` once ended. */
  outcome: TurnEnd | null;
  error: string | null;
  /** How many turns the thread had when this one started: it is turn `baseTurns + 1`. */
  baseTurns: number;
  /** Date.now() when it started (for "running for …"). */
  startedAt: number;
}

export interface ThreadSlot {
  detail?: ThreadDetail;
  loading: boolean;
  /** Why the last read failed (code and words). */
  error?: { code: string; message: string };
  live?: LiveTurn;
}

export interface Toast {
  id: number;
  kind: "info" | "error" | "progress" | "success";
  title: string;
  message?: string;
}

export interface Highlight {
  threadId: string;
  turn: number;
  role: "user" | "assistant";
  /** The row to reveal (`turn id:message index`, a search hit's); else by turn and role. */
  key?: string;
  /** Bumped per request, so the same target can be revealed twice. */
  seq: number;
}

export type Dialog =
  | null
  /** `host`: the machine it starts on, chosen already (a host's set-up view's New thread). */
  | { kind: "new-thread"; host?: string }
  | { kind: "settings" }
  /** The first-run view: which agents are installed and signed in, and how to get the others;
   * `host`: on that remote host, as its forkhost finds them. */
  | { kind: "first-run"; host?: string }
  | { kind: "update" }
  /** "Changes in this fork": a worktree fork's files since its fork point, and Bring back. */
  | { kind: "changes"; threadId: string }
  /** What every branch of a thread's lineage tree cost, each turn once, and the sum. */
  | { kind: "tree-cost"; threadId: string }
  /** Two threads of one lineage tree side by side; `other` null: pick it first. */
  | { kind: "compare"; threadId: string; other: string | null }
  /** Archiving a thread that has a worktree: remove it too? (what would be lost, exactly) */
  | { kind: "archive"; threadId: string; loss: WorktreeLoss }
  /** The setup command new worktrees of the thread's repository run. */
  | { kind: "setup"; threadId: string }
  /** "Rewind to here…" on a reply of turn `turn`: the kinds, the plan and its loss. */
  /** `prefill`: a rewind to before a message, whose text comes back to the composer after it. */
  | { kind: "rewind"; threadId: string; turn: number; prefill?: string };

/** The repository's setup command running (or done) in a fork's new worktree. */
export interface WorktreeSetup {
  /** Its output so far (the last 64 KB), shown as text. */
  output: string;
  ended: boolean;
  success: boolean | null;
  message: string | null;
}

/** A folder-trust question waiting for the user (answered once per repository root). */
export interface TrustAsk {
  view: TrustView;
  /** true: trust, false: don't trust, null: cancelled. */
  answer: (trusted: boolean | null) => void;
}

/** The app's own update, as this window knows it (update/updater.ts). */
export type UpdateState =
  | { status: "idle" }
  | { status: "checking" }
  /** A check the user asked for found nothing newer. */
  | { status: "current" }
  | { status: "available"; info: UpdateInfo }
  | { status: "downloading"; info: UpdateInfo; downloaded: number; total: number | null }
  | { status: "installing"; info: UpdateInfo }
  | { status: "restarting"; info: UpdateInfo }
  | { status: "failed"; info: UpdateInfo | null; title: string; message: string };

export interface ContextMenuItem {
  label: string;
  action?: () => void;
  disabled?: boolean;
  title?: string;
  shortcut?: string;
  danger?: boolean;
}

export interface ContextMenuState {
  x: number;
  y: number;
  items: (ContextMenuItem | "separator")[];
}

export interface AppState {
  label: string;
  main: boolean;
  /** A hidden window waiting to be used by the next fork. */
  spare: boolean;
  /** The window finished loading its tabs (data-app-ready). */
  ready: boolean;
  info: AppInfoState;
  threads: ThreadView[];
  threadsLoaded: boolean;
  discovered: DiscoveredSession[] | null;
  doctor: HarnessReport[] | null;
  settings: Settings;
  tabs: TabView[];
  activeTab: string | null;
  sidebarOpen: boolean;
  slots: Record<string, ThreadSlot>;
  /** Threads with a turn running (from Host events, any window's). */
  streaming: Record<string, boolean>;
  /** Per thread: the approval requests its runtime waits on, oldest first (threads/approvals.ts). */
  approvals: Record<string, ApprovalView[]>;
  /** Per thread: its session grants, once read (threads/grants.ts). */
  grants: Record<string, GrantView[]>;
  drafts: Record<string, string>;
  /** Per thread: the selected row's key (keyboard fork, arrows). */
  selected: Record<string, string>;
  highlight: Highlight | null;
  /** Row key → a fork from it is running. */
  forking: Record<string, boolean>;
  /** Bumped to move the keyboard into the active composer. */
  focusComposer: number;
  dialog: Dialog;
  /** Per thread: its files as last read (worktree or folder, in git, still there). */
  files: Record<string, FilesView>;
  /** Per thread: its worktree's setup command, from `worktree_setup` events. */
  setup: Record<string, WorktreeSetup>;
  /** Per thread: its fork's worktree being filled, from `files_progress` events. */
  preparing: Record<string, FillView>;
  trustAsk: TrustAsk | null;
  menu: ContextMenuState | null;
  toasts: Toast[];
  update: UpdateState;
}

export const defaultSettings: Settings = {
  fork_opens_in: "window",
  theme: "system",
  harness_paths: { claude: null, codex: null, pi: null, opencode: null },
  check_for_updates: true,
  skipped_update: null,
  default_modes: { claude: null, codex_policy: null, codex_sandbox: null },
  fork_files: "worktree",
  prune_checkpoints_days: 30,
  max_agents: 0,
  cost_warning_cents: 0,
};

export function initialState(): AppState {
  return {
    label: "main",
    main: true,
    spare: false,
    ready: false,
    info: { status: "loading" },
    threads: [],
    threadsLoaded: false,
    discovered: null,
    doctor: null,
    settings: defaultSettings,
    tabs: [],
    activeTab: null,
    sidebarOpen: true,
    slots: {},
    streaming: {},
    approvals: {},
    grants: {},
    drafts: {},
    selected: {},
    highlight: null,
    forking: {},
    focusComposer: 0,
    dialog: null,
    files: {},
    setup: {},
    preparing: {},
    trustAsk: null,
    menu: null,
    toasts: [],
    update: { status: "idle" },
  };
}

export const store = createStore<AppState>(initialState());

export function useApp<T>(selector: (state: AppState) => T): T {
  return useSelector(store, selector);
}

/** Resets the store (tests). */
export function resetStore() {
  store.set(initialState());
}

export function updateSlot(threadId: string, update: (slot: ThreadSlot) => ThreadSlot) {
  store.set((s) => ({
    slots: { ...s.slots, [threadId]: update(s.slots[threadId] ?? { loading: false }) },
  }));
}

export function threadById(state: AppState, id: string | null | undefined): ThreadView | undefined {
  if (!id) return undefined;
  return state.threads.find((t) => t.id === id) ?? state.slots[id]?.detail;
}

export function activeTabOf(state: AppState): TabView | undefined {
  return state.tabs.find((t) => t.id === state.activeTab);
}
