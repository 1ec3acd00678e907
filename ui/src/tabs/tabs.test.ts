import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import {
  activateTab,
  closeOtherTabs,
  closeTab,
  cycleTab,
  moveActiveTab,
  moveTab,
  moveTabToNewWindow,
  openTab,
  openThread,
  selectTabAt,
} from "./tabs";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
});

/** Tabs x1.. on threads a, b, c, ..., `active` the active one. */
function tabs(threads: string[], active: number) {
  store.set({
    tabs: threads.map((t, i) => ({ id: `x${i + 1}`, thread_id: t, kind: "conversation" })),
    activeTab: `x${active}`,
  });
}

const ids = () => store.get().tabs.map((t) => t.id);

describe("opening", () => {
  it("puts a new tab after the active one, makes it active and reads its thread", () => {
    tabs(["a", "b"], 1);
    const id = openTab("c");
    expect(ids()).toEqual(["x1", id, "x2"]);
    expect(store.get().activeTab).toBe(id);
    expect(m.show).toHaveBeenCalledWith("c");
  });

  it("shows a thread's existing tab of that kind instead of a second one", () => {
    tabs(["a", "b"], 2);
    expect(openTab("a")).toBe("x1");
    expect(store.get().activeTab).toBe("x1");
    const terminal = openTab("a", "terminal");
    expect(terminal).not.toBe("x1");
    expect(store.get().tabs).toHaveLength(3);
  });

  it("does not re-read a thread it already holds", () => {
    updateSlot("a", (s) => ({ ...s, detail: threadDetail("a") }));
    openTab("a");
    expect(m.show).not.toHaveBeenCalled();
  });

  it("opens in a new window when asked, saying so when it cannot", async () => {
    m.openWindow.mockResolvedValue("w-1");
    await openThread("a", "window");
    expect(m.openWindow).toHaveBeenCalledWith([{ thread_id: "a", kind: "conversation" }], null, true);
    expect(store.get().tabs).toEqual([]);
    m.openWindow.mockRejectedValue(new Error("no window"));
    await openThread("a", "window");
    expect(store.get().toasts[0]?.title).toMatch(/^New window: /);
    await openThread("a");
    expect(store.get().tabs).toHaveLength(1);
  });
});

describe("switching", () => {
  it("activates a tab, reading its thread if it is neither held nor being read", () => {
    tabs(["a", "b"], 1);
    updateSlot("b", (s) => ({ ...s, loading: true }));
    activateTab("x2");
    expect(store.get().activeTab).toBe("x2");
    expect(m.show).not.toHaveBeenCalled();
    activateTab("x1");
    expect(m.show).toHaveBeenCalledWith("a");
    activateTab("nope");
    expect(store.get().activeTab).toBe("x1");
  });

  it("cycles both ways, wrapping, and selects by position (negative: the last)", () => {
    tabs(["a", "b", "c"], 3);
    cycleTab(1);
    expect(store.get().activeTab).toBe("x1");
    cycleTab(-1);
    expect(store.get().activeTab).toBe("x3");
    selectTabAt(1);
    expect(store.get().activeTab).toBe("x2");
    selectTabAt(-1);
    expect(store.get().activeTab).toBe("x3");
    selectTabAt(9);
    expect(store.get().activeTab).toBe("x3");
  });
});

describe("closing", () => {
  it("activates the tab that takes the closed one's place, and drops the thread it alone showed", () => {
    tabs(["a", "b", "c"], 2);
    updateSlot("b", (s) => s);
    closeTab("x2");
    expect(ids()).toEqual(["x1", "x3"]);
    expect(store.get().activeTab).toBe("x3");
    expect(store.get().slots.b).toBeUndefined();
    closeTab("x3");
    expect(store.get().activeTab).toBe("x1");
    closeTab("x1");
    expect(store.get().activeTab).toBeNull();
  });

  it("keeps a thread another tab still shows, and the active tab when another closes", () => {
    tabs(["a", "a"], 1);
    updateSlot("a", (s) => s);
    closeTab("x2");
    expect(store.get().slots.a).toBeDefined();
    expect(store.get().activeTab).toBe("x1");
  });

  it("closes the other tabs", () => {
    tabs(["a", "b", "c"], 1);
    closeOtherTabs("x2");
    expect(ids()).toEqual(["x2"]);
    expect(store.get().activeTab).toBe("x2");
  });
});

describe("reordering", () => {
  it("moves a tab to a position, clamped to the ends", () => {
    tabs(["a", "b", "c"], 1);
    moveTab("x1", 2);
    expect(ids()).toEqual(["x2", "x3", "x1"]);
    moveTab("x1", -5);
    expect(ids()).toEqual(["x1", "x2", "x3"]);
    moveTab("x3", 99);
    expect(ids()).toEqual(["x1", "x2", "x3"]);
  });

  it("moves the active tab by a step", () => {
    tabs(["a", "b", "c"], 2);
    moveActiveTab(1);
    expect(ids()).toEqual(["x1", "x3", "x2"]);
    moveActiveTab(-2);
    expect(ids()).toEqual(["x2", "x1", "x3"]);
  });

  it("moves a tab to a new window: the layout first, then the move, then it closes here", async () => {
    m.setWindowTabs.mockResolvedValue(undefined);
    m.moveTabToNewWindow.mockResolvedValue("w-2");
    tabs(["a", "b"], 1);
    store.set({ ready: true });
    await moveTabToNewWindow("x2");
    expect(m.setWindowTabs.mock.invocationCallOrder[0]).toBeLessThan(
      m.moveTabToNewWindow.mock.invocationCallOrder[0] ?? 0,
    );
    expect(m.moveTabToNewWindow).toHaveBeenCalledWith("x2");
    expect(ids()).toEqual(["x1"]);
  });

  it("keeps the tab when the move fails", async () => {
    m.moveTabToNewWindow.mockRejectedValue(new Error("no window"));
    tabs(["a", "b"], 1);
    await moveTabToNewWindow("x2");
    expect(ids()).toEqual(["x1", "x2"]);
    expect(store.get().toasts[0]?.title).toMatch(/^Move tab: /);
  });
});
