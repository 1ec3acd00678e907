// Rewind to here (docs/architecture.md "Rewind"): the plan the dialog shows, the rewind with the
// loss the user saw, Undo rewind, and which threads are a line a rewind set aside. The rewinds
// known to this window are a store of its own (per thread, from `rewinds`), outside the app
// state: only the header's Undo and the sidebar's "rewound" mark read them.
import * as ipc from "../ipc";
import type { RewindKind } from "../bindings/RewindKind";
import type { RewindPlan } from "../bindings/RewindPlan";
import type { RewindView } from "../bindings/RewindView";
import { describeError } from "../errors";
import { createStore, useSelector } from "../store";
import { loadFiles } from "../files/files";
import { loadThread, refreshThreads } from "../threads/cache";
import { notify, notifyError } from "../ui/toasts";

export const KINDS: { kind: RewindKind; label: string; detail: string }[] = [
  {
    kind: "conversation_and_files",
    label: "Conversation and files",
    detail: "The thread continues from this reply, and its folder's files go back to how they were then.",
  },
  {
    kind: "conversation",
    label: "Conversation only",
    detail: "The thread continues from this reply; the files stay as they are.",
  },
  {
    kind: "files",
    label: "Files only",
    detail: "The folder's files go back to how they were after this reply; the conversation stays.",
  },
];

export interface RewindState {
  /** Per thread: its rewinds as the Host last listed them. */
  known: Record<string, RewindView[]>;
  /** Threads the Host says a rewind set aside (read when the window starts, and after each
   * rewind), so the mark shows before any of their conversations is opened. */
  setAside: string[];
}

export const rewinds = createStore<RewindState>({ known: {}, setAside: [] });

export function useRewinds<T>(selector: (state: RewindState) => T): T {
  return useSelector(rewinds, selector);
}

/** Takes in what the Host said about a thread's rewinds. */
export function rememberRewinds(threadId: string, list: RewindView[]) {
  rewinds.set((s) => ({ known: { ...s.known, [threadId]: list } }));
}

/** The thread's latest rewind that Undo would undo, if this window knows one. */
export function undoable(threadId: string, state: RewindState = rewinds.get()): RewindView | undefined {
  return state.known[threadId]?.find((r) => r.thread_id === threadId && !r.undone);
}

export async function loadRewoundBranches() {
  try {
    rewinds.set({ setAside: await ipc.rewoundBranches() });
  } catch {
    // Only the sidebar's mark depends on it.
  }
}

/** Whether the thread is a line a rewind (or its undo) set aside. */
export function isRewoundBranch(threadId: string, state: RewindState = rewinds.get()): boolean {
  if (state.setAside.includes(threadId)) return true;
  return Object.values(state.known).some((rows) => rows.some((r) => r.branch_id === threadId));
}

export async function loadRewinds(threadId: string) {
  try {
    rememberRewinds(threadId, await ipc.rewinds(threadId));
  } catch {
    // Only Undo and a mark depend on it; the thread itself shows its own errors.
  }
}

export async function rewindPlan(threadId: string, turn: number, kind: RewindKind): Promise<RewindPlan> {
  return ipc.rewindPlan(threadId, turn, kind);
}

/** The thread and its files read again after its line changed. */
async function reloadAfter(threadId: string, branch: string | null) {
  await Promise.all([
    loadThread(threadId),
    refreshThreads(),
    loadRewinds(threadId),
    loadFiles(threadId),
    loadRewoundBranches(),
  ]);
  if (branch) void loadThread(branch);
}

/** Rewinds; resolves to the error's words, or null when done. */
export async function runRewind(
  threadId: string,
  turn: number,
  kind: RewindKind,
  acceptedLoss: string[],
): Promise<string | null> {
  try {
    const done = await ipc.rewind(threadId, turn, kind, acceptedLoss);
    // No toast: the shorter conversation and the header's Undo rewind say it (a toast would
    // cover that button).
    await reloadAfter(threadId, done.rewind.branch_id);
    return null;
  } catch (err) {
    return describeError(err).message;
  }
}

export async function undoRewind(threadId: string) {
  try {
    const done = await ipc.undoRewind(threadId);
    await reloadAfter(threadId, done.rewind.branch_id);
    notify({ kind: "success", title: `Rewind undone: turn ${done.rewind.turn} onwards is back` });
  } catch (err) {
    notifyError(err, "Rewind not undone");
  }
}
