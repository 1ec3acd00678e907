// The threads this window knows: the list (for the sidebar) and each shown thread's detail (its
// turns and messages), read from the Host and kept in the store. A `thread_changed` event that
// carries the thread's row patches the list in place (`upsertThread`) instead of a re-read.
import { debounced } from "../debounce";
import { describeError } from "../errors";
import * as ipc from "../ipc";
import type { ThreadDetail, ThreadView } from "../ipc";
import { refreshApprovals } from "./approvals";
import { settled } from "./live";
import { markRead, perf } from "../perf";
import { store, updateSlot } from "../state";
import { notifyError } from "../ui/toasts";

export async function refreshThreads() {
  try {
    const threads = await ipc.threads();
    store.set({ threads, threadsLoaded: true });
  } catch (err) {
    store.set({ threadsLoaded: true });
    notifyError(err, "Threads");
  }
}

/** Re-reads the thread list soon, once for a burst of changes (the key is always "all"). */
export const scheduleThreads = debounced(() => void refreshThreads(), 120);

/** Reads a thread (its turns and messages) from the Host. */
export async function loadThread(threadId: string): Promise<ThreadDetail | undefined> {
  updateSlot(threadId, (s) => ({ ...s, loading: true }));
  const started = performance.now();
  const startedAt = Date.now();
  try {
    const detail = await ipc.show(threadId);
    // What its runtime waits on, also when it asked before this window existed.
    void refreshApprovals(threadId);
    perf().reads.push({ threadId, startedAt, ms: performance.now() - started });
    if (!store.get().slots[threadId]?.detail) {
      markRead(threadId, performance.now() - started, messageCount(detail));
    }
    updateSlot(threadId, (s) => {
      const live = s.live && settled(s.live, detail.turns.length) ? undefined : s.live;
      return { ...s, detail, loading: false, error: undefined, live };
    });
    upsertThread(stripTurns(detail));
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

/**
 * Takes a thread's row into the list (a new one goes last, as `threads` orders them). A row
 * older than the one known is left out: two writers' events may arrive out of order, and the
 * revision only grows. Nothing changes (no re-render) when the entry would look the same.
 */
export function upsertThread(view: ThreadView) {
  // The list is this machine's; a remote thread is listed under its host (remote/Hosts.tsx).
  if (view.id.includes(":")) return;
  const known = store.get().threads.find((t) => t.id === view.id);
  if (known && (known.revision > view.revision || sameThread(known, view))) return;
  store.set((s) => ({
    threads: known ? s.threads.map((t) => (t.id === view.id ? view : t)) : [...s.threads, view],
  }));
}

/** After missed events: re-read everything shown. */
export function reloadAll() {
  void refreshThreads();
  for (const id of Object.keys(store.get().slots)) void loadThread(id);
}

/** Whether the list's entry would show anything new (a new object would re-render the sidebar). */
export function sameThread(a: ThreadView, b: ThreadView) {
  return (
    a.revision === b.revision &&
    a.updated_at === b.updated_at &&
    a.state === b.state &&
    a.title === b.title &&
    a.native.path === b.native.path
  );
}

/** A thread's list entry: its detail without the turns. */
export function stripTurns(detail: ThreadDetail): ThreadView {
  const { turns: _turns, ...view } = detail;
  return view;
}

export function messageCount(detail: ThreadDetail): number {
  return detail.turns.reduce((n, t) => n + t.messages.length, 0);
}
