// This window's tabs as the app knows them (it persists the layout): reported shortly after they
// change, at once before a tab leaves for another window, never twice the same.
import * as ipc from "../ipc";
import type { TabView } from "../ipc";
import { store } from "../state";
import { notifyError } from "../ui/toasts";

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

export function scheduleLayout() {
  if (layoutTimer) clearTimeout(layoutTimer);
  layoutTimer = setTimeout(() => void flushLayout(), 40);
}

/** The tabs shown now are the ones the app gave this window: nothing to report. */
export function layoutSynced() {
  const { tabs, activeTab } = store.get();
  lastSynced = { tabs, activeTab };
}
