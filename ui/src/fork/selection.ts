// The selected message of each thread (arrows move it, the fork shortcut forks at it). A
// selection is a key `turn|role|rowKey`: what a fork needs, and which row to mark.
import { store } from "../state";

export type ForkRole = "user" | "assistant" | "tool";

/** Selection keys are `turn|role|rowKey`. */
export function selectionKey(turn: number, role: string, rowKey: string) {
  return `${turn}|${role}|${rowKey}`;
}

export function parseSelection(sel: string): { turn: number; role: ForkRole } | null {
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
