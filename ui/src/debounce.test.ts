import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { debounced } from "./debounce";

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("debounced", () => {
  it("runs once per key after the last call's wait", () => {
    const fn = vi.fn();
    const call = debounced(fn, 50);
    call("a");
    vi.advanceTimersByTime(30);
    call("a");
    call("b");
    vi.advanceTimersByTime(49);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn.mock.calls).toEqual([["a"], ["b"]]);
    vi.advanceTimersByTime(1_000);
    expect(fn).toHaveBeenCalledTimes(2);
  });
});
