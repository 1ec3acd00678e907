import { describe, expect, it, vi } from "vitest";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";
import { setupFields } from "../testing/harnessReport";
import { continueItems, targetRefusal } from "./continueIn";

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

describe("continueItems and the target harness", () => {
  const ready = (name: HarnessKind, over: Partial<HarnessReport> = {}): HarnessReport => ({
    name,
    path: `/bin/${name}`,
    version: "1.0.0",
    capabilities: { boundaries: ["after", "before", "latest"], granularity: "turn", eager_fork: true, note: null, snapshots: false },
    error: null,
    found_by: "path",
    notes: [],
    support: null,
    permission_modes: [],
    sandboxes: [],
    ...setupFields(name),
    ...over,
  });

  it("disables a target that is not installed, with what to do", () => {
    const reports = [ready("codex", { path: null, next_step: "Install it with npm i -g @openai/codex" }), ready("pi")];
    const items = continueItems("claude", "assistant", true, undefined, () => {}, reports);
    expect(items[0]?.disabled).toBe(true);
    expect(items[0]?.title).toBe("Codex is not installed: Install it with npm i -g @openai/codex");
    expect(items[1]?.disabled).toBe(false);
    expect(items[1]?.title).toBeUndefined();
  });

  it("disables a target whose version cannot take a history, with its reason", () => {
    const old = ready("pi", {
      version: "0.9.0",
      capabilities: { boundaries: [], granularity: "turn", eager_fork: false, note: "needs RPC fork (1.0+)", snapshots: false },
    });
    const items = continueItems("codex", "assistant", true, undefined, () => {}, [old]);
    const pi = items.find((i) => i.label === "Continue in Pi");
    expect(pi?.disabled).toBe(true);
    expect(pi?.title).toBe("Pi 0.9.0 cannot take a conversation: needs RPC fork (1.0+)");
    expect(targetRefusal("pi", ready("pi", { error: "--version failed" }))).toBe("Pi cannot be used: --version failed");
  });

  it("keeps the fork's own refusal first, and leaves a target without a report to the Host", () => {
    const items = continueItems("claude", "assistant", false, "turn 2 is still in progress", () => {}, [ready("pi", { path: null })]);
    expect(items.map((i) => i.title)).toEqual(["turn 2 is still in progress", "turn 2 is still in progress"]);
    expect(targetRefusal("codex", undefined)).toBeUndefined();
  });
});
