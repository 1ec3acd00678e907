import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ThreadView } from "../bindings/ThreadView";
import { Spinner } from "../icons";
import { MessageRow, StatusLine } from "./MessageRow";
import { renderMarkdown } from "../markdown/render";
import { buildRows, type MessageRow as MessageRowData } from "./rows";

const thread: ThreadView = {
  id: "warm-up",
  harness: "claude",
  cwd: "/",
  title: "warm-up",
  state: "ready",
  native: { session_id: null, path: null },
  fork: null,
  permissions: { mode: null, sandbox: null },
  revision: 0,
  created_at: 0,
  updated_at: 0,
};

const SAMPLE = [
  "Here is **bold**, `code`, a [link](https://example.com) and a list:\n\n1. one\n2. two",
  "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n```ts\nconst x: number = 1;\n```",
  "> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |",
];

const rows = buildRows(
  {
    ...thread,
    turns: SAMPLE.map((text, i) => ({
      id: `w${i}`,
      number: (i + 1) as unknown as bigint,
      native_turn_ref: "",
      native_checkpoint_ref: null,
      forks: [],
      messages: [
        { role: "user", text: "prompt", tool: null, error: null },
        { role: "assistant", text, tool: null, error: null },
        {
          role: "tool",
          text: "",
          tool: { name: "Bash", input: { command: "ls" }, output: "a", is_error: false },
          error: null,
        },
      ],
    })),
  },
  undefined,
  undefined,
  () => undefined,
).filter((r): r is MessageRowData => r.kind === "message");

const noop = () => {};

/**
 * A spare window renders a few messages once, out of sight, so that the code a fork window
 * needs (React components, Markdown, sanitizing, highlighting) is compiled before a fork
 * arrives. The app shows it as soon as a fork is asked for (its first frame is drawn while the
 * harness forks): until the fork arrives it says so, over the empty workspace.
 */
export function WarmUp() {
  const [done, setDone] = useState(false);
  const [visible, setVisible] = useState(() => document.visibilityState === "visible");
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  const ref = useRef<HTMLDivElement>(null);
  // A hidden window does no layout on its own: ask for one, so styles are resolved too.
  useLayoutEffect(() => {
    void ref.current?.offsetHeight;
  }, []);
  useEffect(() => {
    for (const s of SAMPLE) renderMarkdown(`${s}\n`);
    const timer = setTimeout(() => setDone(true), 50);
    return () => clearTimeout(timer);
  }, []);
  const opening = visible ? (
    <div
      className="spare-opening"
      role="status"
      data-spare-opening="true"
      style={{
        position: "fixed",
        inset: 0,
        zIndex: 50,
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
        gap: 8,
        background: "var(--bg)",
        color: "var(--text-muted)",
      }}
    >
      <Spinner size={18} /> Opening the fork…
    </div>
  ) : null;
  if (done) return opening;
  return (
    <>
      {opening}
      <div
        ref={ref}
        aria-hidden
        style={{ position: "absolute", width: 800, left: -10000, top: 0, visibility: "hidden" }}
      >
        {rows.map((row) => (
          <MessageRow
            key={row.key}
            row={row}
            thread={thread}
            showAuthor
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
        ))}
        <StatusLine
          row={{ kind: "status", key: "s", turn: 1, phase: "ended", outcome: "failed", error: "x", startedAt: 0, streaming: false }}
          harness="claude"
        />
      </div>
    </>
  );
}
