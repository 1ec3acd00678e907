// Keeps the web view on the app's own page. A link dropped on the window, or a file, would
// otherwise make the web view navigate to it (the Rust side refuses that navigation too, in
// `stay_on_app_origin`, but then the drop looks like it did nothing); links in the terminal
// open in the system browser, as links in replies do.
import type { ILinkHandler } from "@xterm/xterm";

import { openExternal } from "./ipc";

function isEditable(target: EventTarget | null): boolean {
  if (typeof HTMLElement === "undefined" || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement) return !target.readOnly && !target.disabled;
  if (target instanceof HTMLInputElement) {
    return !target.readOnly && !target.disabled && /^(text|search|url|email|)$/.test(target.type);
  }
  return false;
}

/**
 * Whether a drag over or onto `target` carrying `types` (DataTransfer.types) must not reach the
 * web view's default handling. Text into a text field stays possible; files never drop anywhere.
 */
export function blocksDrop(types: readonly string[], target: EventTarget | null): boolean {
  return types.includes("Files") || !isEditable(target);
}

/** Cancels every drag and drop that could navigate the window. Returns the way to undo it. */
export function installDropGuard(win: Window): () => void {
  const guard = (e: Event) => {
    const types = (e as DragEvent).dataTransfer?.types ?? [];
    if (blocksDrop(Array.from(types), e.target)) e.preventDefault();
  };
  // Capture: before any handler of the page could stop the event on its way.
  win.addEventListener("dragover", guard, true);
  win.addEventListener("drop", guard, true);
  return () => {
    win.removeEventListener("dragover", guard, true);
    win.removeEventListener("drop", guard, true);
  };
}

/** Opens a link the terminal shows (plain URL or OSC 8 hyperlink) in the system browser. */
export function openTerminalLink(_event: MouseEvent, uri: string): void {
  void openExternal(uri).catch(() => {});
}

/** xterm.js's handler for OSC 8 hyperlinks: the same door as any link (http(s)/mailto only). */
export const terminalLinkHandler: ILinkHandler = {
  activate: openTerminalLink,
  // openExternal refuses other schemes anyway; xterm then doesn't even underline them.
  allowNonHttpProtocols: false,
};
