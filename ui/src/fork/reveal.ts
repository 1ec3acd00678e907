// Lineage jumps: from a fork chip to the turn it came from (or led to), in its thread's tab.
import * as ipc from "../ipc";
import { store } from "../state";
import { openTab } from "../tabs/tabs";

/** Shows turn `turn` of a thread (opening its tab if needed) and highlights the message. */
export function reveal(threadId: string, turn: number, role: "user" | "assistant") {
  openTab(threadId);
  // A new seq each time, so the same target can be revealed twice.
  const seq = (store.get().highlight?.seq ?? 0) + 1;
  store.set({ highlight: { threadId, turn, role, seq } });
}

/** Turn numbers by `thread/turn id`, remembered (null: the turn is gone). */
const turnNumbers = new Map<string, number | null>();

/** The 1-based number of turn `turnId` of thread `threadId` (remembered; null if gone). */
export async function sourceTurnNumber(threadId: string, turnId: string): Promise<number | null> {
  const key = `${threadId}/${turnId}`;
  const known = turnNumbers.get(key);
  if (known !== undefined) return known;
  const detail = store.get().slots[threadId]?.detail ?? (await ipc.show(threadId));
  for (const t of detail.turns) turnNumbers.set(`${threadId}/${t.id}`, Number(t.number));
  const n = turnNumbers.get(key) ?? null;
  turnNumbers.set(key, n);
  return n;
}
