// Menu actions and their keys. The app menu (src-tauri/src/menu.rs) sends the same ids; when
// the native menu takes a key first, the web view never sees it, so nothing runs twice.
import { openDialog } from "./ui/open";
import { forkLatest, forkSelected } from "./fork/fork";
import { closeTab, cycleTab, moveActiveTab, moveTabToNewWindow, openTab, selectTabAt } from "./tabs/tabs";
import { loadThread } from "./threads/cache";
import { stopTurn } from "./threads/turns";
import * as ipc from "./ipc";
import { activeTabOf, store } from "./state";
import { checkForUpdates } from "./update/updater";
import { revealCliToolSection } from "./CliTool";
import { focusSearch } from "./search/search";
import { raceSelected } from "./race/race";

export type MenuAction =
  | "new_thread"
  | "new_window"
  | "open_terminal"
  | "close_tab"
  | "close_window"
  | "settings"
  | "toggle_sidebar"
  | "next_tab"
  | "prev_tab"
  | "move_tab_left"
  | "move_tab_right"
  | "move_tab_to_window"
  | "focus_composer"
  | "fork_selected"
  | "fork_latest"
  | "race_selected"
  | "stop"
  | "refresh"
  | "check_updates"
  | "get_started"
  | "install_cli"
  | "search";

export function runAction(id: string) {
  const state = store.get();
  const tab = activeTabOf(state);
  switch (id as MenuAction) {
    case "new_thread":
      openDialog({ kind: "new-thread" });
      break;
    case "new_window":
      void ipc.openWindow([], null, false).catch(() => {});
      break;
    case "open_terminal":
      if (tab) openTab(tab.thread_id, tab.kind === "terminal" ? "conversation" : "terminal");
      break;
    case "close_tab":
      if (tab) closeTab(tab.id);
      break;
    case "close_window":
      void ipc.closeWindow().catch(() => {});
      break;
    case "settings":
      openDialog({ kind: "settings" });
      break;
    case "install_cli":
      // The CLI's section lives in Settings: open it there.
      openDialog({ kind: "settings" });
      revealCliToolSection();
      break;
    case "check_updates":
      void checkForUpdates(true);
      break;
    case "get_started":
      openDialog({ kind: "first-run" });
      break;
    case "toggle_sidebar":
      store.set({ sidebarOpen: !state.sidebarOpen });
      break;
    case "next_tab":
      cycleTab(1);
      break;
    case "prev_tab":
      cycleTab(-1);
      break;
    case "move_tab_left":
      moveActiveTab(-1);
      break;
    case "move_tab_right":
      moveActiveTab(1);
      break;
    case "move_tab_to_window":
      if (tab) void moveTabToNewWindow(tab.id);
      break;
    case "focus_composer":
      if (tab && tab.kind === "terminal") openTab(tab.thread_id, "conversation");
      store.set((s) => ({ focusComposer: s.focusComposer + 1 }));
      break;
    case "fork_selected":
      forkSelected();
      break;
    case "fork_latest":
      forkLatest();
      break;
    case "race_selected":
      raceSelected();
      break;
    case "stop":
      if (tab) void stopTurn(tab.thread_id);
      break;
    case "refresh":
      if (tab) void loadThread(tab.thread_id);
      break;
    case "search":
      focusSearch();
      break;
  }
}

/** The action a key press means, if any. */
export function actionForKey(e: KeyboardEvent): string | null {
  const mod = e.ctrlKey || e.metaKey;
  if (!mod) return null;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (e.shiftKey && !e.altKey) {
    switch (key) {
      case "f":
        return e.altKey ? null : "fork_selected";
      case "l":
        return "fork_latest";
      case "r":
        return "race_selected";
      case "t":
        return "open_terminal";
      case "w":
        return "close_window";
      case "Tab":
        return "prev_tab";
      case "PageUp":
        return "move_tab_left";
      case "PageDown":
        return "move_tab_right";
    }
    return null;
  }
  if (e.altKey) return null;
  switch (key) {
    case "t":
      return "new_thread";
    case "n":
      return "new_window";
    case "w":
      return "close_tab";
    case ",":
      return "settings";
    case "b":
      return "toggle_sidebar";
    case "Tab":
    case "PageDown":
      return "next_tab";
    case "PageUp":
      return "prev_tab";
    case "l":
      return "focus_composer";
    case ".":
      return "stop";
    case "r":
      return "refresh";
    case "k":
      return "search";
  }
  return null;
}

/** Ctrl+1…8 pick a tab, Ctrl+9 the last one. */
export function tabIndexForKey(e: KeyboardEvent): number | null {
  if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return null;
  if (!/^[1-9]$/.test(e.key)) return null;
  const n = Number(e.key);
  return n === 9 ? -1 : n - 1;
}

export function onKeyDown(e: KeyboardEvent) {
  if (store.get().dialog) return;
  const index = tabIndexForKey(e);
  if (index !== null) {
    e.preventDefault();
    selectTabAt(index);
    return;
  }
  const action = actionForKey(e);
  if (!action) return;
  e.preventDefault();
  runAction(action);
}
