import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { forkAt } from "../fork/fork";
import { continueItems } from "../fork/continueIn";
import { openRaceDialog } from "../race/race";
import type { HarnessKind } from "../bindings/HarnessKind";
import { reveal, sourceTurnNumber } from "../fork/reveal";
import { select, selectionKey } from "../fork/selection";
import { openDialog } from "../ui/open";
import { showMenu } from "../ui/menu";
import { markPainted, markRendered } from "../perf";
import { keepScroll, keptOffset, keptScroll } from "../tabs/scroll";
import { openTab } from "../tabs/tabs";
import { loadThread } from "../threads/cache";
import { copyBranchMarkdown } from "../threads/threadActions";
import type { ForkView } from "../bindings/ForkView";
import type { TabView } from "../bindings/TabView";
import type { ThreadView } from "../bindings/ThreadView";
import { Approvals } from "../messages/ApprovalCard";
import type { ForkFiles } from "../ipc";
import { FolderBar, FolderChip, forkFileItems } from "../files/FolderChip";
import { GrantsControl } from "./GrantsControl";
import { ModeControl } from "./ModeControl";
import { UndoRewind } from "../rewind/UndoRewind";
import { Composer } from "./Composer";
import { AlertIcon, ArrowUpRightIcon, ForkIcon, Spinner, TerminalIcon } from "../ui/icons";
import { harnessName } from "../harnesses";
import { type ForkChip, MessageRow, StatusLine, forkLabel } from "../messages/MessageRow";
import {
  type LiveRow,
  type MessageRow as MessageRowData,
  type Row,
  buildRows,
  copyText,
  liveRows,
  rowIndexOf,
} from "../messages/rows";
import { threadById, useApp } from "../state";
import { RemeasureContext } from "../messages/ToolBlock";

function estimate(row: Row | undefined): number {
  if (!row) return 80;
  if (row.kind === "status") return 40;
  if (row.role === "tool") return 52;
  const text = row.kind === "message" ? row.message.text : row.text;
  let lines = Math.ceil(text.length / 95);
  for (let i = text.indexOf("\n"); i >= 0 && lines < 80; i = text.indexOf("\n", i + 1)) lines++;
  return (row.role === "user" ? 92 : 70) + Math.min(lines, 80) * 22;
}

const NO_CHIPS: ForkChip[] = [];
const chipCache = new WeakMap<string[], ForkChip[]>();

/** Chips for a row's forks; the same array while the forks and titles are the same. */
function chipsOf(forks: string[], byId: Map<string, ThreadView>): ForkChip[] {
  const chips = forks.map((id) => ({ id, title: byId.get(id)?.title ?? "Fork" }));
  const cached = chipCache.get(forks);
  if (cached && cached.length === chips.length && cached.every((c, i) => c.title === chips[i]?.title)) {
    return cached;
  }
  chipCache.set(forks, chips);
  return chips;
}

export function shortPath(path: string): string {
  const home = /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(\/|$)/.exec(path);
  const p = home ? `~${path.slice(home[1]?.length ?? 0)}` : path;
  return p.length > 48 ? `…${p.slice(-47)}` : p;
}

/** The active conversation tab: header with lineage, the message list, the composer. */
export function Conversation({ tab }: { tab: TabView }) {
  const threadId = tab.thread_id;
  const slot = useApp((s) => s.slots[threadId]);
  const thread = useApp((s) => threadById(s, threadId));

  useEffect(() => {
    if (!slot?.detail && !slot?.loading && !slot?.error) void loadThread(threadId);
  }, [threadId, slot]);

  if (!slot?.detail || !thread) {
    if (slot?.error) {
      return (
        <section className="conv conv--empty" data-thread-state="error">
          <div className="conv-error" role="alert">
            <AlertIcon width={20} height={20} />
            <div>
              <strong>Can't open this thread</strong>
              <p>{slot.error.message}</p>
            </div>
            <button type="button" className="button" onClick={() => void loadThread(threadId)}>
              Try again
            </button>
          </div>
        </section>
      );
    }
    return (
      <section className="conv conv--empty" data-thread-state="loading">
        <div className="conv-loading">
          <Spinner size={18} /> Loading thread…
        </div>
      </section>
    );
  }
  return <ConversationView key={threadId} threadId={threadId} thread={thread} />;
}

function ConversationView({ threadId, thread }: { threadId: string; thread: ThreadView }) {
  const rendered = useRef(false);
  const slot = useApp((s) => s.slots[threadId]);
  const detail = slot?.detail;
  const live = slot?.live;
  const threads = useApp((s) => s.threads);
  const doctor = useApp((s) => s.doctor);
  const selected = useApp((s) => s.selected[threadId]);
  const highlight = useApp((s) => s.highlight);
  const forking = useApp((s) => s.forking);
  const where = useApp((s) => (s.settings.fork_opens_in === "tab" ? "tab" : "window"));
  const focusSignal = useApp((s) => s.focusComposer);
  const terminalOpen = useApp((s) =>
    s.tabs.some((t) => t.thread_id === threadId && t.kind === "terminal"),
  );

  if (!rendered.current) {
    rendered.current = true;
    performance.mark(`forkhost:render:${threadId}`);
    markRendered(threadId);
  }
  const report = doctor?.find((r) => r.name === thread.harness);
  // Forks' boundaries and titles (for chips): a signature, so that other changes to the thread
  // list don't rebuild the rows.
  const forkSig = useMemo(
    () =>
      threads
        .filter((t) => t.fork)
        .map((t) => `${t.id}\u0001${t.fork?.boundary}\u0001${t.title}`)
        .join("\u0002"),
    [threads],
  );
  const byId = useMemo(
    () => new Map(threads.map((t) => [t.id, t])),
    // Keyed on the signature, not the list: the map is rebuilt only when what the chips show
    // changed, so a thread's other updates keep the rows (and the list's measurements).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- forkSig stands for `threads`
    [forkSig],
  );
  const baseRows = useMemo(
    () => (detail ? buildRows(detail, undefined, report, (id) => byId.get(id)?.fork?.boundary) : []),
    [detail, report, byId],
  );
  const rows = useMemo(() => (live ? baseRows.concat(liveRows(live)) : baseRows), [baseRows, live]);
  // Open at the end (or where a hidden tab was: tabs/scroll.ts): start the list's range there,
  // sized like the window, before it is measured. Only the first layout uses it: computed once,
  // from the rows of the first render.
  const [kept] = useState(() => keptOffset(keptScroll(threadId), baseRows, estimate));
  const [initialOffset] = useState(
    () => kept ?? Math.max(0, baseRows.reduce((sum, r) => sum + estimate(r), 0) - 600),
  );

  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(kept === undefined);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimate(rows[i]),
    overscan: 8,
    getItemKey: (i) => rows[i]?.key ?? i,
    initialOffset,
    initialRect: { width: 900, height: 700 },
  });

  // Stay at the end while the user is there (new turns, streaming text).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current && rows.length > 0) {
      el.scrollTop = el.scrollHeight;
    }
  });

  // The approval cards sit between the list and the composer, in the layout flow: when one
  // comes (or grows, or goes) the list's box changes size, and its end stays in view. A new
  // request also brings the end back into view: what it is about is the newest turn.
  const waiting = useApp((s) => s.approvals[threadId]?.length ?? 0);
  const hasList = Boolean(detail);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasList]);
  const waitingBefore = useRef(waiting);
  useLayoutEffect(() => {
    const more = waiting > waitingBefore.current;
    waitingBefore.current = waiting;
    const el = scrollRef.current;
    if (more && el) {
      stick.current = true;
      el.scrollTop = el.scrollHeight;
    }
  }, [waiting]);

  // First paint / scrollable marks for the benchmarks.
  const painted = useRef(false);
  useLayoutEffect(() => {
    if (painted.current || rows.length === 0) return;
    painted.current = true;
    performance.mark(`forkhost:layout:${threadId}`);
    requestAnimationFrame(() => {
      markPainted(threadId, "paint");
      requestAnimationFrame(() => {
        const el = scrollRef.current;
        if (el && stick.current) el.scrollTop = el.scrollHeight;
        markPainted(threadId, "scrollable");
      });
    });
  }, [rows.length, threadId]);

  // Reveal a highlighted message (lineage jump).
  const [flash, setFlash] = useState<{ key: string; seq: number } | null>(null);
  useEffect(() => {
    if (!highlight || highlight.threadId !== threadId || rows.length === 0) return;
    if (flash?.seq === highlight.seq) return;
    const byKey = highlight.key ? rows.findIndex((r) => r.key === highlight.key) : -1;
    const index = byKey >= 0 ? byKey : rowIndexOf(rows, highlight.turn, highlight.role);
    if (index < 0) return;
    stick.current = false;
    virtualizer.scrollToIndex(index, { align: "center" });
    const key = rows[index]?.key ?? "";
    setFlash({ key, seq: highlight.seq });
    select(threadId, selectionKey(highlight.turn, rows[index]?.kind === "message" ? (rows[index] as MessageRowData).role : highlight.role, key));
    const timer = setTimeout(() => setFlash((f) => (f?.seq === highlight.seq ? { key: "", seq: f.seq } : f)), 2600);
    return () => clearTimeout(timer);
  }, [highlight, threadId, rows, virtualizer, flash?.seq]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    const first = virtualizer.getVirtualItems().find((v) => v.end > el.scrollTop);
    const key = first ? rows[first.index]?.key : undefined;
    if (first && key) keepScroll(threadId, { atEnd: stick.current, key, delta: el.scrollTop - first.start });
  };

  const onFork = useCallback(
    (row: MessageRowData | LiveRow, invert: boolean, files?: ForkFiles, into?: HarnessKind) => {
      void forkAt({ threadId, turn: row.turn, role: row.role, rowKey: row.key, invert, files, into });
    },
    [threadId],
  );
  const harness = useApp((s) => threadById(s, threadId)?.harness);
  const inGit = useApp((s) => s.files[threadId]?.in_git ?? false);
  const hasCheckpoints = useApp((s) => (s.files[threadId]?.checkpoints.length ?? 0) > 0);
  const forkFiles = useApp((s) => s.settings.fork_files);

  const onSelect = useCallback(
    (row: MessageRowData | LiveRow) => select(threadId, selectionKey(row.turn, row.role, row.key)),
    [threadId],
  );

  const onContextMenu = useCallback(
    (row: MessageRowData | LiveRow, e: MouseEvent) => {
      select(threadId, selectionKey(row.turn, row.role, row.key));
      const label = forkLabel(row.role);
      const other = where === "window" ? "tab" : "window";
      const why = row.fork.ok ? undefined : row.fork.why;
      const text = row.kind === "message" ? copyText(row.message) : row.text;
      showMenu({
        x: e.clientX,
        y: e.clientY,
        items: [
          {
            label: `${label}`,
            shortcut: "Ctrl+Shift+F",
            disabled: !row.fork.ok,
            title: why,
            action: () => onFork(row, false),
          },
          {
            label: `${label} in a new ${other}`,
            disabled: !row.fork.ok,
            title: why,
            action: () => onFork(row, true),
          },
          ...forkFileItems(inGit, forkFiles, row.fork.ok, why, (files) => onFork(row, false, files), hasCheckpoints),
          ...continueItems(harness, row.role, row.fork.ok, why, (into) => onFork(row, false, undefined, into), doctor),
          {
            label: "Fork ×N…",
            disabled: !row.fork.ok,
            title: why ?? "Race several lanes from this message with one prompt, then keep the best",
            action: () =>
              openRaceDialog({ threadId, turn: row.turn, role: row.role, prefill: row.role === "user" ? text : "" }),
          },
          "separator",
          {
            label: "Copy text",
            action: () => void navigator.clipboard?.writeText(text).catch(() => {}),
          },
          {
            label: "Copy as Markdown",
            disabled: row.kind !== "message",
            title:
              row.kind === "message"
                ? `The conversation from its first turn to turn ${row.turn}, as Markdown`
                : "This turn is still running",
            action: () => void copyBranchMarkdown(threadId, row.turn),
          },
          row.role === "user"
            ? {
                // Before a prompt: back to the reply before it, the prompt in the composer to edit.
                label: "Rewind to before this message…",
                disabled: row.kind !== "message" || row.turn < 2,
                title:
                  row.turn < 2
                    ? "Nothing comes before the first message: fork before it instead"
                    : "Continue this thread from the reply before this message (its files too), this message back in the composer, keeping the rest as a branch",
                action: () => openDialog({ kind: "rewind", threadId, turn: row.turn - 1, prefill: text }),
              }
            : {
                label: "Rewind to here…",
                disabled: row.kind !== "message",
                title: "Continue this thread from this reply (its files too), keeping the rest as a branch",
                action: () => openDialog({ kind: "rewind", threadId, turn: row.turn }),
              },
        ],
      });
    },
    [threadId, where, onFork, inGit, forkFiles, hasCheckpoints, harness, doctor],
  );

  const onChips = useCallback((chips: ForkChip[], e: MouseEvent) => {
    showMenu({
      x: e.clientX,
      y: e.clientY,
      items: chips.flatMap((c) => [
        { label: `Open fork “${c.title}”`, action: () => openTab(c.id) },
        {
          label: `Compare with fork “${c.title}”`,
          action: () => openDialog({ kind: "compare", threadId, other: c.id }),
        },
      ]),
    });
  }, [threadId]);

  // Arrow keys move the selection between messages.
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const messageRows = rows
      .map((r, i) => ({ r, i }))
      .filter((x): x is { r: MessageRowData | LiveRow; i: number } => x.r.kind !== "status");
    if (messageRows.length === 0) return;
    e.preventDefault();
    const current = messageRows.findIndex(
      (x) => selected !== undefined && selected.endsWith(`|${x.r.key}`),
    );
    const next =
      current < 0
        ? e.key === "ArrowUp"
          ? messageRows.length - 1
          : 0
        : Math.max(0, Math.min(messageRows.length - 1, current + (e.key === "ArrowDown" ? 1 : -1)));
    const target = messageRows[next];
    if (!target) return;
    stick.current = false;
    select(threadId, selectionKey(target.r.turn, target.r.role, target.r.key));
    virtualizer.scrollToIndex(target.i, { align: "auto" });
  };

  if (!detail) return null;
  const items = virtualizer.getVirtualItems();

  return (
    <section className="conv" data-conversation={threadId} data-thread-state={thread.state}>
      <ConversationHeader thread={thread} terminalOpen={terminalOpen} />
      <div
        ref={scrollRef}
        className="conv-scroll"
        tabIndex={0}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        aria-label={`Conversation: ${thread.title}`}
        data-rows={rows.length}
      >
        {rows.length === 0 ? (
          <div className="conv-start">
            <div className={`conv-start__badge conv-start__badge--${thread.harness}`} />
            <h2>{thread.title}</h2>
            <p>
              A new {harnessName(thread.harness)} thread in <code>{shortPath(thread.cwd)}</code>. Its
              native session starts with the first prompt.
            </p>
          </div>
        ) : (
          <RemeasureContext.Provider value={virtualizer.measureElement}>
          <div className="conv-list" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((v) => {
              const row = rows[v.index];
              if (!row) return null;
              const prev = rows[v.index - 1];
              return (
                <div
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  className="conv-row"
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  {row.kind === "status" ? (
                    <StatusLine row={row} harness={thread.harness} />
                  ) : (
                    <MessageRow
                      row={row}
                      thread={thread}
                      showAuthor={
                        row.role !== "user" && (!prev || prev.kind === "status" || prev.role === "user")
                      }
                      selected={selected !== undefined && selected.endsWith(`|${row.key}`)}
                      highlighted={flash?.key === row.key}
                      forking={Boolean(forking[row.key])}
                      where={where}
                      chips={
                        row.kind === "message" && row.forks.length > 0
                          ? chipsOf(row.forks, byId)
                          : NO_CHIPS
                      }
                      onSelect={onSelect}
                      onFork={onFork}
                      onContextMenu={onContextMenu}
                      onChips={onChips}
                    />
                  )}
                </div>
              );
            })}
          </div>
          </RemeasureContext.Provider>
        )}
      </div>
      <Approvals threadId={threadId} />
      <Composer
        threadId={threadId}
        harness={thread.harness}
        threadState={thread.state}
        live={live}
        terminalOpen={terminalOpen}
        focusSignal={focusSignal}
        autoFocus={false}
      />
    </section>
  );
}

function ConversationHeader({ thread, terminalOpen }: { thread: ThreadView; terminalOpen: boolean }) {
  return (
    <header className="conv-head">
      <div className="conv-head__row">
        <span className={`harness-dot harness-dot--${thread.harness}`} aria-hidden />
        <h1 className="conv-head__title" title={thread.title}>
          {thread.title}
        </h1>
        <span className="badge">{harnessName(thread.harness)}</span>
        {thread.state !== "ready" && (
          <span className={`badge badge--state badge--${thread.state}`} title={stateHint(thread.state)}>
            {thread.state}
          </span>
        )}
        <span className="conv-head__cwd" title={thread.cwd}>
          {shortPath(thread.cwd)}
        </span>
        <FolderChip thread={thread} />
        <span className="conv-head__spacer" />
        <UndoRewind threadId={thread.id} />
        <GrantsControl threadId={thread.id} />
        <ModeControl thread={thread} />
        <button
          type="button"
          className="button button--ghost button--small"
          data-action="open-terminal"
          onClick={() => openTab(thread.id, "terminal")}
          title={terminalOpen ? "Show the terminal tab" : "Open the harness's own TUI on this session (Ctrl+Shift+T)"}
        >
          <TerminalIcon width={14} height={14} />
          Terminal
        </button>
      </div>
      {thread.fork && <LineageLine fork={thread.fork} harness={thread.harness} />}
      <FolderBar thread={thread} />
    </header>
  );
}

function stateHint(state: string) {
  switch (state) {
    case "pending":
      return "The native session is created with the next prompt";
    case "missing":
      return "The native session's file is gone";
    case "archived":
      return "Archived";
    default:
      return state;
  }
}

/**
 * The number of a fork's source turn. Read after the fork's own list has painted, and not kept:
 * only the number is needed (unless this window shows the source anyway).
 */
function useSourceTurn(sourceId: string, turnId: string | null): number | null | "gone" {
  const shown = useApp((s) => s.slots[sourceId]?.detail);
  const [n, setN] = useState<number | null | "gone">(null);
  useEffect(() => {
    if (turnId === null) return;
    if (shown) {
      const t = shown.turns.find((x) => x.id === turnId);
      // State, not derived from `shown`: the number must stay when the source's detail goes
      // (its tab closed) while the read below runs.
      // eslint-disable-next-line react-hooks/set-state-in-effect -- kept across `shown` going away
      setN(t ? Number(t.number) : null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      void sourceTurnNumber(sourceId, turnId).then(
        (num) => live && setN(num),
        () => live && setN("gone"),
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [sourceId, turnId, shown]);
  return n;
}

/**
 * "Forked from ‹title› after turn N" ("Continued in Codex from …" when the fork runs in
 * another harness than its source): jumps to the source message.
 */
export function LineageLine({ fork, harness }: { fork: ForkView; harness: HarnessKind }) {
  const source = useApp((s) => threadById(s, fork.source_thread));
  // The harness recorded with the lineage, else (older forks) the source's own.
  const sourceHarness = fork.source_harness ?? source?.harness;
  const crossed = sourceHarness !== undefined && sourceHarness !== harness;
  const n = useSourceTurn(fork.source_thread, fork.source_turn);
  const sourceError = n === "gone";
  const before = fork.boundary === "before";
  const where =
    n === null || n === "gone"
      ? fork.source_turn === null
        ? before
          ? "before its first turn"
          : ""
        : "…"
      : `${before ? "before" : "after"} turn ${n}`;
  const title = source?.title ?? (sourceError ? "a thread that is gone" : "…");
  return (
    <button
      type="button"
      className="lineage"
      data-action="jump-to-source"
      data-source-thread={fork.source_thread}
      disabled={Boolean(sourceError)}
      onClick={async () => {
        const num =
          typeof n === "number"
            ? n
            : fork.source_turn === null
              ? null
              : await sourceTurnNumber(fork.source_thread, fork.source_turn).catch(() => null);
        if (num !== null) reveal(fork.source_thread, num, before ? "user" : "assistant");
        else openTab(fork.source_thread);
      }}
      title="Show the message this fork was made from"
    >
      <ForkIcon width={13} height={13} />
      <span>
        {crossed ? `Continued in ${harnessName(harness)} from ` : "Forked from "}
        <strong>{title}</strong> {where}
      </span>
      <ArrowUpRightIcon width={13} height={13} className="lineage__go" />
    </button>
  );
}
