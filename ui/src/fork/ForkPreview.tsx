import { useLayoutEffect, useMemo, useRef } from "react";
import type { ThreadDetail } from "../bindings/ThreadDetail";
import { MessageRow, StatusLine } from "../messages/MessageRow";
import { buildRows } from "../messages/rows";
import { harnessName } from "../harnesses";
import { Spinner } from "../ui/icons";
import { perf } from "../perf";
import { usePreview, useTabPreview } from "./preview";

/** The preview shows the end of the history (where the fork's window opens); the fork's own
 * list, virtualized, takes over for scrolling. */
const TAIL_ROWS = 60;

const noop = () => {};

/**
 * The history a fork inherits, shown in its window while the harness forks: the source's rows
 * up to the cut, at their end, read-only (no Fork buttons live, the composer says "Forking…").
 * Over the window, until the fork's own conversation has painted underneath (preview.ts).
 */
export function ForkPreview() {
  const detail = usePreview();
  if (!detail) return null;
  return (
    <div
      className="fork-preview"
      data-fork-preview="true"
      inert
      style={{ position: "fixed", inset: 0, zIndex: 60, display: "flex", background: "var(--bg)" }}
    >
      <main className="workspace">
        <div className="tabbar" />
        <PreviewView detail={detail} />
      </main>
    </div>
  );
}

/**
 * The same for a fork into a tab (Workspace): in the tab area in place of the active tab while
 * the harness forks; then, `over` the fork's own tab, until its list has painted underneath.
 */
export function TabForkPreview({ over = false }: { over?: boolean }) {
  const detail = useTabPreview();
  if (!detail) return null;
  return (
    <div
      className={over ? "fork-preview fork-preview--over" : "tabpanel fork-preview"}
      role={over ? undefined : "tabpanel"}
      data-fork-preview="tab"
      inert
    >
      <PreviewView detail={detail} />
    </div>
  );
}

function PreviewView({ detail }: { detail: ThreadDetail }) {
  // As a thread still being created: its Fork buttons are off.
  const thread = useMemo(
    () => ({ ...detail, state: "creating" as const, turns: detail.turns.slice(-TAIL_ROWS) }),
    [detail],
  );
  const rows = useMemo(() => buildRows(thread, undefined, undefined, () => undefined).slice(-TAIL_ROWS), [thread]);
  const scrollRef = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    const p = perf().preview;
    if (!p) return;
    p.rows = rows.length;
    requestAnimationFrame(() => {
      p.paintedAt ??= Date.now();
    });
  }, [rows]);
  return (
    <section className="conv" data-thread-state="creating" data-rows={rows.length}>
      <header className="conv-head">
        <div className="conv-head__row">
          <span className={`harness-dot harness-dot--${thread.harness}`} aria-hidden />
          <h1 className="conv-head__title">{thread.title}</h1>
          <span className="badge">{harnessName(thread.harness)}</span>
          <span className="badge">forking</span>
        </div>
      </header>
      <div ref={scrollRef} className="conv-scroll" style={{ overflowY: "hidden" }}>
        {rows.map((row, i) => {
          const prev = rows[i - 1];
          return (
            <div key={row.key} className="conv-row" style={{ position: "static" }}>
              {row.kind === "status" ? (
                <StatusLine row={row} harness={thread.harness} />
              ) : (
                <MessageRow
                  row={row}
                  thread={thread}
                  showAuthor={row.role !== "user" && (!prev || prev.kind === "status" || prev.role === "user")}
                  selected={false}
                  highlighted={false}
                  forking={false}
                  where="window"
                  chips={[]}
                  onSelect={noop}
                  onFork={noop}
                  onContextMenu={noop}
                  onChips={noop}
                />
              )}
            </div>
          );
        })}
      </div>
      <div className="composer" data-state="forking">
        <div className="composer__box">
          <textarea className="composer__input" rows={1} disabled placeholder="Forking…" aria-label="Forking…" />
          <span role="status" style={{ display: "flex", alignItems: "center", gap: 6, color: "var(--text-muted)" }}>
            <Spinner size={14} /> Forking…
          </span>
        </div>
      </div>
    </section>
  );
}
