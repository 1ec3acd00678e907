import { LogoMark, PlusIcon, ThreadsIcon } from "./icons";
import type { AppInfoState } from "./App";

export interface SidebarProps {
  info: AppInfoState;
  onNewThread: () => void;
}

export function Sidebar({ info, onNewThread }: SidebarProps) {
  return (
    <aside className="sidebar" aria-label="Sidebar">
      <header className="sidebar__brand">
        <LogoMark className="sidebar__logo" />
        <span className="sidebar__name">Forkhost</span>
      </header>

      <div className="sidebar__actions">
        <button
          type="button"
          className="button button--primary button--block"
          data-action="new-thread"
          onClick={onNewThread}
        >
          <PlusIcon />
          <span>New thread</span>
        </button>
      </div>

      <nav className="threads" aria-labelledby="threads-heading">
        <h2 id="threads-heading" className="threads__heading">
          Threads
        </h2>
        <ul className="threads__list" role="list" />
        <div className="threads__empty" data-empty="threads">
          <ThreadsIcon className="threads__empty-icon" width={20} height={20} />
          <p className="threads__empty-title">No threads yet</p>
          <p className="threads__empty-hint">
            Threads you start, open or fork show up here, grouped by project.
          </p>
        </div>
      </nav>

      <footer className="sidebar__footer">
        <VersionLabel info={info} />
      </footer>
    </aside>
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
