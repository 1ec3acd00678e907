// Pure helpers of the files views: a thread's lineage tree, the turns two threads share, and a
// file's unified diff (one per file, from Rust) split into lines to show as text. Unit-tested.
import type { ThreadDetail } from "../bindings/ThreadDetail";
import type { ThreadView } from "../bindings/ThreadView";
import type { TurnView } from "../bindings/TurnView";

/** Every thread of `threadId`'s lineage tree (its root and all the root's descendants). */
export function lineageOf(threads: ThreadView[], threadId: string): ThreadView[] {
  const byId = new Map(threads.map((t) => [t.id, t]));
  let root = byId.get(threadId);
  if (!root) return [];
  const seen = new Set<string>([root.id]);
  while (root.fork) {
    const parent = byId.get(root.fork.source_thread);
    if (!parent || seen.has(parent.id)) break;
    seen.add(parent.id);
    root = parent;
  }
  const out: ThreadView[] = [];
  const walk = (node: ThreadView) => {
    out.push(node);
    for (const t of threads) {
      if (t.fork?.source_thread === node.id && !out.includes(t)) walk(t);
    }
  };
  walk(root);
  return out.filter((t) => t.state !== "creating");
}

/** A turn's identity as the user sees it: its messages' roles and texts. */
function turnKey(turn: TurnView): string {
  return turn.messages.map((m) => `${m.role}\u0001${m.text}\u0001${m.tool?.name ?? ""}`).join("\u0002");
}

export interface Sides {
  /** The turns both threads have, shown once. */
  shared: TurnView[];
  /** Each thread's turns from where they diverge. */
  left: TurnView[];
  right: TurnView[];
}

/**
 * Splits two threads' turns into the ones they share (a fork keeps its source's turns up to its
 * fork point, with the same messages) and each one's own from there.
 */
export function splitTurns(a: ThreadDetail, b: ThreadDetail): Sides {
  let n = 0;
  while (n < a.turns.length && n < b.turns.length) {
    const x = a.turns[n];
    const y = b.turns[n];
    if (!x || !y || turnKey(x) !== turnKey(y)) break;
    n++;
  }
  return { shared: a.turns.slice(0, n), left: a.turns.slice(n), right: b.turns.slice(n) };
}

export interface DiffLine {
  kind: "file" | "hunk" | "add" | "del" | "context" | "meta";
  text: string;
}

/** A unified diff's lines, each with its kind (for colour only: always shown as text). */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let inHunk = false;
  return lines.map((text): DiffLine => {
    if (text.startsWith("diff --git")) {
      inHunk = false;
      return { kind: "file", text };
    }
    if (text.startsWith("@@")) {
      inHunk = true;
      return { kind: "hunk", text };
    }
    if (inHunk && text.startsWith("+")) return { kind: "add", text };
    if (inHunk && text.startsWith("-")) return { kind: "del", text };
    if (inHunk && (text.startsWith(" ") || text === "")) return { kind: "context", text };
    return { kind: "meta", text };
  });
}
