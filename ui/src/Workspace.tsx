import { Suspense, lazy, useRef } from "react";
import { openDialog } from "./dialogs/open";
import { EmptyWorkspace } from "./firstRun/EmptyWorkspace";
import { showMenu } from "./menu";
import { activateTab, closeOtherTabs, closeTab, moveTab, moveTabToNewWindow, openTab } from "./tabs/tabs";
import type { TabView } from "./bindings/TabView";
import { Conversation } from "./conversation/Conversation";
import { CloseIcon, PlusIcon, SidebarIcon, Spinner, TerminalIcon } from "./icons";
import { harnessName } from "./harnesses";
import { store, threadById, useApp } from "./state";
// xterm.js is loaded with the first terminal tab, not with every window.
const TerminalView = lazy(() => import("./TerminalView").then((m) => ({ default: m.TerminalView })));

/** The right-hand side: the tab bar of open threads and the active tab. */
export function Workspace() {
  const tabs = useApp((s) => s.tabs);
  const activeTab = useApp((s) => s.activeTab);
  return (
    <main className="workspace">
      <TabBar />
      {tabs.length === 0 ? (
        <EmptyWorkspace />
      ) : (
        tabs.map((tab) =>
          tab.kind === "terminal" ? (
            // Terminals stay mounted while their tab exists: the process and screen live on.
            <div key={tab.id} className="tabpanel" hidden={tab.id !== activeTab} role="tabpanel">
              <Suspense fallback={<div className="term" />}>
                <TerminalView tab={tab} active={tab.id === activeTab} />
              </Suspense>
            </div>
          ) : tab.id === activeTab ? (
            <div key={tab.id} className="tabpanel" role="tabpanel">
              <Conversation tab={tab} />
            </div>
          ) : null,
        )
      )}
    </main>
  );
}

function TabBar() {
  const tabs = useApp((s) => s.tabs);
  const sidebarOpen = useApp((s) => s.sidebarOpen);
  const drag = useRef<{ id: string; x: number; moved: boolean } | null>(null);
  const barRef = useRef<HTMLDivElement>(null);

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
      <div className="tabbar__tabs" role="tablist" aria-label="Open threads" ref={barRef}>
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
      </div>
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
  const active = useApp((s) => s.activeTab === tab.id);
  const thread = useApp((s) => threadById(s, tab.thread_id));
  const streaming = useApp((s) => {
    const live = s.slots[tab.thread_id]?.live;
    return Boolean(live && live.phase !== "ended") || Boolean(s.streaming[tab.thread_id]);
  });
  const awaiting = useApp((s) => (s.approvals[tab.thread_id]?.length ?? 0) > 0);
  const title = thread?.title ?? "Loading…";
  const terminal = tab.kind === "terminal";

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
      title={thread ? `${title} — ${harnessName(thread.harness)}${terminal ? " (terminal)" : ""}` : title}
      onPointerDown={props.onPointerDown}
      onClick={() => {
        if (!props.wasDragged()) activateTab(tab.id);
      }}
      onAuxClick={(e) => {
        if (e.button === 1) closeTab(tab.id);
      }}
      onContextMenu={onMenu}
      onKeyDown={(e) => {
        if (e.key === "Enter" || e.key === " ") activateTab(tab.id);
      }}
    >
      {terminal ? (
        <TerminalIcon width={13} height={13} className="tab__icon" />
      ) : (
        <span className={`harness-dot harness-dot--${thread?.harness ?? "none"}`} aria-hidden />
      )}
      <span className="tab__title">{title}</span>
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
