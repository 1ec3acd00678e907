import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { holdReads, releaseReads, scheduleThread } from "./heldReads";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  vi.useFakeTimers();
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
});

afterEach(() => {
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
});

describe("scheduled re-reads", () => {
  it("read a thread once for a burst of requests", () => {
    scheduleThread("a");
    scheduleThread("a");
    vi.advanceTimersByTime(59);
    expect(m.show).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(m.show).toHaveBeenCalledTimes(1);
  });

  it("wait while a fork holds the thread, then read once", () => {
    holdReads("h1");
    scheduleThread("h1");
    scheduleThread("h1");
    vi.advanceTimersByTime(1_000);
    expect(m.show).not.toHaveBeenCalled();
    releaseReads("h1", 500);
    vi.advanceTimersByTime(499);
    expect(m.show).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1 + 60);
    expect(m.show).toHaveBeenCalledTimes(1);
  });

  it("wait for the last of two holds", () => {
    holdReads("h2");
    holdReads("h2");
    scheduleThread("h2");
    releaseReads("h2", 0);
    vi.advanceTimersByTime(1_000);
    expect(m.show).not.toHaveBeenCalled();
    releaseReads("h2", 0);
    vi.advanceTimersByTime(60);
    expect(m.show).toHaveBeenCalledTimes(1);
  });

  it("read nothing after a hold when nothing was asked for", () => {
    holdReads("h3");
    releaseReads("h3", 0);
    vi.advanceTimersByTime(1_000);
    expect(m.show).not.toHaveBeenCalled();
  });

  it("catch a request that was debounced before the hold began", () => {
    scheduleThread("h4");
    holdReads("h4");
    vi.advanceTimersByTime(60);
    expect(m.show).not.toHaveBeenCalled();
    releaseReads("h4", 0);
    vi.advanceTimersByTime(60);
    expect(m.show).toHaveBeenCalledTimes(1);
  });
});
