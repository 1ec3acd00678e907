// The active conversation tab: the header, the message list (virtualized; at its end while the
// user is there, or where a hidden tab was), the approval cards and the composer. What a
// message's menu offers: messageMenu.ts.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type MouseEvent } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { TabView } from "../bindings/TabView";
import type { ThreadView } from "../bindings/ThreadView";
import { forkAt } from "../fork/fork";
import { select, selectionKey } from "../fork/selection";
import { harnessName } from "../harnesses";
import type { ForkFiles } from "../ipc";
import { Approvals } from "../messages/ApprovalCard";
import { type ForkChip, MessageRow, StatusLine } from "../messages/MessageRow";
import {
  type LiveRow,
  type MessageRow as MessageRowData,
  type Row,
  buildRows,
  liveRows,
  rowIndexOf,
} from "../messages/rows";
import { RemeasureContext } from "../messages/ToolBlock";
import { markPainted, markRendered } from "../perf";
import { openRaceDialog } from "../race/race";
import { openContinueDialog } from "../remote/remote";
import { threadById, useApp } from "../state";
import { keepScroll, keptOffset, keptScroll } from "../tabs/scroll";
import { openTab } from "../tabs/tabs";
import { loadThread } from "../threads/cache";
import { copyBranchMarkdown } from "../threads/threadActions";
import { AlertIcon, Spinner } from "../ui/icons";
import { showMenu } from "../ui/menu";
import { openDialog } from "../ui/open";
import { Composer } from "./Composer";
import { ConversationHeader, shortPath } from "./ConversationHeader";
import { messageMenuItems } from "./messageMenu";
import { useStickToEnd } from "./useStickToEnd";

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

/** The active conversation tab, or why its thread is not shown yet. */
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
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimate(rows[i]),
    overscan: 8,
    getItemKey: (i) => rows[i]?.key ?? i,
    initialOffset,
    initialRect: { width: 900, height: 700 },
  });

  const waiting = useApp((s) => s.approvals[threadId]?.length ?? 0);
  const stick = useStickToEnd(scrollRef, {
    atStart: kept === undefined,
    rowCount: rows.length,
    waiting,
    hasList: Boolean(detail),
  });

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
  }, [rows.length, threadId, stick]);

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
  }, [highlight, threadId, rows, virtualizer, flash?.seq, stick]);

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
      const items = messageMenuItems(
        row,
        { where, harness, inGit, forkFiles, hasCheckpoints, doctor },
        {
          fork: (invert, files, into) => onFork(row, invert, files, into),
          race: (prefill) => openRaceDialog({ threadId, turn: row.turn, role: row.role, prefill }),
          copyText: (text) => void navigator.clipboard?.writeText(text).catch(() => {}),
          copyMarkdown: (turn) => void copyBranchMarkdown(threadId, turn),
          rewind: (turn, prefill) =>
            openDialog({ kind: "rewind", threadId, turn, ...(prefill === undefined ? {} : { prefill }) }),
          continueOnHost: () => openContinueDialog({ threadId, turn: row.turn, role: row.role }),
        },
      );
      showMenu({ x: e.clientX, y: e.clientY, items });
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
      <ConversationHeader thread={thread} cost={detail.cost} movedFrom={detail.moved_from} terminalOpen={terminalOpen} />
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
                      priceTable={detail.cost.price_table}
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
