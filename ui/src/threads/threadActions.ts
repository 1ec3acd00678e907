// What the user does to threads as a whole: create one, open a session found on this machine,
// rename, archive.
import { describeError } from "../errors";
import * as ipc from "../ipc";
import { markRead } from "../perf";
import { store, updateSlot } from "../state";
import { closeTab, openTab } from "../tabs/tabs";
import { dismissToast, notify, notifyError, replaceToast } from "../toasts";
import { messageCount, refreshThreads, stripTurns } from "./cache";
import { sendPrompt } from "./turns";

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
    markRead(detail.id, performance.now() - started, messageCount(detail));
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
