// What the user can do, and how the window follows the Host: each action updates the store and
// calls the app through ipc.ts.
import * as ipc from "./ipc";
import type { ForkAt, HostEvent, TabView, ThreadDetail, ThreadView, WindowInit } from "./ipc";
import { describeError } from "./errors";
import { applyEvent, settled, startLive } from "./live";
import {
  type AppState,
  type ContextMenuState,
  type Dialog,
  type Toast,
  activeTabOf,
  store,
  threadById,
  updateSlot,
} from "./state";

// ---- measurements (read by the benchmarks over WebDriver) ------------------------------------

export interface OpenMeasure {
  threadId: string;
  messages: number;
  /** `show` over IPC, ms. */
  readMs: number;
  /** From the data being read to the list's first paint, ms. */
  firstPaintMs: number | null;
  /** From the data being read to a scrollable list scrolled to its end, ms. */
  scrollableMs: number | null;
  /** Date.now() at first paint (compared across windows with a fork's click time). */
  paintedAt: number | null;
  /** Date.now() when the data was in hand (a fork window: its seed arrived). */
  readEpoch: number;
  /** From the data being read to the list's first render (React), ms. */
  renderMs: number | null;
}

export interface ForkMeasure {
  threadId: string;
  forkId: string;
  /** The label of the window it opened in (null: a tab here). */
  window: string | null;
  /** Date.now() at the click. */
  clickedAt: number;
  /** Click → the fork command returned, ms. */
  commandMs: number;
  nativeMs: number;
  hostTotalMs: number;
  opensIn: "window" | "tab";
}

interface Perf {
  opens: OpenMeasure[];
  forks: ForkMeasure[];
  /** A spare window: Date.now() when it was assigned (its event), and when it became visible. */
  assignedAt?: number;
  visibleAt?: number;
  /** Its first frame after becoming visible, Date.now(). */
  firstFrameAt?: number;
  /** Every full read of a thread (`show`): when it started (Date.now()) and how long it took. */
  reads: { threadId: string; startedAt: number; ms: number }[];
  /** Per thread: when its data was last read, until its list is painted. */
  pending: Record<string, { readAt: number; open: OpenMeasure }>;
}

declare global {
  interface Window {
    __forkhostPerf?: Perf;
  }
}

export function perf(): Perf {
  if (!window.__forkhostPerf) window.__forkhostPerf = { opens: [], forks: [], reads: [], pending: {} };
  return window.__forkhostPerf;
}

/** A thread's data was read (`readMs` for the read itself); its list paints next. */
export function markRead(threadId: string, readMs: number, messages: number) {
  const p = perf();
  const open: OpenMeasure = {
    threadId,
    messages,
    readMs,
    firstPaintMs: null,
    scrollableMs: null,
    paintedAt: null,
    readEpoch: Date.now(),
    renderMs: null,
  };
  p.opens.push(open);
  p.pending[threadId] = { readAt: performance.now(), open };
  performance.mark(`forkhost:read:${threadId}`);
}

/** The conversation list of `threadId` rendered for the first time (React). */
export function markRendered(threadId: string) {
  const pending = perf().pending[threadId];
  if (pending && pending.open.renderMs === null) {
    pending.open.renderMs = performance.now() - pending.readAt;
  }
}

/** The conversation list of `threadId` painted its rows / became scrollable at its end. */
export function markPainted(threadId: string, stage: "paint" | "scrollable") {
  const p = perf();
  const pending = p.pending[threadId];
  if (!pending) return;
  const { open } = pending;
  const ms = performance.now() - pending.readAt;
  if (open.firstPaintMs === null) {
    open.firstPaintMs = ms;
    open.paintedAt = Date.now();
  }
  if (stage === "scrollable") {
    open.scrollableMs = ms;
    delete p.pending[threadId];
  }
  performance.mark(`forkhost:${stage}:${threadId}`);
}

// ---- small helpers ---------------------------------------------------------------------------

function randomId(prefix: string): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

let toastSeq = 0;
const toastTimers = new Map<number, ReturnType<typeof setTimeout>>();

export function notify(toast: Omit<Toast, "id">, ttlMs?: number): number {
  const id = ++toastSeq;
  store.set((s) => ({ toasts: [...s.toasts.slice(-4), { ...toast, id }] }));
  const ttl = ttlMs ?? (toast.kind === "error" ? 12_000 : toast.kind === "progress" ? 0 : 4_000);
  if (ttl > 0) toastTimers.set(id, setTimeout(() => dismissToast(id), ttl));
  return id;
}

export function replaceToast(id: number, toast: Omit<Toast, "id">, ttlMs?: number) {
  const timer = toastTimers.get(id);
  if (timer) clearTimeout(timer);
  dismissToast(id);
  return notify(toast, ttlMs);
}

export function dismissToast(id: number) {
  toastTimers.delete(id);
  store.set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function notifyError(err: unknown, context?: string) {
  const words = describeError(err);
  return notify({
    kind: "error",
    title: context ? `${context}: ${words.title}` : words.title,
    message: words.message,
  });
}

function debounced(fn: (key: string) => void, ms: number) {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return (key: string) => {
    const t = timers.get(key);
    if (t) clearTimeout(t);
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        fn(key);
      }, ms),
    );
  };
}

// ---- threads ---------------------------------------------------------------------------------

export async function refreshThreads() {
  try {
    const threads = await ipc.threads();
    store.set({ threads, threadsLoaded: true });
  } catch (err) {
    store.set({ threadsLoaded: true });
    notifyError(err, "Threads");
  }
}

const scheduleThreads = debounced(() => void refreshThreads(), 120);

/** Reads a thread (its turns and messages) from the Host. */
export async function loadThread(threadId: string): Promise<ThreadDetail | undefined> {
  updateSlot(threadId, (s) => ({ ...s, loading: true }));
  const started = performance.now();
  const startedAt = Date.now();
  try {
    const detail = await ipc.show(threadId);
    perf().reads.push({ threadId, startedAt, ms: performance.now() - started });
    const messages = detail.turns.reduce((n, t) => n + t.messages.length, 0);
    if (!store.get().slots[threadId]?.detail) {
      markRead(threadId, performance.now() - started, messages);
    }
    updateSlot(threadId, (s) => {
      const live = s.live && settled(s.live, detail.turns.length) ? undefined : s.live;
      return { ...s, detail, loading: false, error: undefined, live };
    });
    const known = store.get().threads.find((t) => t.id === detail.id);
    const fresh = stripTurns(detail);
    if (!known || !sameThread(known, fresh)) {
      store.set((s) => ({
        threads: known
          ? s.threads.map((t) => (t.id === detail.id ? fresh : t))
          : [...s.threads, fresh],
      }));
    }
    return detail;
  } catch (err) {
    const words = describeError(err);
    updateSlot(threadId, (s) => ({
      ...s,
      loading: false,
      error: { code: words.code, message: words.message },
    }));
    return undefined;
  }
}

function sameThread(a: ThreadView, b: ThreadView) {
  return (
    a.revision === b.revision &&
    a.updated_at === b.updated_at &&
    a.state === b.state &&
    a.title === b.title &&
    a.native.path === b.native.path
  );
}

function stripTurns(detail: ThreadDetail): ThreadView {
  const { turns: _turns, ...view } = detail;
  return view;
}

// Re-reads of a thread wait while this window forks it and shows the fork: re-reading a large
// source (a full `show`, parsed and rebuilt here) would compete with the fork window's first
// paint. What was asked for meanwhile is read once the hold ends.
const heldReads = new Map<string, number>();
const missedReads = new Set<string>();

function holdReads(threadId: string) {
  heldReads.set(threadId, (heldReads.get(threadId) ?? 0) + 1);
}

function releaseReads(threadId: string, afterMs: number) {
  setTimeout(() => {
    const n = (heldReads.get(threadId) ?? 1) - 1;
    if (n > 0) {
      heldReads.set(threadId, n);
      return;
    }
    heldReads.delete(threadId);
    if (missedReads.delete(threadId)) scheduleThread(threadId);
  }, afterMs);
}

const debouncedRead = debounced((id) => {
  if (heldReads.has(id)) missedReads.add(id);
  else void loadThread(id);
}, 60);

function scheduleThread(threadId: string) {
  if (heldReads.has(threadId)) missedReads.add(threadId);
  else debouncedRead(threadId);
}

function isShown(state: AppState, threadId: string) {
  return state.tabs.some((t) => t.thread_id === threadId) || Boolean(state.slots[threadId]);
}

/** Applies one Host event to this window. */
export function handleHostEvent(event: HostEvent) {
  const state = store.get();
  const id = event.thread_id;
  if (event.type === "thread_changed") {
    scheduleThreads("all");
    if (isShown(state, id)) scheduleThread(id);
    return;
  }
  if (event.type === "turn_started") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: true } }));
  } else if (event.type === "turn_ended") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: false } }));
  }
  if (!isShown(state, id)) return;
  const slot = state.slots[id];
  const base = slot?.detail?.turns.length ?? 0;
  const live = applyEvent(slot?.live, event, base);
  if (live !== slot?.live) updateSlot(id, (s) => ({ ...s, live }));
  if (event.type === "turn_ended") {
    scheduleThread(id);
    scheduleThreads("all");
  }
  if (event.type === "error" && state.tabs.some((t) => t.thread_id === id)) {
    const title = threadById(state, id)?.title ?? "Thread";
    notify({ kind: "error", title: `${title}: ${event.code.replace(/_/g, " ")}`, message: event.message });
  }
}

/** After missed events: re-read everything shown. */
export function reloadAll() {
  void refreshThreads();
  for (const id of Object.keys(store.get().slots)) void loadThread(id);
}

// ---- tabs ------------------------------------------------------------------------------------

export type OpenWhere = "tab" | "window";

/** Shows a thread in this window: its existing tab, else a new one after the active tab. */
export function openTab(threadId: string, kind: "conversation" | "terminal" = "conversation") {
  const state = store.get();
  const existing = state.tabs.find((t) => t.thread_id === threadId && t.kind === kind);
  if (existing) {
    activateTab(existing.id);
    return existing.id;
  }
  const tab: TabView = { id: randomId("t-"), thread_id: threadId, kind };
  const at = state.tabs.findIndex((t) => t.id === state.activeTab);
  const tabs = state.tabs.slice();
  tabs.splice(at < 0 ? tabs.length : at + 1, 0, tab);
  store.set({ tabs, activeTab: tab.id });
  if (!state.slots[threadId]?.detail) void loadThread(threadId);
  return tab.id;
}

/** Opens a thread where asked: a tab here, or a new window. */
export async function openThread(threadId: string, where: OpenWhere = "tab") {
  if (where === "tab") {
    openTab(threadId);
    return;
  }
  try {
    await ipc.openWindow([{ thread_id: threadId, kind: "conversation" }], null, true);
  } catch (err) {
    notifyError(err, "New window");
  }
}

export function activateTab(tabId: string) {
  const tab = store.get().tabs.find((t) => t.id === tabId);
  if (!tab) return;
  store.set({ activeTab: tabId });
  const slot = store.get().slots[tab.thread_id];
  if (!slot?.detail && !slot?.loading) void loadThread(tab.thread_id);
}

export function closeTab(tabId: string) {
  const state = store.get();
  const index = state.tabs.findIndex((t) => t.id === tabId);
  if (index < 0) return;
  const tabs = state.tabs.filter((t) => t.id !== tabId);
  let activeTab = state.activeTab;
  if (activeTab === tabId) {
    activeTab = tabs[Math.min(index, tabs.length - 1)]?.id ?? null;
  }
  const closed = state.tabs[index];
  const slots = { ...state.slots };
  if (closed && !tabs.some((t) => t.thread_id === closed.thread_id)) {
    delete slots[closed.thread_id];
  }
  store.set({ tabs, activeTab, slots });
}

export function closeOtherTabs(tabId: string) {
  const keep = store.get().tabs.filter((t) => t.id === tabId);
  store.set({ tabs: keep, activeTab: keep[0]?.id ?? null });
}

export function cycleTab(delta: number) {
  const { tabs, activeTab } = store.get();
  if (tabs.length === 0) return;
  const i = tabs.findIndex((t) => t.id === activeTab);
  const next = tabs[(i + delta + tabs.length) % tabs.length];
  if (next) activateTab(next.id);
}

export function selectTabAt(index: number) {
  const { tabs } = store.get();
  const tab = index < 0 ? tabs[tabs.length - 1] : tabs[index];
  if (tab) activateTab(tab.id);
}

export function moveTab(tabId: string, toIndex: number) {
  const tabs = store.get().tabs.slice();
  const from = tabs.findIndex((t) => t.id === tabId);
  if (from < 0) return;
  const [tab] = tabs.splice(from, 1);
  if (!tab) return;
  tabs.splice(Math.max(0, Math.min(toIndex, tabs.length)), 0, tab);
  store.set({ tabs });
}

export function moveActiveTab(delta: number) {
  const { tabs, activeTab } = store.get();
  const i = tabs.findIndex((t) => t.id === activeTab);
  if (i >= 0 && activeTab) moveTab(activeTab, i + delta);
}

export async function moveTabToNewWindow(tabId: string) {
  try {
    await flushLayout();
    await ipc.moveTabToNewWindow(tabId);
    closeTab(tabId);
  } catch (err) {
    notifyError(err, "Move tab");
  }
}

let layoutTimer: ReturnType<typeof setTimeout> | null = null;
let lastSynced: { tabs: TabView[]; activeTab: string | null } | null = null;

/** Reports this window's tabs to the app (which persists the layout). */
export async function flushLayout() {
  if (layoutTimer) {
    clearTimeout(layoutTimer);
    layoutTimer = null;
  }
  const { tabs, activeTab, ready } = store.get();
  if (!ready) return;
  if (lastSynced && lastSynced.tabs === tabs && lastSynced.activeTab === activeTab) return;
  lastSynced = { tabs, activeTab };
  try {
    await ipc.setWindowTabs(tabs, activeTab);
  } catch (err) {
    notifyError(err, "Layout");
  }
}

function scheduleLayout() {
  if (layoutTimer) clearTimeout(layoutTimer);
  layoutTimer = setTimeout(() => void flushLayout(), 40);
}

// ---- turns -----------------------------------------------------------------------------------

export function setDraft(threadId: string, text: string) {
  store.set((s) => ({ drafts: { ...s.drafts, [threadId]: text } }));
}

export async function sendPrompt(threadId: string, prompt: string): Promise<boolean> {
  const text = prompt.trim();
  if (!text) return false;
  const slot = store.get().slots[threadId];
  if (slot?.live && slot.live.phase !== "ended") return false;
  const base = slot?.detail?.turns.length ?? 0;
  updateSlot(threadId, (s) => ({ ...s, live: startLive(prompt, base) }));
  setDraft(threadId, "");
  try {
    await ipc.startTurn(threadId, prompt);
    return true;
  } catch (err) {
    const words = describeError(err);
    updateSlot(threadId, (s) => ({
      ...s,
      live: s.live
        ? { ...s.live, phase: "ended", outcome: "failed", error: `${words.title}: ${words.message}` }
        : s.live,
    }));
    // Give the text back so nothing typed is lost.
    setDraft(threadId, prompt);
    return false;
  }
}

export async function stopTurn(threadId: string) {
  try {
    await ipc.interrupt(threadId);
  } catch (err) {
    notifyError(err, "Stop");
  }
}

// ---- fork ------------------------------------------------------------------------------------

export interface ForkRequest {
  threadId: string;
  turn: number;
  /** A user message forks before its turn, a reply after it. */
  role: "user" | "assistant" | "tool";
  /** The row the fork was started from (its button shows progress). */
  rowKey: string;
  /** Open where the setting does not say (Cmd/Ctrl-click). */
  invert?: boolean;
}

export function forkWhere(invert: boolean | undefined): OpenWhere {
  const setting = store.get().settings.fork_opens_in;
  const where: OpenWhere = setting === "tab" ? "tab" : "window";
  if (!invert) return where;
  return where === "tab" ? "window" : "tab";
}

/** How long after a fork is shown the source's re-read waits. */
const FORK_PAINT_GRACE_MS = 1200;

export async function forkAt(req: ForkRequest) {
  const state = store.get();
  if (state.forking[req.rowKey]) return;
  const where = forkWhere(req.invert);
  const at: ForkAt =
    req.role === "user" ? { kind: "before", turn: req.turn } : { kind: "after", turn: req.turn };
  const source = threadById(state, req.threadId);
  const words = req.role === "user" ? `before turn ${req.turn}` : `after turn ${req.turn}`;
  store.set((s) => ({ forking: { ...s.forking, [req.rowKey]: true } }));
  const progress = notify({
    kind: "progress",
    title: `Forking ${words}…`,
    message: source ? `${source.title} · ${source.harness}` : undefined,
  });
  const clickedAt = Date.now();
  const started = performance.now();
  holdReads(req.threadId);
  let shown = false;
  try {
    // A window's fork: the app opens its window and hands it the fork's detail (not through
    // here: this reply's thread then has no turns).
    const result = await ipc.fork(req.threadId, at, where === "window");
    const fork = result.thread;
    const measure: ForkMeasure = {
      threadId: req.threadId,
      forkId: fork.id,
      window: null,
      clickedAt,
      commandMs: performance.now() - started,
      nativeMs: result.timing.native_ms,
      hostTotalMs: result.timing.total_ms,
      opensIn: where,
    };
    store.set((s) => ({
      threads: s.threads.some((t) => t.id === fork.id) ? s.threads : [...s.threads, stripTurns(fork)],
    }));
    if (where === "window") {
      measure.window =
        result.window ??
        // The app could not open it: a window that reads the fork itself.
        (await ipc.openWindow(
          [{ thread_id: fork.id, kind: "conversation" }],
          result.prefill !== null ? { thread_id: fork.id, text: result.prefill } : null,
          true,
        ));
      perf().forks.push(measure);
    } else {
      perf().forks.push(measure);
      markRead(
        fork.id,
        0,
        fork.turns.reduce((n, t) => n + t.messages.length, 0),
      );
      updateSlot(fork.id, (s) => ({ ...s, detail: fork }));
      if (result.prefill !== null) setDraft(fork.id, result.prefill);
      openTab(fork.id);
      store.set((s) => ({ focusComposer: s.focusComposer + 1 }));
    }
    shown = true;
    replaceToast(progress, {
      kind: "success",
      title: `Forked ${words}`,
      message: `Opened in a new ${where} · ${Math.round(result.timing.total_ms)} ms`,
    });
    scheduleThreads("all");
    scheduleThread(req.threadId);
  } catch (err) {
    const e = describeError(err);
    replaceToast(progress, { kind: "error", title: `Fork failed: ${e.title}`, message: e.message });
  } finally {
    // The source's re-read (its fork chips) once the fork has had time to paint.
    releaseReads(req.threadId, shown ? FORK_PAINT_GRACE_MS : 0);
    store.set((s) => {
      const forking = { ...s.forking };
      delete forking[req.rowKey];
      return { forking };
    });
  }
}

/** Forks the selected message of the active tab, or after its latest reply. */
export function forkSelected(invert = false) {
  const state = store.get();
  const tab = activeTabOf(state);
  if (!tab || tab.kind !== "conversation") return;
  const slot = state.slots[tab.thread_id];
  const detail = slot?.detail;
  if (!detail || detail.turns.length === 0) return;
  const sel = state.selected[tab.thread_id];
  const parsed = sel ? parseSelection(sel) : null;
  if (parsed) {
    void forkAt({ threadId: tab.thread_id, ...parsed, rowKey: sel ?? "", invert });
  } else {
    forkLatest(invert);
  }
}

export function forkLatest(invert = false) {
  const state = store.get();
  const tab = activeTabOf(state);
  if (!tab) return;
  const detail = state.slots[tab.thread_id]?.detail;
  const last = detail?.turns[detail.turns.length - 1];
  if (!last) return;
  void forkAt({
    threadId: tab.thread_id,
    turn: Number(last.number),
    role: "assistant",
    rowKey: `${last.id}:latest`,
    invert,
  });
}

/** Selection keys are `turn|role|rowKey`. */
export function selectionKey(turn: number, role: string, rowKey: string) {
  return `${turn}|${role}|${rowKey}`;
}

function parseSelection(sel: string): { turn: number; role: "user" | "assistant" | "tool" } | null {
  const [turn, role] = sel.split("|");
  const n = Number(turn);
  if (!Number.isFinite(n) || (role !== "user" && role !== "assistant" && role !== "tool")) {
    return null;
  }
  return { turn: n, role };
}

export function select(threadId: string, key: string | null) {
  store.set((s) => {
    const selected = { ...s.selected };
    if (key) selected[threadId] = key;
    else delete selected[threadId];
    return { selected };
  });
}

// ---- lineage ---------------------------------------------------------------------------------

let highlightSeq = 0;

/** Shows turn `turn` of a thread (opening its tab if needed) and highlights the message. */
export function reveal(threadId: string, turn: number, role: "user" | "assistant") {
  openTab(threadId);
  store.set({ highlight: { threadId, turn, role, seq: ++highlightSeq } });
}

const turnNumbers = new Map<string, number | null>();

/** The 1-based number of turn `turnId` of thread `threadId` (remembered; null if gone). */
export async function sourceTurnNumber(threadId: string, turnId: string): Promise<number | null> {
  const key = `${threadId}/${turnId}`;
  const known = turnNumbers.get(key);
  if (known !== undefined) return known;
  const detail = store.get().slots[threadId]?.detail ?? (await ipc.show(threadId));
  for (const t of detail.turns) turnNumbers.set(`${threadId}/${t.id}`, Number(t.number));
  const n = turnNumbers.get(key) ?? null;
  turnNumbers.set(key, n);
  return n;
}

// ---- new thread, import ----------------------------------------------------------------------

export async function createThread(args: {
  harness: string;
  cwd: string;
  title: string;
  prompt: string;
}): Promise<boolean> {
  try {
    const detail = await ipc.create({
      harness: args.harness,
      cwd: args.cwd,
      title: args.title.trim() ? args.title.trim() : null,
    });
    store.set((s) => ({
      threads: [...s.threads.filter((t) => t.id !== detail.id), stripTurns(detail)],
    }));
    updateSlot(detail.id, (s) => ({ ...s, detail }));
    openTab(detail.id);
    if (args.prompt.trim()) {
      void sendPrompt(detail.id, args.prompt);
    } else {
      store.set((s) => ({ focusComposer: s.focusComposer + 1 }));
    }
    try {
      localStorage.setItem("forkhost.lastFolder", args.cwd);
      localStorage.setItem("forkhost.lastHarness", args.harness);
    } catch {
      // Private mode or no storage: not remembered.
    }
    return true;
  } catch (err) {
    notifyError(err, "New thread");
    return false;
  }
}

export async function loadDiscovered() {
  try {
    store.set({ discovered: await ipc.discover() });
  } catch (err) {
    store.set({ discovered: [] });
    notifyError(err, "Sessions on this machine");
  }
}

export async function importAndOpen(harness: string, session: string, existing: string | null) {
  if (existing) {
    openTab(existing);
    return;
  }
  const progress = notify({ kind: "progress", title: "Opening session…" });
  const started = performance.now();
  try {
    const detail = await ipc.importSession(harness, session);
    markRead(
      detail.id,
      performance.now() - started,
      detail.turns.reduce((n, t) => n + t.messages.length, 0),
    );
    updateSlot(detail.id, (s) => ({ ...s, detail }));
    store.set((s) => ({
      threads: [...s.threads.filter((t) => t.id !== detail.id), stripTurns(detail)],
    }));
    openTab(detail.id);
    dismissToast(progress);
    void loadDiscovered();
  } catch (err) {
    const e = describeError(err);
    replaceToast(progress, { kind: "error", title: `Can't open: ${e.title}`, message: e.message });
  }
}

export async function renameThread(threadId: string, title: string) {
  try {
    await ipc.rename(threadId, title);
    void refreshThreads();
  } catch (err) {
    notifyError(err, "Rename");
  }
}

export async function archiveThread(threadId: string) {
  try {
    await ipc.archive(threadId, true);
    const tabs = store.get().tabs.filter((t) => t.thread_id === threadId);
    for (const tab of tabs) closeTab(tab.id);
    void refreshThreads();
  } catch (err) {
    notifyError(err, "Archive");
  }
}

// ---- dialogs, menus --------------------------------------------------------------------------

export function openDialog(dialog: Dialog) {
  store.set({ dialog, menu: null });
  if (dialog?.kind === "settings" || dialog?.kind === "new-thread") void loadDoctor();
}

export function closeDialog() {
  store.set({ dialog: null });
}

export function showMenu(menu: ContextMenuState) {
  store.set({ menu });
}

export function hideMenu() {
  if (store.get().menu) store.set({ menu: null });
}

export async function loadDoctor(force = false) {
  if (store.get().doctor && !force) return;
  try {
    store.set({ doctor: await ipc.doctor() });
  } catch (err) {
    notifyError(err, "Harnesses");
  }
}

export async function saveSettings(settings: AppState["settings"]) {
  try {
    await ipc.saveSettings(settings);
    store.set({ settings });
    return true;
  } catch (err) {
    notifyError(err, "Settings");
    return false;
  }
}

// ---- start -----------------------------------------------------------------------------------

function titleOf(state: AppState): string {
  const tab = activeTabOf(state);
  const thread = threadById(state, tab?.thread_id);
  if (!tab || !thread) return "Forkhost";
  return `${thread.title}${tab.kind === "terminal" ? " (terminal)" : ""} — Forkhost`;
}

/** Applies what the app says this window holds (at load, or when a spare is assigned). */
function applyInit(value: WindowInit) {
  const state = store.get();
  const drafts = { ...state.drafts };
  if (value.prefill) drafts[value.prefill.thread_id] = value.prefill.text;
  if (value.seed) {
    const seed = value.seed;
    markRead(
      seed.id,
      0,
      seed.turns.reduce((n, t) => n + t.messages.length, 0),
    );
    updateSlot(seed.id, (s) => ({ ...s, detail: seed, loading: false, error: undefined }));
    if (!state.threads.some((t) => t.id === seed.id)) {
      store.set((s) => ({ threads: [...s.threads, stripTurns(seed)] }));
    }
  }
  store.set({
    label: value.label,
    main: value.main,
    spare: value.spare,
    sidebarOpen: value.main,
    tabs: value.tabs,
    activeTab: value.active_tab ?? value.tabs[0]?.id ?? null,
    drafts,
    focusComposer: value.focus_composer ? state.focusComposer + 1 : state.focusComposer,
  });
  const active = activeTabOf(store.get());
  const slots = store.get().slots;
  const threads = [...new Set(value.tabs.map((t) => t.thread_id))].filter((id) => !slots[id]?.detail);
  // The active tab first: it is what shows.
  if (active && threads.includes(active.thread_id)) void loadThread(active.thread_id);
  for (const id of threads) if (id !== active?.thread_id) void loadThread(id);
}

/** This spare window now holds tabs (a fork opened in it): asks what, and shows it. */
async function assigned() {
  perf().assignedAt = Date.now();
  let init: WindowInit;
  try {
    init = await ipc.windowInit();
  } catch {
    return;
  }
  applyInit(init);
  lastSynced = { tabs: store.get().tabs, activeTab: store.get().activeTab };
  // After the fork has painted.
  setTimeout(() => void refreshThreads(), 300);
}

/** Loads the window (its tabs, the threads, settings) and wires the app's events. */
export async function boot(): Promise<() => void> {
  const unlisten: (() => void)[] = [];
  const listen = async (p: Promise<() => void>) => {
    try {
      unlisten.push(await p);
    } catch {
      // Outside the app: no events.
    }
  };

  // Events first, so nothing between the first read and the subscription is missed (and a
  // spare window listens for its assignment before it says it is ready).
  await Promise.all([
    listen(ipc.onWindowAssign(() => void assigned())),
    listen(ipc.onHostEvent(handleHostEvent)),
    listen(ipc.onHostLagged(reloadAll)),
    listen(ipc.onSettingsChanged((settings) => store.set({ settings }))),
  ]);

  const onVisible = () => {
    if (document.visibilityState !== "visible") return;
    perf().visibleAt = Date.now();
    requestAnimationFrame(() => {
      perf().firstFrameAt ??= Date.now();
    });
  };
  document.addEventListener("visibilitychange", onVisible);
  unlisten.push(() => document.removeEventListener("visibilitychange", onVisible));

  const info = ipc.appInfo().then(
    (value) => store.set({ info: { status: "ready", info: value } }),
    (err: unknown) =>
      store.set({ info: { status: "error", message: err instanceof Error ? err.message : String(err) } }),
  );
  const settings = ipc.getSettings().then(
    (value) => store.set({ settings: value }),
    () => {},
  );
  const init = ipc.windowInit().then(applyInit, () => {});
  await Promise.all([info, settings, init, refreshThreads()]);
  lastSynced = { tabs: store.get().tabs, activeTab: store.get().activeTab };
  store.set({ ready: true });
  void loadDoctor();

  // Keep the app's layout and the window title in step with the tabs.
  let prev = store.get();
  let title = "";
  unlisten.push(
    store.subscribe(() => {
      const next = store.get();
      if (next.tabs !== prev.tabs || next.activeTab !== prev.activeTab) scheduleLayout();
      const t = titleOf(next);
      if (t !== title) {
        title = t;
        void ipc.setWindowTitle(t);
      }
      prev = next;
    }),
  );
  return () => {
    for (const u of unlisten) u();
  };
}
