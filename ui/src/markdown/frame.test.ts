import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FrameCoalescer, nextFrame, spaced } from "./frame";

describe("FrameCoalescer", () => {
  it("runs once per frame however often it is asked", () => {
    const frames: (() => void)[] = [];
    const work = vi.fn();
    const c = new FrameCoalescer(work, (run) => {
      frames.push(run);
      return () => {};
    });
    for (let i = 0; i < 50; i++) c.request();
    expect(frames).toHaveLength(1);
    expect(work).not.toHaveBeenCalled();
    frames[0]?.();
    expect(work).toHaveBeenCalledTimes(1);
    c.request();
    expect(frames).toHaveLength(2);
  });

  it("flush runs what is pending now; dispose drops it", () => {
    const work = vi.fn();
    const c = new FrameCoalescer(work, () => () => {});
    c.flush();
    expect(work).not.toHaveBeenCalled();
    c.request();
    expect(c.pending).toBe(true);
    c.flush();
    expect(work).toHaveBeenCalledTimes(1);
    c.request();
    c.dispose();
    expect(c.pending).toBe(false);
  });
});

describe("nextFrame", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("coalesces a burst of requests into one run at the next animation frame", () => {
    const work = vi.fn();
    const c = new FrameCoalescer(work);
    for (let i = 0; i < 10; i++) c.request();
    expect(work).not.toHaveBeenCalled();
    vi.advanceTimersToNextFrame();
    expect(work).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it("runs at the frame, not again at the backup timer; the timer runs it without frames", () => {
    const run = vi.fn();
    nextFrame(run);
    vi.advanceTimersToNextFrame();
    vi.advanceTimersByTime(500);
    expect(run).toHaveBeenCalledTimes(1);
    const cancel = nextFrame(run);
    cancel();
    vi.advanceTimersByTime(500);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("spaced waits its time before the frame, and runs at once when there is none to wait", () => {
    const run = vi.fn();
    let wait = 100;
    const c = new FrameCoalescer(run, spaced(nextFrame, () => wait));
    c.request();
    vi.advanceTimersToNextFrame();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    vi.advanceTimersToNextFrame();
    expect(run).toHaveBeenCalledTimes(1);
    wait = 0;
    c.request();
    vi.advanceTimersToNextFrame();
    expect(run).toHaveBeenCalledTimes(2);
    wait = 50;
    c.request();
    c.dispose();
    vi.advanceTimersByTime(1000);
    expect(run).toHaveBeenCalledTimes(2);
  });
});
