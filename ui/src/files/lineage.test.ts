import { describe, expect, it } from "vitest";
import { threadDetail, turn } from "../testing/threads";
import { stripTurns } from "../threads/cache";
import { diffLines, lineageOf, splitTurns } from "./lineage";
import { splitRows } from "./DiffView";

const view = (id: string, source?: string) =>
  stripTurns(threadDetail(id, 0, source ? { fork: { source_thread: source, source_turn: "t", boundary: "after", source_harness: null, source_turn_number: null } } : {}));

describe("a lineage tree", () => {
  it("holds the root and every descendant, whichever member is asked, and nothing else", () => {
    const threads = [view("root"), view("a", "root"), view("b", "root"), view("a1", "a"), view("other")];
    const ids = (id: string) => lineageOf(threads, id).map((t) => t.id).sort();
    expect(ids("a1")).toEqual(["a", "a1", "b", "root"]);
    expect(ids("root")).toEqual(["a", "a1", "b", "root"]);
    expect(ids("other")).toEqual(["other"]);
    expect(lineageOf(threads, "nope")).toEqual([]);
  });
});

describe("two threads' turns", () => {
  it("are shared while their messages are the same, then each one's own", () => {
    const a = threadDetail("a", 3);
    const forked = turn(2);
    forked.messages = [{ role: "user", text: "another prompt", tool: null, error: null }];
    const b = threadDetail("b", 1, { turns: [turn(1), forked] });
    const sides = splitTurns(a, b);
    expect(sides.shared.map((t) => Number(t.number))).toEqual([1]);
    expect(sides.left.map((t) => Number(t.number))).toEqual([2, 3]);
    expect(sides.right.map((t) => t.messages[0]?.text)).toEqual(["another prompt"]);
  });
});

const DIFF = [
  "diff --git a/notes.txt b/notes.txt",
  "index 1..2 100644",
  "--- a/notes.txt",
  "+++ b/notes.txt",
  "@@ -1,2 +1,2 @@",
  " same",
  "-turn 1",
  "+fork",
  "diff --git a/new.txt b/new.txt",
  "--- /dev/null",
  "+++ b/new.txt",
  "@@ -0,0 +1 @@",
  "+<script>alert(1)</script>",
  "",
].join("\n");

describe("a unified diff", () => {
  it("is split into lines by kind; ---/+++ headers are not changes", () => {
    const kinds = diffLines(DIFF).map((l) => l.kind);
    expect(kinds).toEqual([
      "file", "meta", "meta", "meta", "hunk", "context", "del", "add",
      "file", "meta", "meta", "hunk", "add",
    ]);
  });

  it("pairs removed and added lines for the split view", () => {
    const rows = splitRows(diffLines(DIFF));
    const pair = rows.find((r) => r.left?.kind === "del");
    expect(pair?.left?.text).toBe("-turn 1");
    expect(pair?.right?.text).toBe("+fork");
    const context = rows.find((r) => r.left?.kind === "context");
    expect(context?.right?.text).toBe(" same");
  });
});
