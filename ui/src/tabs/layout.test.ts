import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import type { TabView } from "../bindings/TabView";
import { freshWindow } from "../testing/freshWindow";
import { store } from "../state";
import { flushLayout, layoutSynced, scheduleLayout } from "./layout";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  m.setWindowTabs.mockResolvedValue(undefined);
});

afterEach(() => {
  vi.useRealTimers();
});

function showTabs(n: number) {
  const tabs = Array.from({ length: n }, (_, i): TabView => ({ id: `x${i}`, thread_id: `t${i}`, kind: "conversation" }));
  store.set({ tabs, activeTab: tabs[0]?.id ?? null });
}

describe("the layout the app keeps", () => {
  it("is not reported before the window is ready", async () => {
    showTabs(1);
    await flushLayout();
    expect(m.setWindowTabs).not.toHaveBeenCalled();
  });

  it("is reported once per change", async () => {
    store.set({ ready: true });
    showTabs(2);
    await flushLayout();
    await flushLayout();
    expect(m.setWindowTabs).toHaveBeenCalledTimes(1);
    expect(m.setWindowTabs).toHaveBeenCalledWith(store.get().tabs, "x0");
    store.set({ activeTab: "x1" });
    await flushLayout();
    expect(m.setWindowTabs).toHaveBeenCalledTimes(2);
  });

  it("is not reported back when the app gave it", async () => {
    store.set({ ready: true });
    showTabs(3);
    layoutSynced();
    await flushLayout();
    expect(m.setWindowTabs).not.toHaveBeenCalled();
  });

  it("is reported shortly after a burst of changes, once", () => {
    vi.useFakeTimers();
    store.set({ ready: true });
    showTabs(1);
    scheduleLayout();
    showTabs(4);
    scheduleLayout();
    vi.advanceTimersByTime(39);
    expect(m.setWindowTabs).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(m.setWindowTabs).toHaveBeenCalledTimes(1);
    expect(m.setWindowTabs.mock.calls[0]?.[0]).toHaveLength(4);
  });

  it("says when the app could not take it", async () => {
    m.setWindowTabs.mockRejectedValue(new Error("closed"));
    store.set({ ready: true });
    showTabs(5);
    await flushLayout();
    expect(store.get().toasts[0]?.title).toMatch(/^Layout: /);
  });
});
