import { describe, expect, it } from "vitest";
import type { ThreadView } from "../bindings/ThreadView";
import { threadDetail } from "../testing/threads";
import { forkWhere, lineageWords, tabTooltip } from "./words";

function thread(over: Partial<ThreadView> = {}): ThreadView {
  const { turns: _turns, ...view } = threadDetail("f");
  return { ...view, ...over };
}

function fork(over: Partial<NonNullable<ThreadView["fork"]>> = {}): ThreadView["fork"] {
  return {
    source_thread: "s",
    source_turn: "turn-2",
    boundary: "after",
    source_harness: "claude",
    source_turn_number: 2,
    ...over,
  };
}

describe("a fork's lineage in words", () => {
  it("names the cut", () => {
    expect(forkWhere(fork()!)).toBe("after turn 2");
    expect(forkWhere(fork({ boundary: "latest", source_turn_number: 3 })!)).toBe("after turn 3");
    expect(forkWhere(fork({ boundary: "before" })!)).toBe("before turn 2");
    expect(forkWhere(fork({ boundary: "before", source_turn: null, source_turn_number: null })!)).toBe(
      "before its first turn",
    );
    // Not known (the source turn is gone): no number is made up.
    expect(forkWhere(fork({ source_turn_number: null })!)).toBe("");
  });

  it("says fork of, or continued in another harness", () => {
    expect(lineageWords(thread(), "Source")).toBeNull();
    expect(lineageWords(thread({ fork: fork() }), "Fix the parser")).toBe("Fork of Fix the parser after turn 2");
    expect(lineageWords(thread({ harness: "codex", fork: fork() }), "Fix the parser")).toBe(
      "Continued in Codex from Fix the parser, after turn 2",
    );
    expect(lineageWords(thread({ fork: fork({ source_turn_number: null }) }), undefined)).toBe(
      "Fork of a thread that is gone",
    );
  });

  it("puts the lineage under the title in a tab's tooltip", () => {
    expect(tabTooltip(thread({ title: "after turn 2 · 2", fork: fork() }), "Source", false)).toBe(
      "after turn 2 · 2 — Claude Code\nFork of Source after turn 2",
    );
    expect(tabTooltip(thread({ title: "Plain" }), undefined, true)).toBe("Plain — Claude Code (terminal)");
  });
});
