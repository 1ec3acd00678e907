// The window's tabs: opening a thread (here or in a new window), switching, closing, reordering,
// and moving a tab to a window of its own.
import * as ipc from "../ipc";
import type { TabKind } from "../bindings/TabKind";
import type { TabView } from "../ipc";
import { store } from "../state";
import { loadThread } from "../threads/cache";
import { notifyError } from "../ui/toasts";
import { flushLayout } from "./layout";
import { forgetScroll } from "./scroll";

export type OpenWhere = "tab" | "window";

function randomId(prefix: string): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Shows a thread in this window: its existing tab, else a new one after the active tab. */
export function openTab(threadId: string, kind: TabKind = "conversation") {
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
    forgetScroll(closed.thread_id);
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
