// Re-reads of a thread wait while this window forks it and shows the fork: re-reading a large
// source (a full `show`, parsed and rebuilt here) would compete with the fork window's first
// paint. What was asked for meanwhile is read once the hold ends.
import { debounced } from "../debounce";
import { loadThread } from "./cache";

/** Thread → how many forks hold its reads. */
const heldReads = new Map<string, number>();
/** Threads asked for while held. */
const missedReads = new Set<string>();

export function holdReads(threadId: string) {
  heldReads.set(threadId, (heldReads.get(threadId) ?? 0) + 1);
}

/** Ends one hold after `afterMs`; the last one to end reads what was missed. */
export function releaseReads(threadId: string, afterMs: number) {
  setTimeout(() => {
    const n = (heldReads.get(threadId) ?? 1) - 1;
    if (n > 0) {
      heldReads.set(threadId, n);
      return;
    }
    heldReads.delete(threadId);
    if (missedReads.delete(threadId)) scheduleThread(threadId);
  }, afterMs);
}

const debouncedRead = debounced((id) => {
  if (heldReads.has(id)) missedReads.add(id);
  else void loadThread(id);
}, 60);

/** Re-reads a thread soon (once for a burst), or after its hold ends. */
export function scheduleThread(threadId: string) {
  if (heldReads.has(threadId)) missedReads.add(threadId);
  else debouncedRead(threadId);
}
