import { describe, expect, it, vi } from "vitest";
import { continueItems } from "./continueIn";

describe("continueItems", () => {
  it("offers every other harness, Codex refused with its reason", () => {
    const go = vi.fn();
    const items = continueItems("claude", "assistant", true, undefined, go);
    expect(items.map((i) => i.label)).toEqual(["Continue in Codex", "Continue in Pi"]);
    expect(items[0]?.disabled).toBe(true);
    expect(items[0]?.title).toMatch(/Codex cannot take/);
    expect(items[1]?.disabled).toBe(false);
    items[1]?.action?.();
    expect(go).toHaveBeenCalledWith("pi");
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
