// How the window follows the Host: its events update the streaming marks, the live turns and the
// thread list (from the row a `thread_changed` carries), and schedule the re-reads that bring
// the stored turns.
import type { HostEvent } from "../ipc";
import { applyEvent } from "./live";
import { type AppState, store, threadById, updateSlot } from "../state";
import { notify } from "../ui/toasts";
import { applyFillEvent, applySetupEvent } from "../files/files";
import { applyApprovalEvent } from "./approvals";
import { refreshGrants } from "./grants";
import { scheduleThreads, upsertThread } from "./cache";
import { scheduleThread } from "./heldReads";
import { FrameCoalescer, nextFrame, spaced } from "../markdown/frame";
import { renderStats, wholeMode } from "../markdown/render";

function isShown(state: AppState, threadId: string) {
  return state.tabs.some((t) => t.thread_id === threadId) || Boolean(state.slots[threadId]);
}

// Text deltas come far more often than frames (a fast model sends hundreds a second), and each
// one taken into the store renders the conversation again: they are joined per thread and taken
// in once per frame, at most every TAKE_EVERY_MS. Any other event of the thread takes its pending text in first, so the
// order of what the live turn shows is the order of the events.
const pendingText = new Map<string, string>();
/** At most this often (a live reply's Markdown is shown at most about as often: liveWorker.ts). */
const TAKE_EVERY_MS = 50;
let lastTake = -Infinity;
const textFrames = new FrameCoalescer(
  () => {
    lastTake = performance.now();
    takeText();
    renderStats.takes++;
    renderStats.takeMs += performance.now() - lastTake;
  },
  spaced(nextFrame, () => lastTake + TAKE_EVERY_MS - performance.now()),
);

function takeText(only?: string) {
  for (const [id, text] of [...pendingText]) {
    if (only !== undefined && id !== only) continue;
    pendingText.delete(id);
    applyLive({ type: "text_delta", thread_id: id, text });
  }
}

/** The live turn of a shown thread after `event`. */
function applyLive(event: HostEvent) {
  const state = store.get();
  const id = event.thread_id;
  if (!isShown(state, id)) return;
  const slot = state.slots[id];
  const base = slot?.detail?.turns.length ?? 0;
  const live = applyEvent(slot?.live, event, base);
  if (live !== slot?.live) updateSlot(id, (s) => ({ ...s, live }));
}

/** Applies one Host event to this window. */
export function handleHostEvent(event: HostEvent) {
  const id = event.thread_id;
  if (event.type === "text_delta" && !wholeMode()) {
    pendingText.set(id, (pendingText.get(id) ?? "") + event.text);
    textFrames.request();
    return;
  }
  if (pendingText.has(id)) takeText(id);
  const state = store.get();
  applyApprovalEvent(event);
  // A fork's setup output comes before its window shows it: kept whatever this window shows.
  if (applySetupEvent(event)) return;
  if (applyFillEvent(event)) return;
  if (event.type === "grants_changed") {
    if (isShown(state, id)) void refreshGrants(id);
    return;
  }
  if (event.type === "thread_changed") {
    // Its row, where the Host had it at hand; else the list is read again.
    if (event.thread) upsertThread(event.thread);
    else scheduleThreads("all");
    // Its turns may have changed too, which the row does not say: a shown one is read again.
    if (isShown(state, id)) scheduleThread(id);
    return;
  }
  if (event.type === "turn_started") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: true } }));
  } else if (event.type === "turn_ended") {
    store.set((s) => ({ streaming: { ...s.streaming, [id]: false } }));
  }
  if (!isShown(state, id)) return;
  applyLive(event);
  // The list learns of the turn from the `thread_changed` the Host sends after it.
  if (event.type === "turn_ended") scheduleThread(id);
  if (event.type === "error" && state.tabs.some((t) => t.thread_id === id)) {
    const title = threadById(state, id)?.title ?? "Thread";
    notify({ kind: "error", title: `${title}: ${event.code.replace(/_/g, " ")}`, message: event.message });
  }
}

// Under WebDriver only (the app's benchmarks): Host events fed straight into this handler, as
// the bridge delivers them (app::bench streams a long reply this way).
if (typeof navigator !== "undefined" && navigator.webdriver) {
  (window as unknown as { __forkhostHostEvent?: (e: HostEvent) => void }).__forkhostHostEvent =
    handleHostEvent;
}
