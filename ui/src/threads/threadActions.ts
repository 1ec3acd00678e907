// What the user does to threads as a whole: create one, open a session found on this machine,
// rename, archive.
import type { HarnessKind } from "../bindings/HarnessKind";
import { describeError } from "../errors";
import { askTrust, ensureTrust, trustFromRefusal } from "../files/files";
import * as ipc from "../ipc";
import { markRead } from "../perf";
import { loadHostThreads } from "../remote/remote";
import { store, updateSlot } from "../state";
import { openTab } from "../tabs/tabs";
import { dismissToast, notify, notifyError, replaceToast } from "../ui/toasts";
import { messageCount, refreshThreads, stripTurns } from "./cache";
import { sendPrompt } from "./turns";

export async function createThread(args: {
  harness: HarnessKind;
  /** The remote host to start it on (`cwd` a folder there); null or absent: this machine. */
  host?: string | null;
  cwd: string;
  title: string;
  prompt: string;
  /** The permission mode (Claude's mode, Codex's approval policy) and Codex's sandbox; null: default. */
  mode?: string | null;
  sandbox?: string | null;
}): Promise<boolean> {
  try {
    const host = args.host || null;
    // A folder with project agent config is trusted (or not) once, before anything starts; a
    // remote folder's config is found and the answer kept by its host.
    if (!(await ensureTrust(args.cwd, askTrust, host))) return false;
    const detail = await ipc.create({
      harness: args.harness,
      cwd: args.cwd,
      title: args.title.trim() ? args.title.trim() : null,
      mode: args.mode ?? null,
      sandbox: args.sandbox ?? null,
      host,
    });
    if (host) {
      // A remote thread is listed under its host, not among this machine's.
      void loadHostThreads(host);
    } else {
      store.set((s) => ({
        threads: [...s.threads.filter((t) => t.id !== detail.id), stripTurns(detail)],
      }));
    }
    updateSlot(detail.id, (s) => ({ ...s, detail }));
    openTab(detail.id);
    if (args.prompt.trim()) {
      void sendPrompt(detail.id, args.prompt);
    } else {
      store.set((s) => ({ focusComposer: s.focusComposer + 1 }));
    }
    try {
      localStorage.setItem(host ? `forkhost.lastFolder.${host}` : "forkhost.lastFolder", args.cwd);
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
    let detail;
    try {
      detail = await ipc.importSession(harness, session);
    } catch (err) {
      // Its folder has project agent config the user has not decided on: ask, then import.
      const view = trustFromRefusal(err);
      if (!view) throw err;
      dismissToast(progress);
      const trusted = await askTrust(view);
      if (trusted === null) return;
      detail = await ipc.importSession(harness, session, trusted);
    }
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

/**
 * Copies the branch from the root of a thread's lineage to turn `to` as Markdown (the message
 * menu's Copy as Markdown); a toast says what was copied, or why nothing was.
 */
export async function copyBranchMarkdown(threadId: string, to: number) {
  try {
    const markdown = await ipc.exportBranch(threadId, to, "markdown");
    await navigator.clipboard.writeText(markdown);
    notify({ kind: "success", title: `Copied turns 1–${to} as Markdown` });
  } catch (err) {
    notifyError(err, "Not copied");
  }
}

/**
 * Changes a thread's permission mode (from its next start). Refused while a turn runs (`busy`):
 * a toast says so in words and the header keeps showing the stored mode.
 */
export async function setThreadMode(threadId: string, mode: string | null, sandbox: string | null): Promise<boolean> {
  try {
    const view = await ipc.setMode(threadId, mode, sandbox);
    store.set((s) => ({ threads: s.threads.map((t) => (t.id === view.id ? view : t)) }));
    updateSlot(threadId, (s) => (s.detail ? { ...s, detail: { ...s.detail, ...view } } : s));
    return true;
  } catch (err) {
    notifyError(err, "Permission mode not changed");
    return false;
  }
}

/** Archives a thread (one with a worktree asks whether to remove it too: files/files.ts). */
export { archiveThread } from "../files/files";
