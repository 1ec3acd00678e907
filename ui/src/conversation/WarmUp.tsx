import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { ThreadView } from "../bindings/ThreadView";
import { Spinner } from "../ui/icons";
import { MessageRow, StatusLine } from "../messages/MessageRow";
import { renderMarkdown } from "../markdown/render";
import { buildRows, type MessageRow as MessageRowData } from "../messages/rows";
import { NO_COST } from "../cost/cost";

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
      usage: null,
      model: null,
      complete: true,
      cost_usd: null,
      priced_by: "unknown",
      inherited: false,
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
    cost: NO_COST,
    moved_from: null,
  },
  undefined,
  undefined,
  () => undefined,
).filter((r): r is MessageRowData => r.kind === "message");

const noop = () => {};

/**
 * Rounds of warm-up. Code run once stays in JavaScriptCore's interpreter (several times slower
 * than its JIT tiers), and a fork window's first frame paid for it: each window's page links its
 * own code (on macOS and Windows each window may even be a web process of its own; Linux windows
 * share one, windows.rs). Rendering the sample rows and Markdown a dozen times, in idle slices,
 * lets the engine compile the paths a fork needs before one arrives.
 */
const ROUNDS = 12;

/**
 * A spare window renders a few messages, out of sight and several times over, so that the code
 * a fork window needs (React components, Markdown, sanitizing, highlighting) is compiled before
 * a fork arrives. The app shows it as soon as a fork is asked for (its first frame is drawn
 * while the harness forks): until the fork arrives it says so, over the empty workspace.
 */
export function WarmUp() {
  const [round, setRound] = useState(0);
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
  }, [round]);
  const done = round >= ROUNDS;
  useEffect(() => {
    if (done) return;
    // Distinct text each round: the render cache must not answer it.
    for (const s of SAMPLE) renderMarkdown(`${s}\n\nround ${round}\n`);
    // One round per slice, so a fork arriving meanwhile is served at once.
    const timer = setTimeout(() => setRound((r) => r + 1), round === 0 ? 50 : 16);
    return () => clearTimeout(timer);
  }, [round, done]);
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
        data-warm-up-round={round}
        style={{ position: "absolute", width: 800, left: -10000, top: 0, visibility: "hidden" }}
      >
        {rows.map((row) => (
          <MessageRow
            key={`${row.key}:${round}`}
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
