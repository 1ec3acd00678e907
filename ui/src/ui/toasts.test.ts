import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetStore, store } from "../state";
import { dismissToast, notify, notifyError, replaceToast } from "./toasts";

beforeEach(() => {
  resetStore();
  vi.useFakeTimers();
});

afterEach(() => {
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
});

const titles = () => store.get().toasts.map((t) => t.title);

describe("toasts", () => {
  it("keeps the newest five", () => {
    for (let i = 1; i <= 7; i++) notify({ kind: "info", title: `n${i}` });
    expect(titles()).toEqual(["n3", "n4", "n5", "n6", "n7"]);
  });

  it("closes info after 4 s, errors after 12 s, progress never on its own", () => {
    notify({ kind: "info", title: "info" });
    notify({ kind: "error", title: "error" });
    notify({ kind: "progress", title: "progress" });
    vi.advanceTimersByTime(4_000);
    expect(titles()).toEqual(["error", "progress"]);
    vi.advanceTimersByTime(8_000);
    expect(titles()).toEqual(["progress"]);
    vi.advanceTimersByTime(60_000);
    expect(titles()).toEqual(["progress"]);
  });

  it("honours a given time to live", () => {
    notify({ kind: "info", title: "short" }, 100);
    vi.advanceTimersByTime(100);
    expect(titles()).toEqual([]);
  });

  it("replaces a toast: the old one and its timer go, the new one has its own", () => {
    const id = notify({ kind: "info", title: "old" });
    const next = replaceToast(id, { kind: "success", title: "new" }, 10_000);
    expect(next).not.toBe(id);
    expect(titles()).toEqual(["new"]);
    vi.advanceTimersByTime(4_000);
    expect(titles()).toEqual(["new"]);
    vi.advanceTimersByTime(6_000);
    expect(titles()).toEqual([]);
  });

  it("dismisses by id", () => {
    const id = notify({ kind: "progress", title: "p" });
    dismissToast(id);
    expect(titles()).toEqual([]);
  });

  it("words an error, with its context first", () => {
    notifyError(new Error("disk full"), "Rename");
    const [toast] = store.get().toasts;
    expect(toast?.kind).toBe("error");
    expect(toast?.title.startsWith("Rename: ")).toBe(true);
  });
});
