import { beforeEach, describe, expect, it } from "vitest";
import { markPainted, markRead, markRendered, perf } from "./perf";

beforeEach(() => {
  delete window.__forkhostPerf;
});

describe("perf marks", () => {
  it("records a read, then its first render, first paint and scrollable end once each", () => {
    markRead("t1", 12, 40);
    const open = perf().opens[0];
    expect(open).toMatchObject({ threadId: "t1", messages: 40, readMs: 12, firstPaintMs: null });
    expect(perf().pending.t1).toBeDefined();

    markRendered("t1");
    const renderMs = open?.renderMs;
    expect(renderMs).not.toBeNull();
    markRendered("t1");
    expect(open?.renderMs).toBe(renderMs);

    markPainted("t1", "paint");
    expect(open?.firstPaintMs).not.toBeNull();
    expect(open?.paintedAt).not.toBeNull();
    expect(open?.scrollableMs).toBeNull();

    markPainted("t1", "scrollable");
    expect(open?.scrollableMs).not.toBeNull();
    expect(perf().pending.t1).toBeUndefined();
  });

  it("ignores paints of a thread whose read was not marked", () => {
    markPainted("t2", "scrollable");
    markRendered("t2");
    expect(perf().opens).toEqual([]);
  });

  it("keeps one record on the window (the benchmarks read it over WebDriver)", () => {
    perf().forks.push({
      threadId: "a",
      forkId: "b",
      window: null,
      clickedAt: 1,
      commandMs: 2,
      nativeMs: 3,
      warm: false,
      hostTotalMs: 4,
      opensIn: "tab",
    });
    expect(window.__forkhostPerf?.forks).toHaveLength(1);
  });
});
