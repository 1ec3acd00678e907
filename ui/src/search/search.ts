// Search everything (docs/architecture.md "Search"): the box's queries (debounced; only the
// newest answer is shown, and a newer query stops the older one in the app), the hit's words
// split for highlighting, and opening a hit: its thread's tab, scrolled to the message and
// highlighted, where the message's Fork and Continue in… menu is.
import type { SearchGroup } from "../bindings/SearchGroup";
import type { SearchHit } from "../bindings/SearchHit";
import type { SearchResults } from "../bindings/SearchResults";
import * as ipc from "../ipc";
import { store } from "../state";
import { openTab } from "../tabs/tabs";
import { importAndOpen } from "../threads/threadActions";

/** How long typing may pause before the query goes out. */
export const DEBOUNCE_MS = 180;

/** A hit's snippet as the text before the hit, the hit and the text after it. The Host gives
 *  the hit as UTF-8 byte offsets; a range that does not fit leaves the snippet whole. */
export function splitHit(snippet: string, start: number, end: number): [string, string, string] {
  const bytes = new TextEncoder().encode(snippet);
  if (!(start >= 0 && start <= end && end <= bytes.length)) return [snippet, "", ""];
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return [decode(bytes.slice(0, start)), decode(bytes.slice(start, end)), decode(bytes.slice(end))];
}

/** The words for where in its message a hit is. */
export function partWords(hit: Pick<SearchHit, "part" | "turn_number">): string {
  const part = {
    user_text: "prompt",
    reply: "reply",
    tool_input: "tool input",
    tool_output: "tool output",
  }[hit.part];
  return `turn ${hit.turn_number} · ${part}`;
}

export type SearchState =
  | { kind: "idle" }
  | { kind: "searching"; query: string }
  | { kind: "done"; query: string; results: SearchResults }
  | { kind: "error"; query: string; message: string };

/**
 * Runs queries as the user types: each call restarts the wait; when it ends the query goes
 * out, and an answer is passed to `show` only if no newer query was typed meanwhile.
 */
export function searcher(
  show: (state: SearchState) => void,
  run: (text: string) => Promise<SearchResults> = (text) => ipc.search({ text, regex: false, harness: null, folder: null, limit: null }),
  wait = DEBOUNCE_MS,
) {
  let seq = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return (text: string) => {
    const mine = ++seq;
    if (timer) clearTimeout(timer);
    if (text.trim() === "") {
      show({ kind: "idle" });
      return;
    }
    show({ kind: "searching", query: text });
    timer = setTimeout(() => {
      timer = null;
      run(text).then(
        (results) => {
          if (mine === seq) show({ kind: "done", query: text, results });
        },
        (err: unknown) => {
          if (mine === seq) show({ kind: "error", query: text, message: err instanceof Error ? err.message : String(err) });
        },
      );
    }, wait);
  };
}

/** Opens a hit: its thread (a session not adopted is adopted first), scrolled to the message
 *  and highlighted. */
export async function openHit(group: SearchGroup, hit: SearchHit) {
  let threadId = group.thread_id;
  const session = group.session;
  if (!threadId && session) {
    await importAndOpen(session.harness, session.path, null);
    threadId =
      store.get().threads.find((t) => t.native.path === session.path || (session.session_id !== null && t.native.session_id === session.session_id))?.id ?? null;
  }
  if (!threadId) return;
  openTab(threadId);
  const seq = (store.get().highlight?.seq ?? 0) + 1;
  const role = hit.part === "user_text" ? "user" : "assistant";
  const key = hit.turn_id ? `${hit.turn_id}:${hit.message_index}` : undefined;
  store.set({ highlight: { threadId, turn: Number(hit.turn_number), role, seq, key } });
}

/** Moves the keyboard to the search box (Ctrl/⌘-K), opening the sidebar first if hidden. */
export function focusSearch() {
  const focus = () => {
    const box = document.querySelector<HTMLInputElement>('[data-role="search"]');
    box?.focus();
    box?.select();
  };
  if (!store.get().sidebarOpen) {
    store.set({ sidebarOpen: true });
    requestAnimationFrame(focus);
  } else {
    focus();
  }
}
