import { useEffect, useMemo, useState } from "react";
import { openDialog } from "../ui/open";
import { showMenu } from "../ui/menu";
import { openTab, openThread } from "../tabs/tabs";
import { archiveThread, loadDiscovered, renameThread } from "../threads/threadActions";
import type { ThreadView } from "../bindings/ThreadView";
import {
  ChevronIcon,
  FolderIcon,
  LogoMark,
  PlusIcon,
  RefreshIcon,
  SettingsIcon,
  Spinner,
  ThreadsIcon,
} from "../ui/icons";
import { buildProjects, flatten } from "./lineage";
import { harnessName } from "../harnesses";
import { type AppInfoState, activeTabOf, store, threadById, useApp } from "../state";
import { lineageWords } from "../tabs/words";
import { UpdateBadge } from "../update/Update";
import { SearchBox } from "../search/SearchBox";
import { isRewoundBranch, useRewinds } from "../rewind/rewind";
import { SessionButton, relativeTime } from "./SessionButton";
import { Hosts } from "../remote/Hosts";

export function Sidebar() {
  const info = useApp((s) => s.info);
  const threadsLoaded = useApp((s) => s.threadsLoaded);
  const threads = useApp((s) => s.threads);
  const projects = useMemo(() => buildProjects(threads), [threads]);
  const empty = threadsLoaded && projects.length === 0;

  return (
    <aside className="sidebar" aria-label="Sidebar">
      <header className="sidebar__brand">
        <LogoMark className="sidebar__logo" />
        <span className="sidebar__name">Forkhost</span>
        <span className="sidebar__grow" />
        <button
          type="button"
          className="icon-button"
          data-action="settings"
          aria-label="Settings"
          title="Settings (Ctrl+,)"
          onClick={() => openDialog({ kind: "settings" })}
        >
          <SettingsIcon />
        </button>
      </header>

      <div className="sidebar__actions">
        <button
          type="button"
          className="button button--primary button--block"
          data-action="new-thread"
          onClick={() => openDialog({ kind: "new-thread" })}
        >
          <PlusIcon />
          <span>New thread</span>
        </button>
      </div>

      <SearchBox />

      <nav className="threads" aria-labelledby="threads-heading">
        <h2 id="threads-heading" className="threads__heading">
          Threads
        </h2>
        {projects.length > 0 && (
          <ul className="threads__list" role="list">
            {projects.map((p) => (
              <ProjectGroup key={p.cwd} cwd={p.cwd} name={p.name} count={p.count} roots={p.roots} />
            ))}
          </ul>
        )}
        {empty && (
          <div className="threads__empty" data-empty="threads">
            <ThreadsIcon className="threads__empty-icon" width={20} height={20} />
            <p className="threads__empty-title">No threads yet</p>
            <p className="threads__empty-hint">
              Threads you start, open or fork show up here, grouped by project.
            </p>
          </div>
        )}
        <Sessions />
        <Hosts />
      </nav>

      <footer className="sidebar__footer">
        <VersionLabel info={info} />
        <UpdateBadge onOpen={() => openDialog({ kind: "update" })} />
      </footer>
    </aside>
  );
}

function ProjectGroup(props: {
  cwd: string;
  name: string;
  count: number;
  roots: ReturnType<typeof buildProjects>[number]["roots"];
}) {
  const [open, setOpen] = useState(true);
  const rows = useMemo(() => flatten(props.roots), [props.roots]);
  return (
    <li className="project" data-project={props.cwd}>
      <button
        type="button"
        className="project__head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title={props.cwd}
      >
        <ChevronIcon className="project__chevron" width={12} height={12} />
        <FolderIcon width={14} height={14} className="project__icon" />
        <span className="project__name">{props.name}</span>
        <span className="project__count">{props.count}</span>
      </button>
      {open && (
        <ul className="tree" role="tree" aria-label={props.name}>
          {rows.map((row) => (
            <ThreadItem key={row.thread.id} thread={row.thread} depth={row.depth} lastAt={row.lastAt} />
          ))}
        </ul>
      )}
    </li>
  );
}

function ThreadItem({ thread, depth, lastAt }: { thread: ThreadView; depth: number; lastAt: boolean[] }) {
  const active = useApp((s) => activeTabOf(s)?.thread_id === thread.id);
  const open = useApp((s) => s.tabs.some((t) => t.thread_id === thread.id));
  const streaming = useApp((s) => Boolean(s.streaming[thread.id]));
  const awaiting = useApp((s) => (s.approvals[thread.id]?.length ?? 0) > 0);
  const rewound = useRewinds((s) => isRewoundBranch(thread.id, s));
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(thread.title);
  const lineage = useApp((s) =>
    thread.fork ? lineageWords(thread, threadById(s, thread.fork.source_thread)?.title) : null,
  );

  const onMenu = (e: React.MouseEvent) => {
    e.preventDefault();
    showMenu({
      x: e.clientX,
      y: e.clientY,
      items: [
        { label: "Open in a new tab", action: () => openTab(thread.id) },
        { label: "Open in a new window", action: () => void openThread(thread.id, "window") },
        { label: "Open terminal tab", action: () => openTab(thread.id, "terminal") },
        "separator",
        {
          label: "Rename…",
          action: () => {
            setTitle(thread.title);
            setRenaming(true);
          },
        },
        {
          label: "Compare with…",
          disabled: !(thread.fork || store.get().threads.some((t) => t.fork?.source_thread === thread.id)),
          title: "Threads of one lineage tree: their turns side by side and the code difference",
          action: () => openDialog({ kind: "compare", threadId: thread.id, other: null }),
        },
        {
          label: "Cost of this tree…",
          title: "What every branch of its lineage tree cost, each turn counted once",
          action: () => openDialog({ kind: "tree-cost", threadId: thread.id }),
        },
        { label: "Archive", danger: true, action: () => void archiveThread(thread.id) },
      ],
    });
  };

  return (
    <li role="treeitem" aria-selected={active} aria-level={depth + 1} className="tree__item">
      {renaming ? (
        <form
          className="thread thread--editing"
          style={{ paddingLeft: 10 + depth * 16 }}
          onSubmit={(e) => {
            e.preventDefault();
            setRenaming(false);
            if (title.trim() && title.trim() !== thread.title) void renameThread(thread.id, title);
          }}
        >
          <input
            className="thread__rename"
            value={title}
            autoFocus
            aria-label="Thread title"
            onChange={(e) => setTitle(e.target.value)}
            onBlur={() => setRenaming(false)}
            maxLength={200}
            onKeyDown={(e) => e.key === "Escape" && setRenaming(false)}
          />
        </form>
      ) : (
        <button
          type="button"
          className="thread"
          data-thread-id={thread.id}
          data-active={active ? "true" : undefined}
          data-open={open ? "true" : undefined}
          data-state={thread.state}
          data-awaiting-approval={awaiting ? "true" : undefined}
          data-rewound={rewound ? "true" : undefined}
          style={{ paddingLeft: 10 + depth * 16 }}
          title={`${thread.title}\n${harnessName(thread.harness)} · ${thread.cwd}${lineage ? `\n${lineage}` : ""}`}
          onClick={(e) => void openThread(thread.id, e.ctrlKey || e.metaKey ? "window" : "tab")}
          onDoubleClick={() => {
            setTitle(thread.title);
            setRenaming(true);
          }}
          onContextMenu={onMenu}
        >
          {depth > 0 && (
            <span className="thread__branch" aria-hidden style={{ left: 10 + (depth - 1) * 16 }}>
              <span className={`thread__elbow${lastAt[depth] ? " thread__elbow--last" : ""}`} />
            </span>
          )}
          <span className={`harness-dot harness-dot--${thread.harness}`} aria-hidden />
          <span className="thread__text">
            <span className="thread__title">{thread.title}</span>
            <span className="thread__sub">
              {harnessName(thread.harness)}
              {thread.fork ? ` · fork ${thread.fork.boundary}` : ""} · {relativeTime(thread.updated_at)}
            </span>
          </span>
          {awaiting && <span className="approval-dot" title="Waiting for your approval" aria-label="Waiting for your approval" />}
          {streaming && <Spinner size={12} />}
          {thread.state === "missing" && <span className="thread__badge">missing</span>}
          {rewound && (
            <span className="thread__badge" title="A line a rewind set aside: open it, or Undo rewind on its thread">
              rewound
            </span>
          )}
        </button>
      )}
    </li>
  );
}

/** Native sessions found on this machine that are not threads yet; click to import. */
function Sessions() {
  const discovered = useApp((s) => s.discovered);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open && discovered === null) {
      // The spinner belongs to the read this effect starts (it ends in its `finally`).
      // eslint-disable-next-line react-hooks/set-state-in-effect -- set with the read it stands for
      setBusy(true);
      void loadDiscovered().finally(() => setBusy(false));
    }
  }, [open, discovered]);
  const fresh = (discovered ?? []).filter((d) => d.thread_id === null);
  return (
    <section className="sessions" aria-labelledby="sessions-heading">
      <div className="sessions__head">
        <button
          type="button"
          id="sessions-heading"
          className="threads__heading sessions__toggle"
          aria-expanded={open}
          data-action="toggle-sessions"
          onClick={() => setOpen(!open)}
        >
          <ChevronIcon className="project__chevron" width={11} height={11} />
          On this machine
          {discovered !== null && fresh.length > 0 && <span className="project__count">{fresh.length}</span>}
        </button>
        {open && (
          <button
            type="button"
            className="icon-button icon-button--small"
            aria-label="Refresh sessions"
            title="Look again"
            onClick={() => {
              setBusy(true);
              void loadDiscovered().finally(() => setBusy(false));
            }}
          >
            {busy ? <Spinner size={11} /> : <RefreshIcon width={12} height={12} />}
          </button>
        )}
      </div>
      {open && (
        <ul className="sessions__list" role="list">
          {discovered !== null && fresh.length === 0 && (
            <li className="sessions__empty">No other sessions found.</li>
          )}
          {fresh.slice(0, 200).map((d) => (
            <li key={`${d.harness}:${d.session_id}`}>
              <SessionButton session={d} title={`${d.path}\nClick to open it as a thread`} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function VersionLabel({ info }: { info: AppInfoState }) {
  switch (info.status) {
    case "loading":
      return <span className="sidebar__version sidebar__version--muted">Loading…</span>;
    case "error":
      return (
        <span className="sidebar__version sidebar__version--muted" title={info.message}>
          Version unavailable
        </span>
      );
    case "ready":
      return (
        <span
          className="sidebar__version"
          data-app-version={info.info.version}
          title={`Data folder: ${info.info.data_dir}`}
        >
          Forkhost v{info.info.version}
        </span>
      );
  }
}
