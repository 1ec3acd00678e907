// A fork's history before the fork exists: the source's turns up to the cut, shown read-only
// while the harness forks, until the fork's own detail has painted in its place, or dropped
// when the fork fails. A window's comes from the app, which hands it to the spare window it
// shows (boot.ts); a tab's is cut from the source's detail this window already holds.
import type { ThreadDetail } from "../bindings/ThreadDetail";
import * as ipc from "../ipc";
import { perf } from "../perf";
import { store } from "../state";
import { createStore, useSelector } from "../store";
import { messageCount } from "../threads/cache";

export const previewStore = createStore<{ detail: ThreadDetail | null }>({ detail: null });

export function usePreview(): ThreadDetail | null {
  return useSelector(previewStore, (s) => s.detail);
}

/** Asks the app for this window's preview (told by `fork-preview`): shows it, or clears it. */
export async function loadPreview() {
  let detail: ThreadDetail | null;
  try {
    detail = (await ipc.forkPreview()).detail;
  } catch {
    return;
  }
  // The fork arrived first: its own detail shows.
  if (!store.get().spare) return;
  if (detail) {
    perf().preview = { arrivedAt: Date.now(), paintedAt: null, messages: messageCount(detail), rows: 0 };
  }
  previewStore.set({ detail });
}

/** How many frames the preview waits at most for the fork's own list to paint. */
const MAX_FRAMES = 60;

/**
 * The fork's own detail is shown (`threadId`): the preview goes once that list has painted
 * and scrolled to its end under it (so nothing flashes in between), or after MAX_FRAMES.
 */
export function endPreviewWhenPainted(threadId: string) {
  if (!previewStore.get().detail) return;
  endWhenPainted(threadId, () => previewStore.set({ detail: null }));
}

function endWhenPainted(threadId: string, end: () => void) {
  let frames = 0;
  const check = () => {
    frames += 1;
    if (perf().pending[threadId] === undefined || frames >= MAX_FRAMES) {
      end();
    } else {
      requestAnimationFrame(check);
    }
  };
  requestAnimationFrame(check);
}

/**
 * A fork into a tab, while the harness forks: the source's turns up to the cut, shown in this
 * window's tab area at the click (the fork has no id yet, so no tab of its own). The source's
 * detail is already here, so nothing is asked of the app. Read-only, as a window's preview.
 */
export const tabPreviewStore = createStore<{ detail: ThreadDetail | null; opened: boolean }>({
  detail: null,
  opened: false,
});

export function useTabPreview(): ThreadDetail | null {
  return useSelector(tabPreviewStore, (s) => s.detail);
}

/** `forking`: in place of the active tab, with a "Forking…" place in the tab bar; `opened`:
 * over the fork's own tab, which is open and painting underneath. */
export function useTabPreviewPhase(): "none" | "forking" | "opened" {
  return useSelector(tabPreviewStore, (s) => (s.detail === null ? "none" : s.opened ? "opened" : "forking"));
}

/** Shows `source` up to the cut (`after` turn N keeps turns 1–N, `before` turn N keeps 1–N−1). */
export function showTabPreview(source: ThreadDetail, at: { kind: "after" | "before"; turn: number }) {
  const last = at.kind === "before" ? at.turn - 1 : at.turn;
  const detail = { ...source, turns: source.turns.filter((t) => Number(t.number) <= last) };
  perf().preview = { arrivedAt: Date.now(), paintedAt: null, messages: messageCount(detail), rows: 0 };
  tabPreviewStore.set({ detail, opened: false });
}

/** The fork's tab is open (`threadId`): the preview moves over it and goes once its list has
 * painted underneath. A failed fork (`null`) drops it at once. */
export function endTabPreview(threadId: string | null) {
  if (threadId === null) {
    tabPreviewStore.set({ detail: null, opened: false });
    return;
  }
  if (tabPreviewStore.get().detail === null) return;
  tabPreviewStore.set({ opened: true });
  endWhenPainted(threadId, () => tabPreviewStore.set({ detail: null, opened: false }));
}
