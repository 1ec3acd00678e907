// How the window follows the Host: its events update the streaming marks and live turns, and
// schedule the re-reads that bring the stored turns.
import type { HostEvent } from "../ipc";
import { applyEvent } from "./live";
import { type AppState, store, threadById, updateSlot } from "../state";
import { notify } from "../toasts";
import { applyApprovalEvent } from "./approvals";
import { scheduleThreads } from "./cache";
import { scheduleThread } from "./heldReads";

function isShown(state: AppState, threadId: string) {
  return state.tabs.some((t) => t.thread_id === threadId) || Boolean(state.slots[threadId]);
}

/** Applies one Host event to this window. */
export function handleHostEvent(event: HostEvent) {
  const state = store.get();
  const id = event.thread_id;
  applyApprovalEvent(event);
  if (event.type === "thread_changed") {
    scheduleThreads("all");
    if (isShown(state, id)) scheduleThread(id);
    return;
  }
  if (event.type === "turn_started") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: true } }));
  } else if (event.type === "turn_ended") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: false } }));
  }
  if (!isShown(state, id)) return;
  const slot = state.slots[id];
  const base = slot?.detail?.turns.length ?? 0;
  const live = applyEvent(slot?.live, event, base);
  if (live !== slot?.live) updateSlot(id, (s) => ({ ...s, live }));
  if (event.type === "turn_ended") {
    scheduleThread(id);
    scheduleThreads("all");
  }
  if (event.type === "error" && state.tabs.some((t) => t.thread_id === id)) {
    const title = threadById(state, id)?.title ?? "Thread";
    notify({ kind: "error", title: `${title}: ${event.code.replace(/_/g, " ")}`, message: event.message });
  }
}
