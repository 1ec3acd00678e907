// A fork window's history before the fork exists: the source's turns up to the cut, which the
// app hands the spare window it shows while the harness forks. Shown read-only until the
// fork's own detail has painted in its place (boot.ts), or dropped when the fork fails.
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
  let frames = 0;
  const check = () => {
    frames += 1;
    if (perf().pending[threadId] === undefined || frames >= MAX_FRAMES) {
      previewStore.set({ detail: null });
    } else {
      requestAnimationFrame(check);
    }
  };
  requestAnimationFrame(check);
}
