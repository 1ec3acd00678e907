import { Suspense, lazy, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { openDialog } from "./ui/open";
import { EmptyWorkspace } from "./firstRun/EmptyWorkspace";
import { showMenu } from "./ui/menu";
import { activateTab, closeOtherTabs, closeTab, moveTab, moveTabToNewWindow, openTab } from "./tabs/tabs";
import { overflowOf, revealOffset, scrollStep, type Overflow } from "./tabs/overflow";
import { tabTooltip } from "./tabs/words";
import { renameThread } from "./threads/threadActions";
import type { TabView } from "./bindings/TabView";
import { Conversation } from "./conversation/Conversation";
import { TabForkPreview } from "./fork/ForkPreview";
import { useTabPreviewPhase } from "./fork/preview";
import { RaceView } from "./race/RaceView";
import { useRaces } from "./race/race";
import { ChevronDownIcon, ChevronIcon, ChevronLeftIcon, CloseIcon, PlusIcon, SidebarIcon, Spinner, TerminalIcon } from "./ui/icons";
import { store, threadById, useApp } from "./state";
import { readHostsOfTabs, remoteTitle, useRemote } from "./remote/remote";
// xterm.js is loaded with the first terminal tab, not with every window.
const TerminalView = lazy(() => import("./TerminalView").then((m) => ({ default: m.TerminalView })));

/** The right-hand side: the tab bar of open threads and the active tab. */
export function Workspace() {
  const tabs = useApp((s) => s.tabs);
  useEffect(() => readHostsOfTabs(tabs.map((t) => t.thread_id)), [tabs]);
  const activeTab = useApp((s) => s.activeTab);
  // A race started from a tab's thread shows in that tab until "Back to the conversation".
  const racing = useRaces((s) => s.shown);
  // A fork into a tab shows its inherited history in place of the active tab until its own tab
  // opens (fork/preview.ts).
  const preview = useTabPreviewPhase();
  const forking = preview === "forking";
  const shown = forking ? null : activeTab;
  return (
    <main className="workspace">
      <TabBar />
      {tabs.length === 0 && !forking ? (
        <EmptyWorkspace />
      ) : (
        tabs.map((tab) =>
          tab.kind === "terminal" ? (
            // Terminals stay mounted while their tab exists: the process and screen live on.
            <div key={tab.id} className="tabpanel" hidden={tab.id !== shown} role="tabpanel">
              <Suspense fallback={<div className="term" />}>
                <TerminalView tab={tab} active={tab.id === shown} />
              </Suspense>
            </div>
          ) : tab.id === shown ? (
            <div key={tab.id} className="tabpanel" role="tabpanel">
              {racing[tab.thread_id] ? <RaceView runId={racing[tab.thread_id] ?? ""} /> : <Conversation tab={tab} />}
              {preview === "opened" && <TabForkPreview over />}
            </div>
          ) : null,
        )
      )}
      {forking && <TabForkPreview />}
    </main>
  );
}

function TabBar() {
  const tabs = useApp((s) => s.tabs);
  const forking = useTabPreviewPhase() === "forking";
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const activeTab = useApp((s) => s.activeTab);
  const drag = useRef<{ id: string; x: number; moved: boolean } | null>(null);
  const barRef = useRef<HTMLDivElement>(null);
  const [overflow, setOverflow] = useState<Overflow>({ overflows: false, canLeft: false, canRight: false });

  const measure = useCallback(() => {
    const bar = barRef.current;
    if (!bar) return;
    const next = overflowOf(bar);
    setOverflow((o) =>
      o.overflows === next.overflows && o.canLeft === next.canLeft && o.canRight === next.canRight ? o : next,
    );
  }, []);
  useEffect(() => {
    const bar = barRef.current;
    if (!bar) return;
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    observer?.observe(bar);
    bar.addEventListener("scroll", measure, { passive: true });
    return () => {
      observer?.disconnect();
      bar.removeEventListener("scroll", measure);
    };
  }, [measure]);
  // Tabs opened, closed, moved or retitled change the strip's width; the active tab is always
  // brought into view.
  useLayoutEffect(() => {
    const bar = barRef.current;
    if (!bar) return;
    const el = Array.from(bar.querySelectorAll<HTMLElement>("[data-tab-id]")).find((t) => t.dataset.tabId === activeTab);
    if (el) {
      const to = revealOffset(bar, { left: el.offsetLeft - bar.offsetLeft, width: el.offsetWidth });
      if (to !== null) bar.scrollLeft = to;
    }
    measure();
  }, [tabs, activeTab, measure]);

  const scrollBy = (direction: -1 | 1) => {
    const bar = barRef.current;
    if (bar) bar.scrollTo({ left: scrollStep(bar, direction), behavior: "smooth" });
  };
  const everyTab = (e: React.MouseEvent) => {
    const state = store.get();
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    showMenu({
      x: r.left,
      y: r.bottom,
      items: state.tabs.map((t) => {
        const thread = threadById(state, t.thread_id);
        const title = thread?.title ?? "Loading…";
        return {
          label: `${t.id === state.activeTab ? "• " : ""}${title}${t.kind === "terminal" ? " (terminal)" : ""}`,
          title: thread ? tabTooltip(thread, threadById(state, thread.fork?.source_thread ?? "")?.title, t.kind === "terminal") : undefined,
          action: () => activateTab(t.id),
        };
      }),
    });
  };

  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    if (!d.moved && Math.abs(e.clientX - d.x) < 6) return;
    d.moved = true;
    const bar = barRef.current;
    if (!bar) return;
    const els = Array.from(bar.querySelectorAll<HTMLElement>("[data-tab-id]"));
    const over = els.findIndex((el) => {
      const r = el.getBoundingClientRect();
      return e.clientX >= r.left && e.clientX < r.right;
    });
    const from = els.findIndex((el) => el.dataset.tabId === d.id);
    if (over >= 0 && from >= 0 && over !== from) moveTab(d.id, over);
  };
  const onPointerUp = () => {
    window.removeEventListener("pointermove", onPointerMove);
    window.removeEventListener("pointerup", onPointerUp);
    setTimeout(() => (drag.current = null), 0);
  };

  return (
    <div className="tabbar">
      {!sidebarOpen && (
        <button
          type="button"
          className="icon-button tabbar__sidebar"
          aria-label="Show sidebar"
          title="Show sidebar (Ctrl+B)"
          onClick={() => store.set({ sidebarOpen: true })}
        >
          <SidebarIcon />
        </button>
      )}
      {overflow.overflows && (
        <button
          type="button"
          className="icon-button tabbar__scroll"
          aria-label="Scroll tabs left"
          data-action="tabs-left"
          disabled={!overflow.canLeft}
          onClick={() => scrollBy(-1)}
        >
          <ChevronLeftIcon />
        </button>
      )}
      <div
        className="tabbar__tabs"
        role="tablist"
        aria-label="Open threads"
        ref={barRef}
        data-overflow={overflow.overflows ? "true" : undefined}
      >
        {tabs.map((tab, i) => (
          <Tab
            key={tab.id}
            tab={tab}
            index={i}
            onPointerDown={(e) => {
              if (e.button !== 0) return;
              drag.current = { id: tab.id, x: e.clientX, moved: false };
              window.addEventListener("pointermove", onPointerMove);
              window.addEventListener("pointerup", onPointerUp);
            }}
            wasDragged={() => Boolean(drag.current?.moved)}
          />
        ))}
        {forking && (
          // Where the fork's tab will be; not a tab yet (no thread to act on).
          <div className="tab" data-fork-preview-tab="true" aria-busy="true">
            <Spinner size={11} />
            <span className="tab__title">Forking…</span>
          </div>
        )}
      </div>
      {overflow.overflows && (
        <>
          <button
            type="button"
            className="icon-button tabbar__scroll"
            aria-label="Scroll tabs right"
            data-action="tabs-right"
            disabled={!overflow.canRight}
            onClick={() => scrollBy(1)}
          >
            <ChevronIcon />
          </button>
          <button
            type="button"
            className="icon-button tabbar__more"
            aria-label="Every tab"
            aria-haspopup="menu"
            data-action="tabs-menu"
            title={`All ${tabs.length} tabs`}
            onClick={everyTab}
          >
            <ChevronDownIcon />
          </button>
        </>
      )}
      <button
        type="button"
        className="icon-button tabbar__new"
        aria-label="New tab"
        data-action="new-tab"
        title="New thread (Ctrl+T)"
        onClick={() => openDialog({ kind: "new-thread" })}
      >
        <PlusIcon />
      </button>
    </div>
  );
}

function Tab(props: {
  tab: TabView;
  index: number;
  onPointerDown: (e: React.PointerEvent) => void;
  wasDragged: () => boolean;
}) {
  const { tab } = props;
  // While a fork into a tab shows its history, the place of its tab is the selected one.
  const selected = useApp((s) => s.activeTab === tab.id);
  const forking = useTabPreviewPhase() === "forking";
  const active = selected && !forking;
  const thread = useApp((s) => threadById(s, tab.thread_id));
  const streaming = useApp((s) => {
    const live = s.slots[tab.thread_id]?.live;
    return Boolean(live && live.phase !== "ended") || Boolean(s.streaming[tab.thread_id]);
  });
  const awaiting = useApp((s) => (s.approvals[tab.thread_id]?.length ?? 0) > 0);
  const sourceTitle = useApp((s) => (thread?.fork ? threadById(s, thread.fork.source_thread)?.title : undefined));
  // A remote thread's tab not shown yet is named from its host's list.
  const listed = useRemote((s) => remoteTitle(s, tab.thread_id));
  const title = thread?.title ?? listed ?? "Loading…";
  const terminal = tab.kind === "terminal";
  const [renaming, setRenaming] = useState<string | null>(null);
  const startRename = () => thread && setRenaming(thread.title);
  const endRename = (save: boolean) => {
    const next = renaming?.trim();
    setRenaming(null);
    if (save && thread && next && next !== thread.title) void renameThread(thread.id, next);
  };

  const onMenu = (e: React.MouseEvent) => {
    e.preventDefault();
    const count = store.get().tabs.length;
    showMenu({
      x: e.clientX,
      y: e.clientY,
      items: [
        { label: "Close tab", shortcut: "Ctrl+W", action: () => closeTab(tab.id) },
        { label: "Close other tabs", disabled: count < 2, action: () => closeOtherTabs(tab.id) },
        "separator",
        { label: "Move to new window", action: () => void moveTabToNewWindow(tab.id) },
        { label: "Move left", disabled: props.index === 0, action: () => moveTab(tab.id, props.index - 1) },
        {
          label: "Move right",
          disabled: props.index === count - 1,
          action: () => moveTab(tab.id, props.index + 1),
        },
        "separator",
        { label: "Rename…", disabled: !thread, action: startRename },
        terminal
          ? { label: "Show conversation", action: () => openTab(tab.thread_id, "conversation") }
          : { label: "Open terminal tab", action: () => openTab(tab.thread_id, "terminal") },
      ],
    });
  };

  return (
    <div
      role="tab"
      className="tab"
      data-thread-id={tab.thread_id}
      data-tab-id={tab.id}
      data-tab-kind={tab.kind}
      data-awaiting-approval={awaiting ? "true" : undefined}
      aria-selected={active}
      tabIndex={active ? 0 : -1}
      title={thread ? tabTooltip(thread, sourceTitle, terminal) : title}
      onPointerDown={props.onPointerDown}
      onClick={() => {
        if (!props.wasDragged()) activateTab(tab.id);
      }}
      onAuxClick={(e) => {
        if (e.button === 1) closeTab(tab.id);
      }}
      onDoubleClick={startRename}
      onContextMenu={onMenu}
      onKeyDown={(e) => {
        if (renaming !== null) return;
        if (e.key === "Enter" || e.key === " ") activateTab(tab.id);
        if (e.key === "F2") startRename();
      }}
    >
      {terminal ? (
        <TerminalIcon width={13} height={13} className="tab__icon" />
      ) : (
        <span className={`harness-dot harness-dot--${thread?.harness ?? "none"}`} aria-hidden />
      )}
      {renaming !== null ? (
        <input
          className="tab__rename"
          value={renaming}
          autoFocus
          aria-label="Thread title"
          data-field="rename"
          maxLength={200}
          onChange={(e) => setRenaming(e.target.value)}
          onFocus={(e) => e.target.select()}
          onPointerDown={(e) => e.stopPropagation()}
          onClick={(e) => e.stopPropagation()}
          onDoubleClick={(e) => e.stopPropagation()}
          onBlur={() => endRename(true)}
          onKeyDown={(e) => {
            e.stopPropagation();
            if (e.key === "Enter") endRename(true);
            if (e.key === "Escape") endRename(false);
          }}
        />
      ) : (
        <span className="tab__title">{title}</span>
      )}
      {awaiting && <span className="approval-dot" title="Waiting for your approval" aria-label="Waiting for your approval" />}
      {streaming && <Spinner size={11} />}
      <button
        type="button"
        className="tab__close"
        aria-label="Close tab"
        data-action="close-tab"
        title="Close (Ctrl+W)"
        onPointerDown={(e) => e.stopPropagation()}
        onClick={(e) => {
          e.stopPropagation();
          closeTab(tab.id);
        }}
      >
        <CloseIcon width={12} height={12} />
      </button>
    </div>
  );
}
