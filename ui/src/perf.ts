// Measurements read by the benchmarks over WebDriver (`window.__forkhostPerf`): when a thread's
// data was read, rendered and painted, and what each fork cost.
export interface OpenMeasure {
  threadId: string;
  messages: number;
  /** `show` over IPC, ms. */
  readMs: number;
  /** From the data being read to the list's first paint, ms. */
  firstPaintMs: number | null;
  /** From the data being read to a scrollable list scrolled to its end, ms. */
  scrollableMs: number | null;
  /** Date.now() at first paint (compared across windows with a fork's click time). */
  paintedAt: number | null;
  /** Date.now() when the data was in hand (a fork window: its seed arrived). */
  readEpoch: number;
  /** From the data being read to the list's first render (React), ms. */
  renderMs: number | null;
}

export interface ForkMeasure {
  threadId: string;
  forkId: string;
  /** The label of the window it opened in (null: a tab here). */
  window: string | null;
  /** Date.now() at the click. */
  clickedAt: number;
  /** Click → the fork command returned, ms. */
  commandMs: number;
  nativeMs: number;
  /** The harness forked in a warm spare. */
  warm: boolean;
  hostTotalMs: number;
  opensIn: "window" | "tab";
}

interface Perf {
  opens: OpenMeasure[];
  forks: ForkMeasure[];
  /** A spare window: Date.now() when it was assigned (its event), and when it became visible. */
  assignedAt?: number;
  visibleAt?: number;
  /** Its first frame after becoming visible, Date.now(). */
  firstFrameAt?: number;
  /** Every full read of a thread (`show`): when it started (Date.now()) and how long it took. */
  reads: { threadId: string; startedAt: number; ms: number }[];
  /** A window shown for a fork: the inherited history it showed before the fork was ready
   * (Date.now() when it arrived and when it painted; its rows). */
  preview?: { arrivedAt: number; paintedAt: number | null; messages: number; rows: number };
  /** Per thread: when its data was last read, until its list is painted. */
  pending: Record<string, { readAt: number; open: OpenMeasure }>;
  /** Per fork whose worktree was filled after it opened: the most files its progress counted
   * (of `total`), and Date.now() when the fill ended (every window hears it). */
  fills: Record<string, { done: number; total: number; preparedAt: number | null }>;
}

declare global {
  interface Window {
    __forkhostPerf?: Perf;
  }
}

export function perf(): Perf {
  if (!window.__forkhostPerf) window.__forkhostPerf = { opens: [], forks: [], reads: [], pending: {}, fills: {} };
  return window.__forkhostPerf;
}

/** A thread's data was read (`readMs` for the read itself); its list paints next. */
export function markRead(threadId: string, readMs: number, messages: number) {
  const p = perf();
  const open: OpenMeasure = {
    threadId,
    messages,
    readMs,
    firstPaintMs: null,
    scrollableMs: null,
    paintedAt: null,
    readEpoch: Date.now(),
    renderMs: null,
  };
  p.opens.push(open);
  p.pending[threadId] = { readAt: performance.now(), open };
  performance.mark(`forkhost:read:${threadId}`);
}

/** The conversation list of `threadId` rendered for the first time (React). */
export function markRendered(threadId: string) {
  const pending = perf().pending[threadId];
  if (pending && pending.open.renderMs === null) {
    pending.open.renderMs = performance.now() - pending.readAt;
  }
}

/** The conversation list of `threadId` painted its rows / became scrollable at its end. */
export function markPainted(threadId: string, stage: "paint" | "scrollable") {
  const p = perf();
  const pending = p.pending[threadId];
  if (!pending) return;
  const { open } = pending;
  const ms = performance.now() - pending.readAt;
  if (open.firstPaintMs === null) {
    open.firstPaintMs = ms;
    open.paintedAt = Date.now();
  }
  if (stage === "scrollable") {
    open.scrollableMs = ms;
    delete p.pending[threadId];
  }
  performance.mark(`forkhost:${stage}:${threadId}`);
}

/** A fork's fill counted `fill` files, or (null) ended. */
export function markFill(threadId: string, fill: { done: number; total: number } | null) {
  const fills = perf().fills;
  const seen = (fills[threadId] ??= { done: 0, total: 0, preparedAt: null });
  if (fill) {
    seen.done = Math.max(seen.done, fill.done);
    seen.total = Math.max(seen.total, fill.total);
  } else {
    seen.preparedAt = Date.now();
  }
}
