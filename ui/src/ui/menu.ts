// The context menu: one at a time, drawn by Overlays.tsx.
import { type ContextMenuState, store } from "../state";

export function showMenu(menu: ContextMenuState) {
  store.set({ menu });
}

export function hideMenu() {
  if (store.get().menu) store.set({ menu: null });
}
