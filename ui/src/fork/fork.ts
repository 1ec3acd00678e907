// Forking a thread at a message: where the fork opens (the setting, or its opposite with
// Cmd/Ctrl), the command, showing the fork, and its measurements.
import type { HarnessKind } from "../bindings/HarnessKind";
import { describeError } from "../errors";
import { harnessName } from "../harnesses";
import { defaultModeFor } from "../permissions";
import * as ipc from "../ipc";
import type { ForkAt, ForkFiles } from "../ipc";
import { type ForkMeasure, markRead, perf } from "../perf";
import { activeTabOf, store, threadById, updateSlot } from "../state";
import { type OpenWhere, openTab } from "../tabs/tabs";
import { messageCount, scheduleThreads, stripTurns } from "../threads/cache";
import { holdReads, releaseReads, scheduleThread } from "../threads/heldReads";
import { setDraft } from "../threads/turns";
import { notify, replaceToast } from "../ui/toasts";
import { endTabPreview, showTabPreview } from "./preview";
import { type ForkRole, parseSelection } from "./selection";

export interface ForkRequest {
  threadId: string;
  turn: number;
  /** A user message forks before its turn, a reply after it. */
  role: ForkRole;
  /** The row the fork was started from (its button shows progress). */
  rowKey: string;
  /** Open where the setting does not say (Cmd/Ctrl-click). */
  invert?: boolean;
  /** A new worktree or the same folder; unset: as Settings' "When I fork" says (no round trip). */
  files?: ForkFiles;
  /** Continue in another harness (a new native session of it holding the turns up to the
   * cut); unset or the thread's own harness: a native fork. */
  into?: HarnessKind;
}

export function forkWhere(invert: boolean | undefined): OpenWhere {
  const setting = store.get().settings.fork_opens_in;
  const where: OpenWhere = setting === "tab" ? "tab" : "window";
  if (!invert) return where;
  return where === "tab" ? "window" : "tab";
}

/** How long after a fork is shown the source's re-read waits. */
const FORK_PAINT_GRACE_MS = 1200;

/**
 * How long a fork runs before the row's button and a toast say it is forking. A fork that
 * answers sooner (Claude's, most) shows nothing in between: drawing the busy state cost the
 * page a frame while the fork's reply waited behind it.
 */
const BUSY_AFTER_MS = 150;

/** Rows with a fork under way (the store's `forking` shows them only after BUSY_AFTER_MS). */
const running = new Set<string>();

export async function forkAt(req: ForkRequest) {
  const state = store.get();
  if (state.forking[req.rowKey] || running.has(req.rowKey)) return;
  running.add(req.rowKey);
  const where = forkWhere(req.invert);
  const at: ForkAt =
    req.role === "user" ? { kind: "before", turn: req.turn } : { kind: "after", turn: req.turn };
  const source = threadById(state, req.threadId);
  const boundary = req.role === "user" ? `before turn ${req.turn}` : `after turn ${req.turn}`;
  const crossing = req.into !== undefined && source !== undefined && req.into !== source.harness;
  const words = crossing ? `in ${harnessName(req.into ?? "")} ${boundary}` : boundary;
  let progress: number | null = null;
  const busy = setTimeout(() => {
    store.set((s) => ({ forking: { ...s.forking, [req.rowKey]: true } }));
    progress = notify({
      kind: "progress",
      title: crossing ? `Continuing ${words}…` : `Forking ${words}…`,
      message: source ? `${source.title} · ${source.harness}` : undefined,
    });
  }, BUSY_AFTER_MS);
  const finish = (toast: Parameters<typeof notify>[0]) =>
    progress === null ? notify(toast) : replaceToast(progress, toast);
  const clickedAt = Date.now();
  const started = performance.now();
  holdReads(req.threadId);
  let shown = false;
  // A tab's fork shows the history it inherits at once, from the source's detail held here
  // (a window's gets its own from the app), where the harness's fork is a call that takes a
  // while. Claude's own fork answers at once (it is derived at the first prompt): drawing a
  // preview first would only delay the fork's own tab.
  const lazy = source?.harness === "claude" && !crossing;
  const sourceDetail = where === "tab" && !lazy ? state.slots[req.threadId]?.detail : undefined;
  if (sourceDetail) showTabPreview(sourceDetail, { kind: req.role === "user" ? "before" : "after", turn: req.turn });
  const previewed = sourceDetail !== undefined;
  try {
    // A window's fork: the app opens its window and hands it the fork's detail (not through
    // here: this reply's thread then has no turns).
    const result = await ipc.fork(req.threadId, at, where === "window", req.files ?? null, req.into ?? null);
    const fork = result.thread;
    if (crossing && req.into) {
      // Another harness starts where Settings' "New threads start in" says for it, as a new
      // thread does (the source's words are not its words).
      const choice = defaultModeFor(store.get().settings.default_modes, req.into);
      if (choice.mode !== null || choice.sandbox !== null) {
        await ipc.setMode(fork.id, choice.mode, choice.sandbox).catch((err: unknown) => {
          notify({ kind: "error", title: "Could not set the fork's mode", message: describeError(err).message });
        });
      }
    }
    const measure: ForkMeasure = {
      threadId: req.threadId,
      forkId: fork.id,
      window: null,
      clickedAt,
      commandMs: performance.now() - started,
      nativeMs: result.timing.native_ms,
      warm: result.timing.warm,
      hostTotalMs: result.timing.total_ms,
      opensIn: where,
    };
    store.set((s) => ({
      // A remote fork (`HOST:ID`) is listed under its host, not here.
      threads:
        fork.id.includes(":") || s.threads.some((t) => t.id === fork.id) ? s.threads : [...s.threads, stripTurns(fork)],
    }));
    if (where === "window") {
      measure.window =
        result.window ??
        // The app could not open it: a window that reads the fork itself.
        (await ipc.openWindow(
          [{ thread_id: fork.id, kind: "conversation" }],
          result.prefill !== null ? { thread_id: fork.id, text: result.prefill } : null,
          true,
        ));
      perf().forks.push(measure);
    } else {
      perf().forks.push(measure);
      markRead(fork.id, 0, messageCount(fork));
      updateSlot(fork.id, (s) => ({ ...s, detail: fork }));
      if (result.prefill !== null) setDraft(fork.id, result.prefill);
      openTab(fork.id);
      store.set((s) => ({ focusComposer: s.focusComposer + 1 }));
      if (previewed) endTabPreview(fork.id);
    }
    shown = true;
    finish({
      kind: "success",
      title: crossing ? `Continued ${words}` : `Forked ${words}`,
      message: `Opened in a new ${where} · ${Math.round(result.timing.total_ms)} ms`,
    });
    if (result.carry_note) {
      notify({ kind: "info", title: "What came over", message: result.carry_note }, 10_000);
    }
    if (result.files_note) {
      // Its files are not exactly the fork point's (or its folder is not in git): say so.
      notify({ kind: "info", title: "About the fork's files", message: result.files_note }, 10_000);
    }
    scheduleThreads("all");
    scheduleThread(req.threadId);
  } catch (err) {
    if (previewed) endTabPreview(null);
    const e = describeError(err);
    finish({ kind: "error", title: `Fork failed: ${e.title}`, message: e.message });
  } finally {
    // The source's re-read (its fork chips) once the fork has had time to paint.
    releaseReads(req.threadId, shown ? FORK_PAINT_GRACE_MS : 0);
    clearTimeout(busy);
    running.delete(req.rowKey);
    store.set((s) => {
      const forking = { ...s.forking };
      delete forking[req.rowKey];
      return { forking };
    });
  }
}

/** Forks the selected message of the active tab, or after its latest reply. */
export function forkSelected(invert = false) {
  const state = store.get();
  const tab = activeTabOf(state);
  if (!tab || tab.kind !== "conversation") return;
  const slot = state.slots[tab.thread_id];
  const detail = slot?.detail;
  if (!detail || detail.turns.length === 0) return;
  const sel = state.selected[tab.thread_id];
  const parsed = sel ? parseSelection(sel) : null;
  if (parsed) {
    void forkAt({ threadId: tab.thread_id, ...parsed, rowKey: sel ?? "", invert });
  } else {
    forkLatest(invert);
  }
}

export function forkLatest(invert = false) {
  const state = store.get();
  const tab = activeTabOf(state);
  if (!tab) return;
  const detail = state.slots[tab.thread_id]?.detail;
  const last = detail?.turns[detail.turns.length - 1];
  if (!last) return;
  void forkAt({
    threadId: tab.thread_id,
    turn: Number(last.number),
    role: "assistant",
    rowKey: `${last.id}:latest`,
    invert,
  });
}
