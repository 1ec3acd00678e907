import { describe, expect, it } from "vitest";
import { applyEvent, settled, startLive } from "./live";

const id = "t1";

describe("live turn", () => {
  it("builds text and tool calls from Host events, then ends", () => {
    let live = startLive("hi", 2);
    live = applyEvent(live, { type: "turn_started", thread_id: id }, 2)!;
    expect(live.phase).toBe("streaming");
    live = applyEvent(live, { type: "text_delta", thread_id: id, text: "Hel" }, 2)!;
    live = applyEvent(live, { type: "text_delta", thread_id: id, text: "lo" }, 2)!;
    live = applyEvent(live, { type: "tool_call", thread_id: id, id: "c1", name: "Bash", input: { command: "ls" } }, 2)!;
    live = applyEvent(live, { type: "tool_result", thread_id: id, id: "c1", output: "a\nb", is_error: false }, 2)!;
    live = applyEvent(live, { type: "text_delta", thread_id: id, text: "done" }, 2)!;
    expect(live.items).toEqual([
      { kind: "text", text: "Hello" },
      { kind: "tool", id: "c1", name: "Bash", input: { command: "ls" }, output: "a\nb", isError: false },
      { kind: "text", text: "done" },
    ]);
    live = applyEvent(live, { type: "turn_ended", thread_id: id, outcome: "completed", message: null }, 2)!;
    expect(live.phase).toBe("ended");
    expect(settled(live, 2)).toBe(true);
    expect(settled(live, 3)).toBe(true);
  });

  it("keeps a failed turn visible until the thread holds it", () => {
    let live = applyEvent(undefined, { type: "turn_started", thread_id: id }, 0)!;
    expect(live.prompt).toBeNull();
    live = applyEvent(live, { type: "turn_ended", thread_id: id, outcome: "failed", message: "boom" }, 0)!;
    expect(live.error).toBe("boom");
    expect(settled(live, 0)).toBe(false);
    expect(settled(live, 1)).toBe(true);
    expect(settled({ ...live, phase: "streaming" }, 5)).toBe(false);
  });

  it("matches tool results without ids to the last open call", () => {
    let live = startLive(null, 0);
    live = applyEvent(live, { type: "tool_call", thread_id: id, id: null, name: "a", input: {} }, 0)!;
    live = applyEvent(live, { type: "tool_result", thread_id: id, id: null, output: "x", is_error: true }, 0)!;
    expect(live.items[0]).toMatchObject({ output: "x", isError: true });
  });
});
