// Rewind to here (docs/architecture.md "Rewind"): the plan the dialog shows, the rewind with the
// loss the user saw, Undo rewind, and which threads are a line a rewind set aside. The rewinds
// known to this window are kept here (per thread, from `rewinds`), outside the app state: only
// the header's Undo and the sidebar's "rewound" mark read them.
import { useSyncExternalStore } from "react";
import * as ipc from "../ipc";
import type { RewindKind } from "../bindings/RewindKind";
import type { RewindPlan } from "../bindings/RewindPlan";
import type { RewindView } from "../bindings/RewindView";
import { describeError } from "../errors";
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

const known = new Map<string, RewindView[]>();
const listeners = new Set<() => void>();
let version = 0;

function changed() {
  version++;
  for (const l of listeners) l();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Takes in what the Host said about a thread's rewinds. */
export function rememberRewinds(threadId: string, rewinds: RewindView[]) {
  known.set(threadId, rewinds);
  changed();
}

/** The thread's latest rewind that Undo would undo, if this window knows one. */
export function undoable(threadId: string): RewindView | undefined {
  return known.get(threadId)?.find((r) => r.thread_id === threadId && !r.undone);
}

/** Threads the Host says a rewind set aside (read when the window starts, and after each
 * rewind), so the mark shows before any of their conversations is opened. */
let setAside = new Set<string>();

export async function loadRewoundBranches() {
  try {
    setAside = new Set(await ipc.rewoundBranches());
    changed();
  } catch {
    // Only the sidebar's mark depends on it.
  }
}

/** Whether the thread is a line a rewind (or its undo) set aside. */
export function isRewoundBranch(threadId: string): boolean {
  if (setAside.has(threadId)) return true;
  for (const rows of known.values()) if (rows.some((r) => r.branch_id === threadId)) return true;
  return false;
}

/** Re-renders on any change of the known rewinds. */
export function useRewindsVersion(): number {
  return useSyncExternalStore(subscribe, () => version);
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
