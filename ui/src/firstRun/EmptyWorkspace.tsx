// The window with no tab open. When no agent can start a thread yet, it is the first-run view
// itself (what to install and how), so a newcomer is told without hovering or opening Settings.
import { useEffect } from "react";
import { loadDoctor, openDialog } from "../ui/open";
import { ChatIcon } from "../ui/icons";
import { useApp } from "../state";
import { HarnessSetupList } from "./HarnessSetup";
import { SessionsHere } from "./SessionsHere";
import { noneUsable } from "./words";

export function EmptyWorkspace() {
  const doctor = useApp((s) => s.doctor);
  const spare = useApp((s) => s.spare);
  useEffect(() => {
    // A hidden spare window (a future fork's) has nothing to tell yet.
    if (!spare) void loadDoctor();
  }, [spare]);
  const welcome = noneUsable(doctor);
  return (
    <section
      className={`workspace__empty${welcome ? " workspace__empty--welcome" : ""}`}
      data-empty="workspace"
      data-first-run={welcome ? "true" : undefined}
      aria-labelledby="empty-title"
    >
      <div className="workspace__empty-badge">
        <ChatIcon width={28} height={28} strokeWidth={1.6} />
      </div>
      <h1 id="empty-title" className="workspace__empty-title">
        {welcome ? "Welcome to Forkhost" : "No thread open"}
      </h1>
      {welcome ? (
        <>
          <p className="workspace__empty-text">
            No thread open yet: Forkhost runs the coding agents you install. Set up one of these, then start a{" "}
            <strong>New thread</strong>.
          </p>
          <div className="workspace__welcome">
            <HarnessSetupList />
            <SessionsHere />
          </div>
        </>
      ) : (
        <>
          <p className="workspace__empty-text">
            Start one with <strong>New thread</strong>, or pick a thread from the sidebar.
          </p>
          <p className="workspace__empty-keys">
            <kbd>Ctrl</kbd>+<kbd>T</kbd> new thread · <kbd>Ctrl</kbd>+<kbd>B</kbd> sidebar ·{" "}
            <kbd>Ctrl</kbd>+<kbd>,</kbd> settings
          </p>
          <button
            type="button"
            className="button button--ghost button--small"
            data-action="open-first-run"
            onClick={() => openDialog({ kind: "first-run" })}
          >
            Set up agents…
          </button>
        </>
      )}
    </section>
  );
}
