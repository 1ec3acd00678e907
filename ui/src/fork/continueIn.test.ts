import { describe, expect, it, vi } from "vitest";
import { continueItems } from "./continueIn";

describe("continueItems", () => {
  it("offers every other harness", () => {
    const go = vi.fn();
    const items = continueItems("claude", "assistant", true, undefined, go);
    expect(items.map((i) => i.label)).toEqual(["Continue in Codex", "Continue in Pi"]);
    expect(items.every((i) => !i.disabled)).toBe(true);
    items[0]?.action?.();
    items[1]?.action?.();
    expect(go.mock.calls).toEqual([["codex"], ["pi"]]);
  });

  it("says before the message for a user message and follows the fork's refusal", () => {
    const items = continueItems("pi", "user", false, "turn 2 is still in progress", () => {});
    expect(items.map((i) => i.label)).toEqual([
      "Continue in Claude Code from before this message",
      "Continue in Codex from before this message",
    ]);
    expect(items[0]?.disabled).toBe(true);
    expect(items[0]?.title).toBe("turn 2 is still in progress");
  });

  it("offers nothing while the thread's harness is unknown", () => {
    expect(continueItems(undefined, "assistant", true, undefined, () => {})).toEqual([]);
  });
});
