// A conversation an agent keeps on this machine, as a button that opens it as a thread: the row
// of the sidebar's "On this machine" list and of the first-run view's few latest.
import type { DiscoveredSession } from "../bindings/DiscoveredSession";
import { harnessName } from "../harnesses";
import { importAndOpen } from "../threads/threadActions";

/** "just now", "5m ago", "3h ago", "2d ago", then the date. */
export function relativeTime(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h}h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d}d ago`;
  return new Date(ms).toLocaleDateString();
}

export function sessionLabel(path: string, id: string): string {
  const parts = path.split("/").filter(Boolean);
  const dir = parts[parts.length - 2] ?? "";
  // Claude keeps sessions per project folder, its path with / replaced by -.
  const project = dir.startsWith("-") ? dir.split("-").filter(Boolean).pop() : undefined;
  return `${project ? `${project} · ` : ""}${id.slice(0, 8)}`;
}

export function SessionButton({
  session,
  title,
  onOpened,
}: {
  session: DiscoveredSession;
  /** The tooltip: the session file's path, and what a click does where that needs saying. */
  title: string;
  /** Called before the session opens (the first-run view closes). */
  onOpened?: () => void;
}) {
  const d = session;
  return (
    <button
      type="button"
      className="session"
      data-session-id={d.session_id}
      data-harness={d.harness}
      title={title}
      onClick={() => {
        onOpened?.();
        void importAndOpen(d.harness, d.path, d.thread_id);
      }}
    >
      <span className={`harness-dot harness-dot--${d.harness}`} aria-hidden />
      <span className="thread__text">
        <span className="thread__title">{sessionLabel(d.path, d.session_id)}</span>
        <span className="thread__sub">
          {harnessName(d.harness)} · {relativeTime(d.modified)}
        </span>
      </span>
    </button>
  );
}
