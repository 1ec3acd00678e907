import { ChatIcon } from "./icons";

/** The right-hand side: the tab bar of open threads and the active thread (none yet). */
export function Workspace() {
  return (
    <main className="workspace">
      <div className="tabbar" role="tablist" aria-label="Open threads" />
      <section className="workspace__empty" data-empty="workspace" aria-labelledby="empty-title">
        <div className="workspace__empty-badge">
          <ChatIcon width={28} height={28} strokeWidth={1.6} />
        </div>
        <h1 id="empty-title" className="workspace__empty-title">
          No thread open
        </h1>
        <p className="workspace__empty-text">
          Start one with <strong>New thread</strong>, or pick a thread from the sidebar.
        </p>
      </section>
    </main>
  );
}
