// A window's start: its events wired, what the app says it holds (tabs, a fork's seed, a draft)
// shown, the threads and settings read; and later, a spare window being given a fork.
import { loadDoctor } from "./ui/open";
import { loadRewoundBranches } from "./rewind/rewind";
import * as ipc from "./ipc";
import type { WindowInit } from "./ipc";
import { endPreviewWhenPainted, loadPreview } from "./fork/preview";
import { markRead, perf } from "./perf";
import { type AppState, activeTabOf, store, threadById, updateSlot } from "./state";
import { layoutSynced, scheduleLayout } from "./tabs/layout";
import { openTab } from "./tabs/tabs";
import { loadThread, messageCount, refreshThreads, reloadAll, stripTurns } from "./threads/cache";
import { handleHostEvent } from "./threads/hostEvents";

/** A thread this window shows (the active tab's first) that waits on the user, if any. */
export function waitingThreadOf(state: AppState): string | undefined {
  const active = activeTabOf(state)?.thread_id;
  const shown = state.tabs.map((t) => t.thread_id);
  const order = active ? [active, ...shown] : shown;
  return order.find((id) => (state.approvals[id]?.length ?? 0) > 0);
}

/**
 * The window title: the active tab's thread; while a thread of this window waits on the user,
 * "● Waiting for approval — ‹its title› — Forkhost" (or "● Question waiting — …").
 */
export function titleOf(state: AppState): string {
  const waiting = waitingThreadOf(state);
  if (waiting) {
    const question = state.approvals[waiting]?.[0]?.subject.kind === "question";
    const title = threadById(state, waiting)?.title ?? "a thread";
    return `● ${question ? "Question waiting" : "Waiting for approval"} — ${title} — Forkhost`;
  }
  const tab = activeTabOf(state);
  const thread = threadById(state, tab?.thread_id);
  if (!tab || !thread) return "Forkhost";
  return `${thread.title}${tab.kind === "terminal" ? " (terminal)" : ""} — Forkhost`;
}

/** Applies what the app says this window holds (at load, or when a spare is assigned). */
export function applyInit(value: WindowInit) {
  const state = store.get();
  const drafts = { ...state.drafts };
  if (value.prefill) drafts[value.prefill.thread_id] = value.prefill.text;
  if (value.seed) {
    const seed = value.seed;
    markRead(seed.id, 0, messageCount(seed));
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
  layoutSynced();
  // The history shown while the harness forked gives way once the fork's own list painted.
  endPreviewWhenPainted(init.seed?.id ?? "");
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
    listen(ipc.onForkPreview(() => void loadPreview())),
    listen(ipc.onHostEvent(handleHostEvent)),
    listen(ipc.onHostLagged(reloadAll)),
    listen(ipc.onSettingsChanged((settings) => store.set({ settings }))),
    // The user came back to this window after a notification: show the thread that waits.
    listen(ipc.onActivateThread((threadId) => void openTab(threadId))),
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
  layoutSynced();
  store.set({ ready: true });
  void loadDoctor();
  void loadRewoundBranches();

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
